"""Create an ordinary (non-staff) account from the command line, e.g. for a CI submitter.

manage.py create_user alice                 # asks for the password twice
printf '%s\n' "$PASSWORD" | manage.py create_user alice --password-stdin
"""

import getpass
import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = (
        "Create a user account (not staff): create_user <username> [--email E] [--password-stdin]"
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--password-stdin", action="store_true", help="read the password from standard input"
        )

    def handle(
        self, *args: Any, username: str, email: str, password_stdin: bool, **options: Any
    ) -> None:
        users = get_user_model()
        if users.objects.filter(username=username).exists():
            raise CommandError(f"a user named {username!r} exists already")
        password = self._password(password_stdin)
        user = users(username=username, email=email)
        try:
            validate_password(password, user)
        except ValidationError as error:
            raise CommandError("the password is refused: " + " ".join(error.messages)) from error
        user.set_password(password)
        user.save()
        self.stdout.write(
            f"Created {username!r}. An API token for it: manage.py create_api_token {username} NAME"
        )

    def _password(self, from_stdin: bool) -> str:
        if from_stdin:
            return sys.stdin.readline().rstrip("\n")
        first = getpass.getpass("Password: ")
        if first != getpass.getpass("Password (again): "):
            raise CommandError("the two passwords differ")
        return first
