"""Accounts: registration, random bearer tokens stored only as their SHA-256, expiry
after idle time, logout revocation, and what a player reads and sets about their own
account (balances, limits). Signing in itself, throttled, is
:mod:`feltlab.server.services.logins`."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from sqlalchemy import Connection, Engine, bindparam, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from feltlab.server.auth import (
    AuthSettings,
    Caller,
    check_password,
    check_username,
    token_digest,
)
from feltlab.server.clock import aware, now
from feltlab.server.errors import Conflict, Forbidden, Unauthorized
from feltlab.server.models import AuthToken, User, table_of
from feltlab.server.revocations import Revoked
from feltlab.server.services import audit, ledger
from feltlab.server.services.context import Services
from feltlab.server.services.database import session_factory, transaction
from feltlab.server.services.limits import (
    change_daily_loss_limit,
    effective_limit,
    loss_today,
    pending_limit,
)
from feltlab.server.services.statements import Prepared

# --- registration and logins ---------------------------------------------------------------


def create_account(session: Session, hasher: PasswordHasher, username: str, password: str,
                   role: str = "player") -> User:
    """A new account with its wallets (practice starts at 1,000)."""
    check_username(username)
    check_password(password, username)
    taken = session.scalar(select(User.id).where(func.lower(User.username) == username.lower()))
    if taken is not None:
        raise Conflict(f"username {username} is taken")
    user = User(username=username, password_hash=hasher.hash(password), role=role,
                created_at=now())
    session.add(user)
    try:
        session.flush()
    except IntegrityError:
        raise Conflict(f"username {username} is taken") from None
    ledger.open_wallets(session, user.id)
    audit.record(session, username, "account_created", role=role)
    return user


def register(found: Services, username: str, password: str) -> dict[str, Any]:
    """A new player account, as ``POST /api/v1/accounts`` answers it."""
    with found.transaction() as session:
        user = create_account(session, found.hasher, username, password)
        return {"username": user.username, "role": user.role,
                "balances": ledger.balances(session, user.id)}


def create_admin(engine: Engine, hasher: PasswordHasher, username: str, password: str) -> None:
    """An admin account (``feltlab admin create``)."""
    with transaction(session_factory(engine)) as session:
        create_account(session, hasher, username, password, role="admin")


def sign_out(found: Services, caller: Caller) -> None:
    """Revoke the caller's token: it is refused from now on, and its live sockets close."""
    with found.transaction() as session:
        session.execute(update(AuthToken).where(AuthToken.id == caller.token_id)
                        .values(revoked=True))
        audit.record(session, caller.username, "logout")
    found.revoke(Revoked("token", caller.token_id))


# --- who is calling --------------------------------------------------------------------------

_TOKENS, _USERS = table_of(AuthToken), table_of(User)
_TOKEN_OWNER = (select(_TOKENS.c.id, _TOKENS.c.revoked, _TOKENS.c.last_used_at, _USERS.c.id,
                       _USERS.c.username, _USERS.c.role)
                .join(_USERS, _USERS.c.id == _TOKENS.c.user_id)
                .where(_TOKENS.c.token_hash == bindparam("digest")))
"""Built once, in Core: every request reads its token this way; building a statement, or
running it through the ORM, costs more CPU than the query itself."""
UNKNOWN_TOKEN = "sign in first: the token is missing or unknown"
_TOKEN_USED = Prepared(update(_TOKENS).where(_TOKENS.c.id == bindparam("token_id"))
                       .values(last_used_at=bindparam("moment")))


def caller_of(token_id: int, revoked: bool, last_used_at: datetime, user_id: int,
              username: str, role: str, settings: AuthSettings) -> Caller:
    """The caller a token row names; a revoked or idle token is refused (the one place
    that decides, whichever query read the row)."""
    moment = now()
    if revoked:
        raise Unauthorized("this token was revoked at logout; sign in again")
    idle, allowed = moment - aware(last_used_at), timedelta(minutes=settings.idle_minutes)
    if idle > allowed:
        raise Unauthorized("this token expired after idle time; sign in again")
    return Caller(user_id, username, role, token_id, idle > timedelta(seconds=30),
                  expires_at=aware(last_used_at) + allowed)


