"""What the pages show about rule sets and hands: the rule cards, and cards laid out
(signed-in callers; nothing here moves money or changes anything). An operator's session
may read one rule card and lay out its cards: its framed page draws its table with them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from feltlab.core.cards import CardError
from feltlab.core.payout import RequestError
from feltlab.core.rules import RulesError, builtin_ids, is_known
from feltlab.core.settle import WagerError
from feltlab.present import catalogue, display
from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import CallerDep, game_route
from feltlab.server.api.page_responses import HandView, RuleCard
from feltlab.server.api.schemas import DisplayRequest, RulesPath
from feltlab.server.errors import NotFound, Refused
from feltlab.server.middleware import StrictJSONRoute

router = APIRouter(prefix="/api/v1", tags=["pages"], route_class=StrictJSONRoute)

BAD_INPUT = (ValueError, CardError, WagerError, RequestError, RulesError)
"""What the presentation refuses in a caller's input (answered 422)."""


def known_rules(rules_id: str) -> str:
    """A built-in or published rule set's id; any other is not found."""
    if not is_known(rules_id):
        raise NotFound(f"there is no built-in rule set {rules_id[:64]!r}; rule sets are "
                       f"{', '.join(builtin_ids())}")
    return rules_id


def refusal(error: Exception) -> Refused:
    """The first line of what was wrong with the input."""
    return Refused(str(error).splitlines()[0][:300])


@router.get("/rulecards", response_model=list[RuleCard])
def rule_cards(caller: CallerDep) -> list[dict[str, Any]]:
    """Every rule set a table may open with (built-in, then published) as the pages show
    it: wagers under the rules card's names with limits and pay tables, decisions, deal
    order, dealing procedure."""
    return catalogue.rule_cards()


@router.get("/rulecards/{rules_id}", response_model=RuleCard, responses=refusals(404))
@game_route
def rule_card(rules_id: RulesPath, caller: CallerDep) -> dict[str, Any]:
    """One built-in rule set as the pages show it."""
    return catalogue.rule_card(known_rules(rules_id))


@router.post("/display", response_model=HandView, responses=refusals(404))
@game_route
def show(body: DisplayRequest, caller: CallerDep) -> dict[str, Any]:
    """Cards laid out for the page (by suit, the playing flush marked, hands named)
    and, for a complete round, one row per settled wager."""
    known_rules(body.rules)
    try:
        view = display.hand_view(body.rules, body.cards, body.colour)
        if body.round is not None and body.round.get("phase") == "complete":
            view["settlement"] = display.settlement_rows(body.rules, body.round)
    except BAD_INPUT as error:
        raise refusal(error) from None
    return view
