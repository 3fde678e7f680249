"""A player's own limits on play: self-exclusion, and the daily loss limit on cash."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from feltlab.server.clock import aware, now
from feltlab.server.errors import Conflict, Forbidden
from feltlab.server.models import Round, RoundSeat, User


def check_may_play(session: Session, user: User, currency: str, stake: int) -> None:
    """Refuse a stake while the player is self-excluded, or one that could take today's
    cash losses past their daily loss limit; an account an admin locked bets nothing."""
    if user.locked:
        raise Forbidden("your account is locked: ask the operator")
    if user.excluded_until is not None and aware(user.excluded_until) > now():
        raise Forbidden(f"you are self-excluded until "
                        f"{aware(user.excluded_until).isoformat(timespec='minutes')}")
    if currency != "cash" or user.daily_loss_limit is None:
        return
    lost = loss_today(session, user.id)
    if lost + stake > user.daily_loss_limit:
        raise Conflict(f"this stake of {stake} could take today's losses ({lost}) past "
                       f"your daily loss limit of {user.daily_loss_limit}")


def loss_today(session: Session, user_id: int) -> int:
    """Cash lost since midnight UTC: net of complete rounds plus stakes of open ones."""
    midnight = now().replace(hour=0, minute=0, second=0, microsecond=0)
    rows = session.execute(
        select(RoundSeat.total, RoundSeat.staked).join(Round, Round.id == RoundSeat.round_id)
        .where(RoundSeat.user_id == user_id, Round.currency == "cash",
               Round.created_at >= midnight)).all()
    net = sum(-staked if total is None else total for total, staked in rows)
    return max(0, -net)
