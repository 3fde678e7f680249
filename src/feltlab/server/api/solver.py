"""The pages' pay-table solver: the bonus wagers it takes, and the whole-number pays
nearest a target house edge (no money moves here), computed as a design is: by the
designer's pool, within its limits (429) and time budget (422)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from feltlab.core.rules import load_rules
from feltlab.present import solver
from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import CallerDep
from feltlab.server.api.designer import computed
from feltlab.server.api.page_responses import Solution, SolvableWager
from feltlab.server.api.rulecards import known_rules
from feltlab.server.api.schemas import RulesPath, SolveRequest
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services.designer import PaySolution

router = APIRouter(prefix="/api/v1", tags=["pages"], route_class=StrictJSONRoute)


@router.get("/paytable-solver/{rules_id}", response_model=list[SolvableWager],
            responses=refusals(404))
def solver_wagers(rules_id: RulesPath, caller: CallerDep) -> list[dict[str, Any]]:
    """The wagers (and their lines) the page's pay-table solver takes."""
    return solver.solvable_wagers(load_rules(known_rules(rules_id)))


@router.post("/paytable-solutions", response_model=Solution, responses=refusals(404, 429))
async def solve(body: SolveRequest, caller: CallerDep, request: Request) -> dict[str, Any]:
    """The whole-number pays nearest a target house edge for a bonus pay table."""
    rules = load_rules(known_rules(body.rules))
    return await computed(request, caller,
                          PaySolution(rules, body.wager, body.target, body.line))