def check_token(connection: Connection, token: str, settings: AuthSettings) -> Caller:
    """The caller a token belongs to; an unknown, revoked or idle token is refused.
    Only reads: when ``stale``, the caller's :func:`touch` records the use."""
    row = connection.execute(_TOKEN_OWNER, {"digest": token_digest(token)}).one_or_none()
    if row is None:
        raise Unauthorized(UNKNOWN_TOKEN)
    return caller_of(*row, settings)


def authenticated(found: Services, token: str, record_use: bool = True) -> Caller:
    """The caller of ``token``; with ``record_use``, a stale use is written down at once
    (a money request writes it in its own transaction instead)."""
    with found.read_connection() as connection:  # no ORM session: it costs more than this
        caller = check_token(connection, token, found.auth)
    if record_use:
        note_use(found, caller)
    return caller


_WATCHER = _TOKEN_OWNER.add_columns(_USERS.c.locked)


def watching(found: Services, token: str) -> Caller:
    """The caller of a live socket's token, read without counting as a use (watching a
    table does not keep a token alive): refused as any request is, and also when an admin
    has locked the account (a locked account watches nothing)."""
    with found.read_connection() as connection:
        row = connection.execute(_WATCHER, {"digest": token_digest(token)}).one_or_none()
    if row is None:
        raise Unauthorized(UNKNOWN_TOKEN)
    token_id, revoked, last_used_at, user_id, username, role, locked = row
    caller = caller_of(token_id, revoked, last_used_at, user_id, username, role, found.auth)
    if locked:
        raise Forbidden("this account is locked: ask the operator")
    return caller


def note_use(found: Services, caller: Caller) -> None:
    """Write down a stale token's use (its idle time starts again), in a transaction of
    its own; a fresh token's, nothing."""
    if caller.stale:
        with found.transaction() as session:
            touch(session, caller)


def touch(session: Session | Connection, caller: Caller) -> None:
    """Record that the token was used now (its idle time starts again)."""
    connection = session.connection() if isinstance(session, Session) else session
    _TOKEN_USED.run(connection, {"token_id": caller.token_id, "moment": now()})


def record_refused_use(found: Services, caller: Caller) -> None:
    """A refusal rolls back its transaction, but the token was used: its idle time starts
    again all the same."""
    if caller.stale:
        with found.transaction() as session:
            touch(session, caller)


# --- the caller's own account ----------------------------------------------------------------

def me(session: Session, user_id: int) -> dict[str, Any]:
    """The account as ``GET /api/v1/me`` answers it: balances and limits."""
    user = session.get(User, user_id)
    assert user is not None
    waiting, takes_effect_at = pending_limit(user)
    return {"username": user.username, "role": user.role,
            "balances": ledger.balances(session, user.id),
            "limits": {"daily_loss_limit": effective_limit(user),
                       "pending_daily_loss_limit": waiting,
                       "pending_takes_effect_at": takes_effect_at.isoformat()
                       if takes_effect_at else None,
                       "excluded_until": aware(user.excluded_until).isoformat()
                       if user.excluded_until else None,
                       "lost_today": loss_today(session, user.id)}}


def read_me(found: Services, user_id: int) -> dict[str, Any]:
    with found.read() as session:
        return me(session, user_id)


def set_limits(found: Services, caller: Caller, daily_loss_limit: int | None,
               self_exclude_days: int | None) -> dict[str, Any]:
    """Set a daily loss limit (lowering takes effect at once, raising after 24 hours)
    and/or self-exclude; a self-exclusion is only ever lengthened."""
    with found.transaction() as session:
        user = session.scalars(select(User).where(User.id == caller.user_id)
                               .with_for_update()).one()
        change_limits(user, daily_loss_limit, self_exclude_days)
        audit.record(session, caller.username, "limits_changed",
                     daily_loss_limit=daily_loss_limit, self_exclude_days=self_exclude_days)
        session.flush()
        return me(session, caller.user_id)


def change_limits(user: User, daily_loss_limit: int | None, self_exclude_days: int | None
                  ) -> None:
    """The rules of a change to a player's limits, whoever asks for it (the player, or an
    admin for them): a self-exclusion is only ever lengthened."""
    if daily_loss_limit is not None:
        change_daily_loss_limit(user, daily_loss_limit)
    if self_exclude_days is not None:
        until = now() + timedelta(days=self_exclude_days)
        current = aware(user.excluded_until) if user.excluded_until else None
        user.excluded_until = max(until, current) if current else until


def user_named(session: Session, username: str) -> User | None:
    found: User | None = session.scalars(select(User).where(User.username == username)
                                         ).one_or_none()
    return found
