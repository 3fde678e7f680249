"""The pages' pay-table solver: the bonus wagers it takes, and the whole-number pays
nearest a target house edge (no money moves here)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

from feltlab.core.rules import load_rules
from feltlab.present import solver
from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import CallerDep
from feltlab.server.api.page_responses import Solution, SolvableWager
from feltlab.server.api.rulecards import BAD_INPUT, known_rules, refusal
from feltlab.server.api.schemas import RulesPath, SolveRequest
from feltlab.server.middleware import StrictJSONRoute

router = APIRouter(prefix="/api/v1", tags=["pages"], route_class=StrictJSONRoute)


@router.get("/paytable-solver/{rules_id}", response_model=list[SolvableWager],
            responses=refusals(404))
def solver_wagers(rules_id: RulesPath, caller: CallerDep) -> list[dict[str, Any]]:
    """The wagers (and their lines) the page's pay-table solver takes."""
    return solver.solvable_wagers(load_rules(known_rules(rules_id)))


@router.post("/paytable-solutions", response_model=Solution, responses=refusals(404))
async def solve(body: SolveRequest, caller: CallerDep) -> dict[str, Any]:
    """The whole-number pays nearest a target house edge for a bonus pay table."""
    known_rules(body.rules)
    try:
        return await run_in_threadpool(solver.solve_json, load_rules(body.rules),
                                       body.wager, body.target, body.line)
    except BAD_INPUT as error:
        raise refusal(error) from None
