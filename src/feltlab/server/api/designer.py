"""The variant designer (any signed-in account; no money moves here): a rule set as TOML
text in, its exact PAR sheet, strategy card, protection figures or solved pay table out.
One computation at a time per account and per worker: beyond that, 429 with Retry-After."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool

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
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import designer

router = APIRouter(prefix="/api/v1/designer", tags=["designer"], route_class=StrictJSONRoute)


@router.post("/par", response_model=ParSheetAnswer, response_model_exclude_unset=True,
             responses=refusals(429))
async def par_sheet(body: DesignRequest, caller: CallerDep) -> dict[str, Any]:
    """The design's exact PAR sheet, the same as ``feltlab analyze FILE --json`` prints;
    a rule set that does not validate is refused (422) naming the field."""
    return await run_in_threadpool(designer.par_sheet, caller, body.rules)


@router.post("/strategy", response_model=StrategyAnswer, response_model_exclude_unset=True,
             responses=refusals(429))
async def strategy(body: DesignRequest, caller: CallerDep) -> dict[str, Any]:
    """The design's strategy card, what it costs, and its optimal strategy by hand."""
    return await run_in_threadpool(designer.strategy, caller, body.rules)


@router.post("/protection", response_model=ProtectionAnswer, responses=refusals(429),
             response_model_exclude_unset=True)
async def protection(body: DesignProtectionRequest, caller: CallerDep) -> dict[str, Any]:
    """The players' edge with one card flashed and with ``colluders`` seats sharing cards."""
    return await run_in_threadpool(designer.protection, caller, body.rules, body.colluders,
                                   body.deals)


@router.post("/solve", response_model=Solution, responses=refusals(429))
async def solve(body: DesignSolveRequest, caller: CallerDep) -> dict[str, Any]:
    """The whole-number pays of one of the design's pay tables nearest a target edge."""
    return await run_in_threadpool(designer.solve, caller, body.rules, body.wager,
                                   body.target, body.line)


@router.get("/base/{rules_id}", response_model=DesignBase, responses=refusals(404))
def base(rules_id: RulesId, caller: CallerDep) -> dict[str, Any]:
    """A rule set to start from: its TOML, its values and its family's rule-set schema."""
    return designer.base(rules_id)


@router.get("/status", response_model=Warmth)
def status(caller: CallerDep) -> dict[str, Any]:
    """Whether the designer's kernels are warm (a first start compiles them)."""
    return designer.warmth()
