"""Publishing designs (admins only): a published rule set is listed by ``GET /api/v1/rules``
and dealt like a built-in one; it never changes, and can be withdrawn from new tables.
A design that can pay one seat more than the house exposure limit on one round is never
published; one with a wager favouring the player only with ``allow_player_edge``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import AdminDep, ServicesDep
from feltlab.server.api.page_responses import PublishChecksAnswer, PublishedRules
from feltlab.server.api.schemas import DesignRequest, PublishRequest, RulesId
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import rulesets

router = APIRouter(prefix="/api/v1/admin/rulesets", tags=["admin"], responses=refusals(403),
                   route_class=StrictJSONRoute)


@router.post("", status_code=201, response_model=PublishedRules, responses=refusals(409))
def publish(body: PublishRequest, caller: AdminDep, found: ServicesDep,
            response: Response) -> dict[str, Any]:
    """Publish a rule set under its own id: 201 with its id and fingerprint; the same
    rule set again answers 200 with the stored entry; an id that is taken is 409. A rule
    set over the house exposure limit is 422 naming the figure; one with a negative house
    edge is 422 naming the wager and its edge, unless ``allow_player_edge`` is true."""
    published = rulesets.publish(found, caller, body.rules, body.allow_player_edge)
    if not published.created:
        response.status_code = 200
    return published.entry


@router.post("/check", response_model=PublishChecksAnswer)
def check(body: DesignRequest, caller: AdminDep, found: ServicesDep) -> dict[str, Any]:
    """What publishing the rule set would find, refusing nothing: each wager's exact house
    edge, those favouring the player, and its exposure against the limit."""
    return rulesets.publish_checks_of(found, body.rules)


@router.get("", response_model=list[PublishedRules])
def list_published(caller: AdminDep, found: ServicesDep) -> list[dict[str, Any]]:
    """Every published rule set, withdrawn ones included."""
    return rulesets.list_published(found)


@router.post("/{rules_id}/withdraw", response_model=PublishedRules,
             responses=refusals(404))
def withdraw(rules_id: RulesId, caller: AdminDep, found: ServicesDep) -> dict[str, Any]:
    """Stop new tables from using a published rule set (its rounds still verify)."""
    return rulesets.withdraw(found, caller, rules_id)
