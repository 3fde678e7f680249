"""The rule sets a table can be opened with (public: no money moves here)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from feltlab.core.rules import builtin_ids
from feltlab.server.api.responses import RulesDefinition, RulesSummary
from feltlab.server.errors import NotFound
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.views import rules_definition, rules_summary

router = APIRouter(prefix="/api/v1", tags=["rules"], route_class=StrictJSONRoute)


@router.get("/rules", response_model=list[RulesSummary])
def list_rules() -> list[dict[str, Any]]:
    """Every built-in rule set with its wagers and limits."""
    return [rules_summary(rules_id) for rules_id in builtin_ids()]


@router.get("/rules/{rules_id}", response_model=RulesDefinition)
def get_rules(rules_id: str) -> dict[str, Any]:
    """One rule set in full (pay tables included), as its file defines it."""
    if rules_id not in builtin_ids():
        raise NotFound(f"there is no built-in rule set {rules_id[:64]!r}")
    return rules_definition(rules_id)
