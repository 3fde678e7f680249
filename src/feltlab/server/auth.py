"""Accounts and logins: argon2id password hashes, random bearer tokens stored only as
their SHA-256, expiry after idle time, logout revocation, throttled failed logins, and
the browser's HttpOnly SameSite cookie with a CSRF token.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import bindparam, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from feltlab.server import audit, ledger
from feltlab.server.clock import aware, now
from feltlab.server.errors import ApiError
from feltlab.server.models import AuthToken, LoginFailure, User, table_of

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


def check_username(username: str) -> str:
    if not USERNAME_PATTERN.fullmatch(username):
        raise ApiError(422, "username must be 3-32 letters, digits or _ . -")
    return username


def check_password(password: str) -> str:
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ApiError(422, f"password must be {MIN_PASSWORD}-{MAX_PASSWORD} characters long")
    return password


def create_account(session: Session, hasher: PasswordHasher, username: str, password: str,
                   role: str = "player") -> User:
    """A new account with its wallets (practice starts at 1,000)."""
    check_username(username)
    check_password(password)
    taken = session.scalar(select(User.id).where(func.lower(User.username) == username.lower()))
    if taken is not None:
        raise ApiError(409, f"username {username} is taken")
    user = User(username=username, password_hash=hasher.hash(password), role=role,
                created_at=now())
    session.add(user)
    try:
        session.flush()
    except IntegrityError:
        raise ApiError(409, f"username {username} is taken") from None
    ledger.open_wallets(session, user.id)
    audit.record(session, username, "account_created", role=role)
    return user


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def csrf_for(token: str) -> str:
    """The CSRF token that goes with a session cookie (the page sends it back as a header)."""
    return hmac.new(token.encode("utf-8", "replace"), b"csrf", hashlib.sha256).hexdigest()


def recent_failures(session: Session, username: str, settings: AuthSettings) -> int:
    since = now() - timedelta(minutes=settings.failure_window_minutes)
    return int(session.scalar(select(func.count(LoginFailure.id)).where(
        LoginFailure.username == username.lower()[:64], LoginFailure.at >= since)) or 0)


def login(session: Session, hasher: PasswordHasher, settings: AuthSettings, username: str,
          password: str) -> str | None:
    """A new bearer token for the right password, or ``None`` for a wrong one (the failure
    is recorded: the caller commits, then refuses); throttled after repeated failures."""
    if recent_failures(session, username, settings) >= settings.max_failures:
        raise ApiError(429, f"too many failed logins for this username; try again in "
                            f"{settings.failure_window_minutes} minutes")
    user = session.scalars(select(User).where(User.username == username)).one_or_none()
    if user is None or not _password_matches(hasher, user.password_hash, password):
        session.add(LoginFailure(username=username.lower()[:64], at=now()))
        audit.record(session, username[:64], "login_failed")
        return None
    session.execute(delete(LoginFailure).where(LoginFailure.username == username.lower()))
    token = secrets.token_urlsafe(32)
    moment = now()
    session.add(AuthToken(user_id=user.id, token_hash=token_digest(token), created_at=moment,
                          last_used_at=moment, revoked=False))
    audit.record(session, user.username, "login")
    return token


def _password_matches(hasher: PasswordHasher, stored: str, password: str) -> bool:
    try:
        return hasher.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


_TOKENS, _USERS = table_of(AuthToken), table_of(User)
_TOKEN_OWNER = (select(_TOKENS.c.id, _TOKENS.c.revoked, _TOKENS.c.last_used_at, _USERS.c.id,
                       _USERS.c.username, _USERS.c.role)
                .join(_USERS, _USERS.c.id == _TOKENS.c.user_id)
                .where(_TOKENS.c.token_hash == bindparam("digest")))
"""Built once, in Core: every request reads its token this way; building a statement, or
running it through the ORM, costs more CPU than the query itself."""
_TOKEN_USED = (update(_TOKENS).where(_TOKENS.c.id == bindparam("token_id"))
               .values(last_used_at=bindparam("moment")))


def authenticate(session: Session, token: str, settings: AuthSettings) -> Caller:
    """The caller a token belongs to; an unknown, revoked or idle token is refused.
    Only reads: when ``stale``, the caller's :func:`touch` records the use."""
    row = session.connection().execute(_TOKEN_OWNER, {"digest": token_digest(token)}
                                       ).one_or_none()
    if row is None:
        raise ApiError(401, "sign in first: the token is missing or unknown")
    token_id, revoked, last_used_at, user_id, username, role = row
    moment = now()
    if revoked:
        raise ApiError(401, "this token was revoked at logout; sign in again")
    idle = moment - aware(last_used_at)
    if idle > timedelta(minutes=settings.idle_minutes):
        raise ApiError(401, "this token expired after idle time; sign in again")
    return Caller(user_id, username, role, token_id, idle > timedelta(seconds=30))


def touch(session: Session, caller: Caller) -> None:
    """Record that the token was used now (its idle time starts again)."""
    session.connection().execute(_TOKEN_USED, {"token_id": caller.token_id, "moment": now()})


def logout(session: Session, caller: Caller) -> None:
    session.execute(update(AuthToken).where(AuthToken.id == caller.token_id)
                    .values(revoked=True))
    audit.record(session, caller.username, "logout")


def settings_from_environment() -> AuthSettings:
    """Settings from ``FELTLAB_TOKEN_IDLE_MINUTES`` and ``FELTLAB_ARGON2_MEMORY_KIB`` /
    ``FELTLAB_ARGON2_TIME_COST`` (the defaults suit a server; tests make hashing cheap)."""
    import os

    def number(name: str, default: int) -> int:
        text = os.environ.get(name, "")
        return int(text) if text.isdigit() and int(text) > 0 else default

    base = AuthSettings()
    return AuthSettings(idle_minutes=number("FELTLAB_TOKEN_IDLE_MINUTES", base.idle_minutes),
                        argon2_time_cost=number("FELTLAB_ARGON2_TIME_COST",
                                                base.argon2_time_cost),
                        argon2_memory_kib=number("FELTLAB_ARGON2_MEMORY_KIB",
                                                 base.argon2_memory_kib))
