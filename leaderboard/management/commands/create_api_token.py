"""Create an API token for a user and print it once (only its sha256 is kept)."""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.accounts.tokens import create_token


class Command(BaseCommand):
    help = "Create a JSON API token: create_api_token <username> <name>"

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("name", help="a label to recognise the token by, e.g. 'ci'")

    def handle(self, *args: Any, username: str, name: str, **options: Any) -> None:
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(
                f"no user named {username!r}: create one with `manage.py create_user "
                f"{username}`, `manage.py createsuperuser` (a maintainer) or on the site's "
                "sign-up page (/accounts/signup/)"
            )
        raw, _ = create_token(user, name)
        self.stderr.write("Store this token now: it is not shown again.")
        self.stdout.write(raw)
