"""``feltlab verify ROUND.json``: check a complete round as the server answered it.

The revealed seed must hash to the commitment shown before the deal; at a shared table
the seats' ``client_seeds`` must mix (by
:func:`~feltlab.server.fairness.combine_client_seeds`) into the round's ``client_seed``;
the seed mixed with the client seed (HMAC-SHA256 keyed by the seed over the client seed)
gives the deck; replaying the round's action log on that deck through the engine must
deal exactly the cards the round shows. Every other field the round records for the seat
is derived again from that replay and compared: its wagers, colour and decisions (the
raise, the street bets), what it staked, each result, the total, whether the cap applied,
the settlement in full, the ``payout_request`` (which must also settle to the same total
through the payout calculator), and its balances (after = before + total). No database is
needed: the round's JSON is the whole proof.
"""

from __future__ import annotations

import json
from typing import Any

from feltlab.core.cards import format_cards
from feltlab.core.engine import ActionError, HandState, Phase, action_from_json
from feltlab.core.payout import settle_request
from feltlab.core.rules import Rules, RulesError, load_rules, parse_rules
from feltlab.server.fairness import (
    FairnessError,
    combine_client_seeds,
    commitment,
    deck_from_seed,
)


class VerifyError(ValueError):
    """The round does not check out; the message says where."""


def _field(document: dict[str, Any], name: str, kind: type) -> Any:
    value = document.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise VerifyError(f"the round has no valid {name!r} field")
    return value


def verify_round(document: object) -> dict[str, Any]:
    """Check the round; returns a summary, or raises :class:`VerifyError`."""
    if not isinstance(document, dict):
        raise VerifyError("a round is a JSON object as GET /api/v1/rounds/{id} answers")
    if document.get("phase") != "complete":
        raise VerifyError("only a complete round can be verified: its seed is revealed then")
    seed = _field(document, "seed", str)
    client_seed = document.get("client_seed") or ""
    try:
        if commitment(seed) != _field(document, "commitment", str):
            raise VerifyError("the seed does not hash to the commitment shown before the deal")
        if "client_seeds" in document:
            _check_mixed_seed(document["client_seeds"], client_seed)
        deck = deck_from_seed(seed, client_seed)
    except FairnessError as error:
        raise VerifyError(str(error)) from None
    state = _replay(document, deck)
    _check_cards(document, state)
    _check_results(document, state)
    _check_record(document, state)
    return {"round": document.get("id"), "rules": state.rules.id, "verified": True,
            "commitment": document["commitment"], "total": document.get("total"),
            "events": len(state.log)}


def _check_mixed_seed(seeds: object, client_seed: object) -> None:
    """A shared round's client seed is the mix of its seats' seeds."""
    if not isinstance(seeds, dict) or not all(
            isinstance(seat, str) and seat.isascii() and seat.isdigit() and isinstance(seed, str)
            for seat, seed in seeds.items()):
        raise VerifyError("the round's 'client_seeds' field is not an object of seat "
                          "numbers to seeds")
    mixed = combine_client_seeds({int(seat): seed for seat, seed in seeds.items()})
    if mixed != client_seed:
        raise VerifyError(f"the round's client_seed ({client_seed or 'none'}) is not the mix "
                          f"of the seats' client seeds ({mixed or 'none'})")


def _rules_of(document: dict[str, Any]) -> Rules:
    """The round's rule set: from its ``rules_toml`` when it carries one (a published rule
    set), else the built-in rule set of that id."""
    rules_id = _field(document, "rules", str)
    try:
        if "rules_toml" not in document:
            return load_rules(rules_id)
        rules = parse_rules(_field(document, "rules_toml", str), "the round's rules_toml")
    except RulesError as error:
        raise VerifyError(str(error)) from None
    if rules.id != rules_id:
        raise VerifyError(f"the round's rules_toml is rule set {rules.id!r}, not {rules_id!r}")
    return rules


