"""Signing in, without the database: argon2id password hashes, the settings of logins,
who a caller is, token digests, the browser's cookie names and its CSRF token.

The accounts, tokens and failed logins themselves are kept by
:mod:`feltlab.server.services.accounts`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from feltlab.server.errors import Refused

USERNAME_PATTERN: Final = re.compile(r"[A-Za-z0-9_.-]{3,32}")
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 256
COOKIE_NAME: Final = "feltlab_session"
CSRF_COOKIE: Final = "feltlab_csrf"
CSRF_HEADER: Final = "X-CSRF-Token"


@dataclass(frozen=True)
class AuthSettings:
    idle_minutes: int = 30
    max_failures: int = 5
    failure_window_minutes: int = 15
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536


@dataclass(frozen=True)
class Caller:
    """Who is calling, as the token or cookie says."""

    user_id: int
    username: str
    role: str
    token_id: int
    stale: bool = False  # last use long enough ago to be written down again

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


def password_hasher(settings: AuthSettings) -> PasswordHasher:
    """argon2id with the configured cost."""
    return PasswordHasher(time_cost=settings.argon2_time_cost,
                          memory_cost=settings.argon2_memory_kib, parallelism=1)


def password_matches(hasher: PasswordHasher, stored: str, password: str) -> bool:
    try:
        return hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def check_username(username: str) -> str:
    if not USERNAME_PATTERN.fullmatch(username):
        raise Refused("username must be 3-32 letters, digits or _ . -")
    return username


def check_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Refused(f"password must be {MIN_PASSWORD}-{MAX_PASSWORD} characters long")
    return password


def token_digest(token: str) -> str:
    """What is stored of a bearer token: its SHA-256."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def csrf_for(token: str) -> str:
    """The CSRF token that goes with a session cookie (the page sends it back as a header)."""
    return hmac.new(token.encode("utf-8", "replace"), b"csrf", hashlib.sha256).hexdigest()


def settings_from_environment() -> AuthSettings:
    """Settings from ``FELTLAB_TOKEN_IDLE_MINUTES`` and ``FELTLAB_ARGON2_MEMORY_KIB`` /
    ``FELTLAB_ARGON2_TIME_COST`` (the defaults suit a server; tests make hashing cheap)."""

    def number(name: str, default: int) -> int:
        text = os.environ.get(name, "")
        return int(text) if text.isdigit() and int(text) > 0 else default

    base = AuthSettings()
    return AuthSettings(idle_minutes=number("FELTLAB_TOKEN_IDLE_MINUTES", base.idle_minutes),
                        argon2_time_cost=number("FELTLAB_ARGON2_TIME_COST",
                                                base.argon2_time_cost),
                        argon2_memory_kib=number("FELTLAB_ARGON2_MEMORY_KIB",
                                                 base.argon2_memory_kib))
