"""Our trace harnesses over unmodified systems; they import nothing of the project and the scorer
reads only the traces they write (docs/decisions/0033-trace-harnesses.md)."""
