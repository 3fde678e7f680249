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

from sqlalchemy import select
from sqlalchemy.orm import Session

from feltlab.server.models import TrainerScore
from feltlab.server.services.context import Services

MICRO = 1_000_000
"""Costs are kept in millionths of a unit of the main wager (whole numbers add exactly)."""


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


def scores_of(found: Services, user_id: int) -> dict[str, dict[str, Any]]:
    """The player's scores by trainer, then by rule set."""
    with found.read() as session:
        rows = session.scalars(select(TrainerScore).where(TrainerScore.user_id == user_id)
                               .order_by(TrainerScore.rules_id))
        answer: dict[str, dict[str, Any]] = {"strategy": {}, "dealer": {}}
        for row in rows:
            answer[row.kind][row.rules_id] = (strategy_json(row) if row.kind == "strategy"
                                              else dealer_json(row))
        return answer
