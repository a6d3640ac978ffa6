"""`python -m evaluation score ...` (see evaluation/cli.py)."""

import sys

from evaluation.cli import main

if __name__ == "__main__":
    sys.exit(main())
