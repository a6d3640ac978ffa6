"""Entry points for the command line (`manage.py ...`)."""
