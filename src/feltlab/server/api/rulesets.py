"""Publishing designs (admins only): a published rule set is listed by ``GET /api/v1/rules``
and dealt like a built-in one; it never changes, and can be withdrawn from new tables."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import AdminDep, ServicesDep
from feltlab.server.api.page_responses import PublishedRules
from feltlab.server.api.schemas import DesignRequest, RulesId
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import rulesets

router = APIRouter(prefix="/api/v1/admin/rulesets", tags=["admin"], responses=refusals(403),
                   route_class=StrictJSONRoute)


@router.post("", status_code=201, response_model=PublishedRules, responses=refusals(409))
def publish(body: DesignRequest, caller: AdminDep, found: ServicesDep,
            response: Response) -> dict[str, Any]:
    """Publish a rule set under its own id: 201 with its id and fingerprint; the same
    rule set again answers 200 with the stored entry; an id that is taken is 409."""
    published = rulesets.publish(found, caller, body.rules)
    if not published.created:
        response.status_code = 200
    return published.entry


@router.get("", response_model=list[PublishedRules])
def list_published(caller: AdminDep, found: ServicesDep) -> list[dict[str, Any]]:
    """Every published rule set, withdrawn ones included."""
    return rulesets.list_published(found)


@router.post("/{rules_id}/withdraw", response_model=PublishedRules,
             responses=refusals(404))
def withdraw(rules_id: RulesId, caller: AdminDep, found: ServicesDep) -> dict[str, Any]:
    """Stop new tables from using a published rule set (its rounds still verify)."""
    return rulesets.withdraw(found, caller, rules_id)
