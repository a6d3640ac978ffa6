"""API tokens: handed out once, stored only as their sha256.

A leaked database then gives nobody a usable token, and a lookup by hash is a
constant-cost unique-index query, so no timing comparison of secrets happens in Python.
"""

import hashlib
import secrets

from django.contrib.auth.models import User
from django.utils import timezone

from leaderboard.models import ApiToken

PREFIX = "smb_"


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def create_token(user: User, name: str) -> tuple[str, ApiToken]:
    """A new token for `user`; the raw value is returned here and never again."""
    raw = PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, token_hash=hash_token(raw))
    return raw, token


def verify_token(raw: str) -> User | None:
    """The user owning `raw`, or None; marks the token as used."""
    if not raw or not raw.startswith(PREFIX):
        return None
    token = ApiToken.objects.select_related("user").filter(token_hash=hash_token(raw)).first()
    if token is None or not token.user.is_active:
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user


def user_from_authorization(header: str) -> User | None:
    """The user behind an `Authorization: Bearer <token>` header, or None."""
    scheme, _, raw = (header or "").partition(" ")
    if scheme.lower() != "bearer":
        return None
    return verify_token(raw.strip())
