"""A player's own limits on play: self-exclusion, and the daily loss limit on cash.

Every stake a player makes (the opening bet, a raise, a street bet, a play) passes
:func:`check_stake`, one query, before any money moves: a self-excluded player may stake
nothing, and at cash what the player lost today (net), plus the stakes still at risk in
their open rounds, plus this stake, must stay within the daily loss limit. A stake
refused leaves the round as it was, so folding stays open. A lower limit takes effect at
once; a higher one (or a first limit raised later) waits :data:`COOLING_OFF` as a
pending limit, shown by ``GET /api/v1/me``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import bindparam, case, func, or_, select, true
from sqlalchemy.orm import Session

from feltlab.server.clock import aware, now
from feltlab.server.errors import Conflict, Forbidden
from feltlab.server.models import Round, RoundSeat, User, table_of

COOLING_OFF: Final = timedelta(hours=24)
"""How long a raised daily loss limit waits before it takes effect."""

_SEATS, _ROUNDS, _USERS = table_of(RoundSeat), table_of(Round), table_of(User)
_TODAY = (select(
    func.coalesce(func.sum(case((_SEATS.c.total.is_(None), _SEATS.c.staked), else_=0)), 0)
    .label("at_risk"),
    func.coalesce(func.sum(case((_SEATS.c.total.is_not(None), _SEATS.c.total), else_=0)), 0)
    .label("net"))
    .select_from(_SEATS.join(_ROUNDS, _ROUNDS.c.id == _SEATS.c.round_id))
    .where(_SEATS.c.user_id == bindparam("user_id"), _ROUNDS.c.currency == "cash",
           or_(_SEATS.c.total.is_(None), _ROUNDS.c.completed_at >= bindparam("midnight")))
    .subquery())
"""The player's cash today: stakes in rounds not settled yet (whenever they opened), and
the net of the rounds settled since midnight UTC."""
_LIMITS = (_USERS.c.locked, _USERS.c.excluded_until, _USERS.c.daily_loss_limit,
           _USERS.c.pending_daily_loss_limit, _USERS.c.pending_limit_at)
_CASH_CHECK = (select(*_LIMITS, _TODAY.c.at_risk, _TODAY.c.net)
               .select_from(_USERS.join(_TODAY, true()))
               .where(_USERS.c.id == bindparam("user_id")))
_PRACTICE_CHECK = select(*_LIMITS).where(_USERS.c.id == bindparam("user_id"))


@dataclass(frozen=True)
class Exposure:
    """What a player has lost at cash today and what is still at risk."""

    lost: int
    """Lost in rounds settled since midnight UTC, net of wins (never below zero)."""
    at_risk: int
    """Staked in cash rounds not settled yet."""


def check_stake(session: Session, user_id: int, currency: str, stake: int) -> None:
    """The one check at every stake point: refuse (nothing moves) a stake while the player's
    account is locked by an admin or self-excluded, or a cash stake that, with today's net
    loss and the stakes still at risk, could take the day's losses past the daily loss
    limit."""
    moment = now()
    if currency != "cash":
        row: Any = session.execute(_PRACTICE_CHECK, {"user_id": user_id}).one()
    else:
        row = session.execute(_CASH_CHECK, {"user_id": user_id,
                                            "midnight": _midnight(moment)}).one()
    refuse_if_barred(row.locked, row.excluded_until, moment)
    limit = _effective(row.daily_loss_limit, row.pending_daily_loss_limit,
                       row.pending_limit_at, moment)
    if currency != "cash" or limit is None:
        return
    lost, at_risk = max(0, -int(row.net)), int(row.at_risk)
    if lost + at_risk + stake > limit:
        raise Conflict(f"this stake of {stake} could take today's cash losses past your "
                       f"daily loss limit of {limit} (lost today {lost}, at risk in open "
                       f"rounds {at_risk}); folding is still open")


def refuse_if_barred(locked: bool, excluded_until: datetime | None, moment: datetime
                     ) -> None:
    """Refuse any stake from an account an admin locked or a self-excluded player (at
    practice too: the only part of :func:`check_stake` a practice stake needs, so a caller
    that has the account's row already asks no query)."""
    if locked:
        raise Forbidden("your account is locked: ask the operator")
    if excluded_until is not None and aware(excluded_until) > moment:
        raise Forbidden(f"you are self-excluded until "
                        f"{aware(excluded_until).isoformat(timespec='minutes')}")


def exposure(session: Session, user_id: int) -> Exposure:
    """Today's cash loss and stakes at risk, as :func:`check_stake` counts them."""
    row = session.execute(select(_TODAY.c.at_risk, _TODAY.c.net),
                          {"user_id": user_id, "midnight": _midnight(now())}).one()
    return Exposure(max(0, -int(row.net)), int(row.at_risk))


def loss_today(session: Session, user_id: int) -> int:
    """Cash lost since midnight UTC plus what is still at risk in open rounds."""
    today = exposure(session, user_id)
    return today.lost + today.at_risk


def effective_limit(user: User) -> int | None:
    """The daily loss limit in force now (a pending one once its time has come)."""
    return _effective(user.daily_loss_limit, user.pending_daily_loss_limit,
                      user.pending_limit_at, now())


def pending_limit(user: User) -> tuple[int | None, datetime | None]:
    """A raised limit still waiting, and when it takes effect; (None, None) if none."""
    if (user.pending_daily_loss_limit is None or user.pending_limit_at is None
            or aware(user.pending_limit_at) <= now()):
        return None, None
    return user.pending_daily_loss_limit, aware(user.pending_limit_at)


def change_daily_loss_limit(user: User, requested: int) -> None:
    """Set ``user``'s daily loss limit: a lower one (or the first) at once, a higher one
    after :data:`COOLING_OFF`. Asking again for a pending limit, or for less than it, keeps
    its time; asking for more starts the wait again."""
    moment = now()
    current = effective_limit(user)
    waiting, since = pending_limit(user)
    if current is None or requested <= current:
        user.daily_loss_limit = requested
        user.pending_daily_loss_limit = user.pending_limit_at = None
        return
    user.daily_loss_limit = current  # a matured pending limit is now the limit
    keeps_time = waiting is not None and since is not None and requested <= waiting
    user.pending_daily_loss_limit = requested
    user.pending_limit_at = since if keeps_time else moment + COOLING_OFF


def _effective(limit: int | None, pending: int | None, pending_at: datetime | None,
               moment: datetime) -> int | None:
    if pending is not None and pending_at is not None and aware(pending_at) <= moment:
        return pending
    return limit


def _midnight(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)
