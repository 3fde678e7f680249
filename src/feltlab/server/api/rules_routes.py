"""The rule sets a table can be opened with (public: no money moves here)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from feltlab.core.rules import builtin_ids, load_rules
from feltlab.server.errors import ApiError

router = APIRouter(prefix="/api/v1", tags=["rules"])


def _summary(rules_id: str) -> dict[str, Any]:
    rules = load_rules(rules_id)
    return {"id": rules.id, "name": rules.name, "game": rules.game, "seats": rules.seats,
            "fingerprint": rules.fingerprint, "required_wagers": list(rules.required_wagers),
            "limits": {name: {"min": limit.min, "max": limit.max}
                       for name, limit in rules.limits.items()},
            "max_aggregate_payout": rules.max_aggregate_payout}


@router.get("/rules")
def list_rules() -> list[dict[str, Any]]:
    """Every built-in rule set with its wagers and limits."""
    return [_summary(rules_id) for rules_id in builtin_ids()]


@router.get("/rules/{rules_id}")
def get_rules(rules_id: str) -> dict[str, Any]:
    """One rule set in full (pay tables included), as its file defines it."""
    if rules_id not in builtin_ids():
        raise ApiError(404, f"there is no built-in rule set {rules_id[:64]!r}")
    return {**_summary(rules_id), "definition": load_rules(rules_id).model_dump(mode="json")}
