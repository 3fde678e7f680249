"""The variant designer (any signed-in account; no money moves here): a rule set as TOML
text in, its exact PAR sheet, strategy card, protection figures or solved pay table out.

Each is a computation of the designer's pool (:mod:`feltlab.server.designer_runs`), never
a request's thread: one at a time per account and ``designer_jobs`` in the deployment
(beyond either, 429 with Retry-After); stopped when the client leaves, and past the time
budget refused (422) with the command line that computes it."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import CallerDep
from feltlab.server.api.page_responses import (
    DesignBase,
    ParSheetAnswer,
    ProtectionAnswer,
    Solution,
    StrategyAnswer,
    Warmth,
)
from feltlab.server.api.schemas import (
    DesignProtectionRequest,
    DesignRequest,
    DesignSolveRequest,
    RulesId,
)
from feltlab.server.auth import Caller
from feltlab.server.designer_runs import Designer
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import designer

router = APIRouter(prefix="/api/v1/designer", tags=["designer"], route_class=StrictJSONRoute)


async def computed(request: Request, caller: Caller, design: designer.Design
                   ) -> dict[str, Any]:
    """``design``'s answer from the designer's pool, stopped if the client leaves."""
    runner: Designer = request.app.state.designer
    return await runner.run(caller.user_id, design, request.is_disconnected)


@router.post("/par", response_model=ParSheetAnswer, response_model_exclude_unset=True,
             responses=refusals(429))
async def par_sheet(body: DesignRequest, caller: CallerDep, request: Request
                    ) -> dict[str, Any]:
    """The design's exact PAR sheet, the same as ``feltlab analyze FILE --json`` prints;
    a rule set that does not validate is refused (422) naming the field."""
    return await computed(request, caller, designer.ParSheet(body.rules))


@router.post("/strategy", response_model=StrategyAnswer, response_model_exclude_unset=True,
             responses=refusals(429))
async def strategy(body: DesignRequest, caller: CallerDep, request: Request
                   ) -> dict[str, Any]:
    """The design's strategy card, what it costs, and its optimal strategy by hand."""
    return await computed(request, caller, designer.StrategyCard(body.rules))


@router.post("/protection", response_model=ProtectionAnswer, responses=refusals(429),
             response_model_exclude_unset=True)
async def protection(body: DesignProtectionRequest, caller: CallerDep, request: Request
                     ) -> dict[str, Any]:
    """The players' edge with one card flashed and with ``colluders`` seats sharing cards."""
    return await computed(request, caller,
                          designer.Protection(body.rules, body.colluders, body.deals))


@router.post("/solve", response_model=Solution, responses=refusals(429))
async def solve(body: DesignSolveRequest, caller: CallerDep, request: Request
                ) -> dict[str, Any]:
    """The whole-number pays of one of the design's pay tables nearest a target edge."""
    return await computed(request, caller, designer.DesignSolution(
        body.rules, body.wager, body.target, body.line))


@router.get("/base/{rules_id}", response_model=DesignBase, responses=refusals(404))
def base(rules_id: RulesId, caller: CallerDep) -> dict[str, Any]:
    """A rule set to start from: its TOML, its values and its family's rule-set schema."""
    return designer.base(rules_id)


@router.get("/status", response_model=Warmth)
def status(caller: CallerDep, request: Request) -> dict[str, Any]:
    """Whether the designer's processes are warm (a first start compiles the kernels)."""
    runner: Designer = request.app.state.designer
    warmth = runner.warmth()
    return {"warm": warmth.warm, "warming": list(warmth.warming),
            "seconds": round(warmth.seconds, 3)}
