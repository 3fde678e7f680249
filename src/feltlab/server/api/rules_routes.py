"""The rule sets a table can be opened with (public: no money moves here)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from feltlab.core.rules import is_known, open_ids
from feltlab.server.api.contract import refusals
from feltlab.server.api.responses import RulesDefinition, RulesSummary
from feltlab.server.api.schemas import RulesPath
from feltlab.server.errors import NotFound
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.views import rules_definition, rules_summary

router = APIRouter(prefix="/api/v1", tags=["rules"], route_class=StrictJSONRoute)


@router.get("/rules", response_model=list[RulesSummary])
def list_rules() -> list[dict[str, Any]]:
    """Every rule set a new table may use, with its wagers and limits: the built-in ones,
    then those admins published (not withdrawn)."""
    return [rules_summary(rules_id) for rules_id in open_ids()]


@router.get("/rules/{rules_id}", response_model=RulesDefinition, responses=refusals(404))
def get_rules(rules_id: RulesPath) -> dict[str, Any]:
    """One rule set in full (pay tables included), as its file defines it."""
    if not is_known(rules_id):
        raise NotFound(f"there is no rule set {rules_id[:64]!r}")
    return rules_definition(rules_id)
