"""The trainers' JSON: the advisor's verdict on a decision, drill hands, dealer-trainer
rounds and checks, and the caller's trainer scores (no money moves here)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from starlette.concurrency import run_in_threadpool

from feltlab.core.rules import RULES_ID_PATTERN
from feltlab.present import trainer
from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import CallerDep, ServicesDep
from feltlab.server.api.page_responses import (
    Advice,
    DealerCheck,
    DealerRound,
    Drill,
    TrainerScores,
)
from feltlab.server.api.rulecards import BAD_INPUT, known_rules, refusal
from feltlab.server.api.schemas import AdviceRequest, DealerCheckRequest
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import scores

router = APIRouter(prefix="/api/v1", tags=["trainers"], route_class=StrictJSONRoute)
RulesQuery = Annotated[str, Query(max_length=64, pattern=RULES_ID_PATTERN)]


@router.post("/advice", response_model=Advice, response_model_exclude_unset=True,
             responses=refusals(404))
async def advice(body: AdviceRequest, caller: CallerDep, found: ServicesDep
                 ) -> dict[str, Any]:
    """The advisor's exact EV of every option for one decision, and the verdict on
    ``chosen`` (right, or the cost in units of the main wager); with ``record``, the
    verdict counts in the caller's score, answered as ``score``."""
    known_rules(body.rules)
    try:
        answer: dict[str, Any] = await run_in_threadpool(
            trainer.advice_for, body.rules, body.player, body.community, body.colour,
            body.bets, body.ante, body.chosen)
    except BAD_INPUT as error:
        raise refusal(error) from None
    if body.record and "verdict" in answer:
        answer["score"] = await run_in_threadpool(
            scores.record_verdict, found, caller.user_id, body.rules, answer["verdict"])
    return answer


@router.get("/drills", response_model=Drill, response_model_exclude_unset=True,
            responses=refusals(404))
async def drill(caller: CallerDep, rules: RulesQuery, close: bool = False) -> dict[str, Any]:
    """A random decision to practise, with its advice (no money moves); refused for a
    game without an advisor (no exact math)."""
    try:
        return await run_in_threadpool(trainer.drill, known_rules(rules), close)
    except BAD_INPUT as error:
        raise refusal(error) from None


@router.get("/dealer-rounds", response_model=DealerRound, responses=refusals(404))
def dealer_round(caller: CallerDep, rules: RulesQuery) -> dict[str, Any]:
    """A finished round for the dealer trainer, without its results."""
    return trainer.dealer_round(known_rules(rules))


@router.post("/dealer-checks", response_model=DealerCheck, response_model_exclude_unset=True,
             responses=refusals(404))
def dealer_check(body: DealerCheckRequest, caller: CallerDep, found: ServicesDep
                 ) -> dict[str, Any]:
    """The trainee's results checked against the engine's settlement; with ``record``,
    the check counts in the caller's score, answered as ``score``."""
    payout_request = body.request.model_dump()
    known_rules(body.request.rules)
    try:
        answer = trainer.check_payouts(payout_request, body.answers)
    except BAD_INPUT as error:
        raise refusal(error) from None
    if body.record:
        answer["score"] = scores.record_check(found, caller.user_id,
                                              body.request.rules, answer,
                                              body.millis / 1000)
    return answer


@router.get("/me/trainer-scores", response_model=TrainerScores)
def trainer_scores(caller: CallerDep, found: ServicesDep) -> dict[str, dict[str, Any]]:
    """The caller's trainer scores by rule set: ``strategy`` (right, total, cost in
    units) and ``dealer`` (rounds, perfect, right, of, seconds)."""
    return scores.scores_of(found, caller.user_id)
