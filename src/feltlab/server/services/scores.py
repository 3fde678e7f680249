"""Trainer scores kept on the server for signed-in players, per rule set: the strategy
trainer's accuracy and total cost (each verdict the server gives at a table counts), and
the dealer trainer's rounds, perfect rounds, wagers right and time (each check counts).

``GET /api/v1/me/trainer-scores`` reads them; ``POST /api/v1/advice`` and ``POST
/api/v1/dealer-checks`` add to them when asked to (``"record": true``) and answer the
new score. Nothing here moves money.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fastapi import APIRouter
from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Integer,
    String,
    UniqueConstraint,
    select,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from feltlab.server.api.deps import CallerDep, ServicesDep
from feltlab.server.models import Base
from feltlab.server.services import Services

MICRO = 1_000_000
"""Costs are kept in millionths of a unit of the main wager (whole numbers add exactly)."""


class TrainerScore(Base):
    """One player's score at one trainer and rule set (migration 0002)."""

    __tablename__ = "trainer_scores"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    kind: Mapped[str] = mapped_column(String(10))
    rules_id: Mapped[str] = mapped_column(String(64))
    right: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    rounds: Mapped[int] = mapped_column(Integer, default=0)
    perfect: Mapped[int] = mapped_column(Integer, default=0)
    cost_micro: Mapped[int] = mapped_column(BigInteger, default=0)
    millis: Mapped[int] = mapped_column(BigInteger, default=0)

    __table_args__ = (
        CheckConstraint("kind IN ('strategy', 'dealer')", name="trainer_kind_known"),
        UniqueConstraint("user_id", "kind", "rules_id", name="one_score_per_rule_set"),
    )


def strategy_json(row: TrainerScore) -> dict[str, Any]:
    """The strategy trainer's score as the pages show it (cost in units)."""
    return {"right": row.right, "total": row.total, "cost": row.cost_micro / MICRO}


def dealer_json(row: TrainerScore) -> dict[str, Any]:
    """The dealer trainer's score as the pages show it (time in seconds)."""
    return {"rounds": row.rounds, "perfect": row.perfect, "right": row.right, "of": row.total,
            "seconds": row.millis / 1000}


def _row(session: Session, user_id: int, kind: str, rules_id: str) -> TrainerScore:
    row = session.scalars(select(TrainerScore).where(
        TrainerScore.user_id == user_id, TrainerScore.kind == kind,
        TrainerScore.rules_id == rules_id).with_for_update()).one_or_none()
    if row is None:
        row = TrainerScore(user_id=user_id, kind=kind, rules_id=rules_id, right=0, total=0,
                           rounds=0, perfect=0, cost_micro=0, millis=0)
        session.add(row)
    return row


def record_verdict(found: Services, user_id: int, rules_id: str, verdict: dict[str, Any]
                   ) -> dict[str, Any]:
    """Count one judged decision (a verdict from :func:`feltlab.present.trainer.advice_json`)."""
    with found.transaction() as session:
        row = _row(session, user_id, "strategy", rules_id)
        row.total += 1
        row.right += bool(verdict["right"])
        row.cost_micro += round(Fraction(verdict["cost_exact"]) * MICRO)
        session.flush()
        return strategy_json(row)


def record_check(found: Services, user_id: int, rules_id: str, checked: dict[str, Any],
                 seconds: float) -> dict[str, Any]:
    """Count one checked dealer-trainer round (from
    :func:`~feltlab.present.trainer.check_payouts`)."""
    with found.transaction() as session:
        row = _row(session, user_id, "dealer", rules_id)
        row.rounds += 1
        row.perfect += checked["right"] == checked["of"]
        row.right += checked["right"]
        row.total += checked["of"]
        row.millis += round(seconds * 1000)
        session.flush()
        return dealer_json(row)


def scores_of(session: Session, user_id: int) -> dict[str, dict[str, Any]]:
    rows = session.scalars(select(TrainerScore).where(TrainerScore.user_id == user_id)
                           .order_by(TrainerScore.rules_id))
    answer: dict[str, dict[str, Any]] = {"strategy": {}, "dealer": {}}
    for row in rows:
        answer[row.kind][row.rules_id] = (strategy_json(row) if row.kind == "strategy"
                                          else dealer_json(row))
    return answer


def scores_router() -> APIRouter:
    router = APIRouter(prefix="/api/v1", tags=["web"])

    @router.get("/me/trainer-scores")
    def trainer_scores(caller: CallerDep, found: ServicesDep) -> dict[str, dict[str, Any]]:
        """The caller's trainer scores by rule set: ``strategy`` (right, total, cost in
        units) and ``dealer`` (rounds, perfect, right, of, seconds)."""
        with found.read() as session:
            return scores_of(session, caller.user_id)

    return router
