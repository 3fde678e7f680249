"""The trainers' math: the advisor's exact EVs for a hand with the verdict on a choice
(strategy trainer), drill hands that favour close decisions, and finished rounds for
the dealer trainer checked by :func:`feltlab.core.payout.settle_request`.

Every EV comes from :func:`feltlab.analysis.advise`, every result from the engine and
:mod:`feltlab.core.settle`.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from feltlab.analysis import advice_inputs, advise
from feltlab.core.cards import secure_shuffle
from feltlab.core.decisions import FOLD_NAME
from feltlab.core.engine import (
    Action,
    ChooseColour,
    Deal,
    HandState,
    Phase,
    PlaceWager,
)
from feltlab.core.family import family_of, wager_title
from feltlab.core.model import Advice
from feltlab.core.payout import settle_request
from feltlab.core.rules import Rules, load_rules

CLOSE_SAMPLES = 40
"""Hands looked at to find one close decision for the close-decisions drill."""


ONLY_OPTION_GAP = Fraction(1000)
"""The gap given to a hand with one option: never a close decision."""


class TrainerError(ValueError):
    """A hand or answer the trainers cannot take; the message says what is wrong."""


def _same_action(left: Mapping[str, Any], right: Mapping[str, Any]) -> bool:
    return (left.get("action"), left.get("amount")) == (right.get("action"), right.get("amount"))


def advice_json(advice: Advice, ante: int, chosen: Mapping[str, Any] | None
                ) -> dict[str, Any]:
    """The advice with button labels, API actions (the game's words name them) and, for
    a choice, its verdict."""
    words = family_of(load_rules(advice.rules_id)).words
    options: list[dict[str, Any]] = []
    values: dict[str, Fraction] = {}
    for item in advice.options:
        label, action = words.option_action(item.option, ante)
        values[label] = item.ev
        options.append({"option": item.option, "label": label, "action": action,
                        "ev": float(item.ev), "ev_exact": str(item.ev),
                        "best": item.option == advice.best})
    best = next(option for option in options if option["best"])
    answer: dict[str, Any] = {"rules": advice.rules_id, "hand": advice.hand,
                              "best": best["label"], "options": options}
    if chosen is not None:
        picked = next((option for option in options if _same_action(option["action"], chosen)),
                      None)
        if picked is None:
            raise TrainerError(f"{dict(chosen)} is not one of this hand's options")
        cost = values[best["label"]] - values[picked["label"]]
        answer["verdict"] = {"chosen": picked["label"], "right": cost == 0,
                             "cost": float(cost), "cost_exact": str(cost)}
    answer["gap"] = float(_gap(advice))
    return answer


def _gap(advice: Advice) -> Fraction:
    """EV between the best option and the next best (small: a close decision)."""
    values = sorted((item.ev for item in advice.options), reverse=True)
    return values[0] - values[1] if len(values) > 1 else ONLY_OPTION_GAP


def advice_for(rules_id: str, player: str, community: str, colour: str | None,
               bets: list[int], ante: int, chosen: Mapping[str, Any] | None) -> dict[str, Any]:
    """Exact EVs for one decision, checked the way ``feltlab advise`` checks them."""
    rules = load_rules(rules_id)
    if ante < 1:
        raise TrainerError("ante must be at least 1")
    bet_text = ",".join(str(bet) for bet in bets)
    inputs = advice_inputs(rules, player, community if community else None, colour,
                           bet_text or None)
    advice = advise(rules, inputs.player, inputs.community, inputs.colour, inputs.bets)
    return advice_json(advice, ante, chosen)


# --- drills --------------------------------------------------------------------------------

def _drill_hand(rules: Rules) -> dict[str, Any]:
    return family_of(rules).words.drill_hand(rules, secure_shuffle(), secrets.randbelow)


def drill(rules_id: str, close: bool) -> dict[str, Any]:
    """A random decision to practise (no money moves); with ``close``, the closest of
    :data:`CLOSE_SAMPLES` random hands. The advice comes with it: the page shows it once
    the trainee has chosen."""
    rules = load_rules(rules_id)
    best: tuple[Fraction, dict[str, Any], dict[str, Any]] | None = None
    for _ in range(CLOSE_SAMPLES if close else 1):
        hand = _drill_hand(rules)
        advice = advice_for(rules.id, hand["player"], hand["community"], hand["colour"],
                            hand["bets"], 1, None)
        gap = Fraction(advice["gap"])
        if best is None or gap < best[0]:
            best = (gap, hand, advice)
    assert best is not None
    return {"rules": rules.id, **best[1], "advice": best[2]}


# --- the dealer trainer ------------------------------------------------------------------

def _amount(low: int, high: int) -> int:
    choices = [value for value in (1, 2, 5, 10, 15, 20, 25, 50, 100) if low <= value <= high]
    return secrets.choice(choices or [low])


def _random_wagers(rules: Rules) -> dict[str, int]:
    wagers: dict[str, int] = {}
    for name, limit in rules.limits.items():
        if name in rules.required_wagers or secrets.randbelow(2):
            wagers[name] = _amount(limit.min, min(limit.max, 25))
    return rules.matched_stakes(wagers)


def _wager_actions(rules: Rules) -> list[Action]:
    actions: list[Action] = [PlaceWager(1, name, amount)
                             for name, amount in _random_wagers(rules).items()]
    colours = family_of(rules).engine.colours
    if colours:
        actions.append(ChooseColour(1, secrets.choice(colours)))
    return actions


def _decision(state: HandState) -> Action:
    """A legal decision, the play more often than the fold (a dealer sees many more
    played hands than folds)."""
    seat = 1
    fold = secrets.randbelow(5) == 0
    amounts = state.legal_amounts(seat)
    if fold or not amounts:
        return state.decision_action(seat, 0)
    return state.decision_action(seat, amounts[secrets.randbelow(len(amounts))])


def finished_hand(rules: Rules) -> HandState:
    """One seat's round played to the end by the engine with random wagers and decisions."""
    state = HandState(rules, secure_shuffle())
    for action in [*_wager_actions(rules), Deal()]:
        state.apply(action)
    state.advance()
    while state.phase is Phase.DECISIONS:
        state.apply(_decision(state))
        state.advance()
    return state


def payout_request(state: HandState) -> dict[str, Any]:
    """The finished hand as a ``feltlab payout`` request (the calculator's field names)."""
    return state.steps.payout_request(state, 1)


def decisions_said(state: HandState, seat: int) -> str:
    """A seat's decisions in words, in order, by the game's labels (``Raise 20``;
    ``Bet 10, Bet 5, Fold``)."""
    kinds = {kind.name: kind for kind in family_of(state.rules).decisions}
    hand = state.seats[seat]
    said = [FOLD_NAME.capitalize() if choice == FOLD_NAME
            else f"{kinds[choice].label} {amount:,}" if amount else kinds[choice].label
            for choice, amount in zip(hand.choices, hand.decisions, strict=True)]
    return ", ".join(said) or "none"


def dealer_round(rules_id: str) -> dict[str, Any]:
    """A finished round for the trainee to pay: the request without its results, and the
    wagers to settle, with their titles and stakes."""
    rules = load_rules(rules_id)
    state = finished_hand(rules)
    request = payout_request(state)
    settlement = state.seats[1].settlement
    assert settlement is not None
    stakes = family_of(rules).engine.request_stakes(request)
    return {"rules": rules.id, "request": request, "decided": decisions_said(state, 1),
            "to_settle": [{"wager": name, "title": wager_title(name), "stake": stakes[name]}
                          for name in settlement.results]}


def check_payouts(request: Mapping[str, Any], answers: Mapping[str, int]) -> dict[str, Any]:
    """The trainee's results against the engine's: each wager right or wrong."""
    settled = settle_request(dict(request))
    results: dict[str, int] = settled["results"]
    unknown = sorted(set(answers) - set(results))
    if unknown:
        raise TrainerError(f"wager {unknown[0]!r} is not settled in this round; wagers are "
                           f"{', '.join(results)}")
    rows = [{"wager": name, "title": wager_title(name), "expected": net,
             "entered": answers.get(name), "right": answers.get(name) == net}
            for name, net in results.items()]
    return {"rows": rows, "right": sum(row["right"] for row in rows), "of": len(rows),
            "total": settled["total"], "capped": settled["capped"],
            "settlement": {key: value for key, value in settled.items()
                           if key not in ("results",)}}