def _replay(document: dict[str, Any], deck: Any) -> HandState:
    rules = _rules_of(document)
    if rules.fingerprint != document.get("fingerprint"):
        raise VerifyError(f"the rule set {rules.id} here has fingerprint "
                          f"{rules.fingerprint[:12]}, not the round's")
    try:
        state = HandState.replay(rules, deck, [action_from_json(item) for item in
                                               _field(document, "log", list)])
    except ActionError as error:
        raise VerifyError(f"the round's log does not replay: {error}") from None
    if state.phase is not Phase.COMPLETE:
        raise VerifyError("the round's log does not reach settlement")
    return state


def _check_cards(document: dict[str, Any], state: HandState) -> None:
    shown = _field(document, "cards", dict)
    seat = document.get("seat")
    expected: dict[str, str] = {}
    if isinstance(seat, int) and seat in state.seats:
        expected["player"] = format_cards(state.seats[seat].cards)
    if state.dealer_cards:
        expected["dealer"] = format_cards(state.dealer_cards)
    if state.community:
        expected["community"] = format_cards(state.visible_community)
    for name, cards in expected.items():
        if shown.get(name) != cards:
            raise VerifyError(f"the {name} cards shown ({shown.get(name)}) are not the ones "
                              f"the seed deals ({cards})")
    for other in document.get("others") or []:
        hand = state.seats.get(other.get("seat"))
        if "player" in other and (hand is None or other["player"] != format_cards(hand.cards)):
            raise VerifyError(f"seat {other.get('seat')}'s cards are not the ones the seed deals")


def _check_results(document: dict[str, Any], state: HandState) -> None:
    seat = _field(document, "seat", int)
    settlement = state.seats[seat].settlement if seat in state.seats else None
    if settlement is None:
        raise VerifyError(f"seat {seat} has no settled hand in this round")
    if document.get("results") != settlement.results:
        raise VerifyError(f"the results shown are not the engine's {settlement.results}")
    if document.get("total") != settlement.total:
        raise VerifyError(f"the total shown ({document.get('total')}) is not the engine's "
                          f"{settlement.total}")
    try:
        recomputed = settle_request(_field(document, "payout_request", dict),
                                    lambda name: state.rules if name == state.rules.id
                                    else load_rules(name))
    except ValueError as error:
        raise VerifyError(f"the payout request is refused: {error}") from None
    if recomputed["total"] != settlement.total:
        raise VerifyError(f"the payout calculator settles the round to {recomputed['total']}, "
                          f"not {settlement.total}")


def _check_record(document: dict[str, Any], state: HandState) -> None:
    """Every field recorded for the seat, as the replay derives it."""
    seat = _field(document, "seat", int)
    hand, settlement = state.seats[seat], state.seats[seat].settlement
    assert settlement is not None
    staked = 0
    replay = HandState(state.rules, state.deck)
    for action in state.log:
        replay.apply(action)
        if getattr(action, "seat", None) == seat:
            staked += replay.stake_of(action)
    expected: dict[str, Any] = {
        "wagers": dict(hand.wagers), "decisions": list(hand.decisions), "staked": staked,
        "capped": settlement.capped, "settlement": settlement.as_json(),
        "payout_request": state.steps.payout_request(state, seat),
        "to_act": None, "options": []}
    if state.steps.colours:
        expected["colour"] = hand.colour
    for name, value in expected.items():
        if _plain(document.get(name)) != _plain(value):
            raise VerifyError(f"the round's {name!r} ({_short(document.get(name))}) is not "
                              f"what its log derives ({_short(value)})")
    before = _field(document, "balance_before", int)
    after = _field(document, "balance_after", int)
    if after != before + settlement.total:
        raise VerifyError(f"the balances shown ({before} before, {after} after) do not "
                          f"differ by the round's total {settlement.total} (or another "
                          f"round in this currency moved the same wallet meanwhile)")


def _plain(value: Any) -> Any:
    """``value`` as JSON reads it back (tuples become lists)."""
    return json.loads(json.dumps(value))


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 80 else text[:77] + "..."
