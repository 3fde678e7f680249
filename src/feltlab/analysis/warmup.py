"""Building ahead what a rule set's rounds will need, so that no round pays for it: the
compiled kernels (loaded from Numba's disk cache, or compiled and stored there on a first
run), the derived data (:mod:`feltlab.core.cache`) and the in-process memos.

A round reaches compiled code through paths that are hard to list by hand (the engine's
evaluators and settlement, the advisor of each decision of each game, the pit's figures
of a settled seat), and Numba compiles a kernel for each set of argument types it is
called with. So :func:`warm_rules` does not list kernels: it plays rounds through the same
code a table does, taking at each decision every stake the game allows (a fold, the
smallest and the largest), settles them and computes every seat's figures
(:func:`feltlab.analysis.figures.seat_figures`: the PAR sheet's edges and the advisor's
exact EV of each decision), and asks the advisor as the trainer does. What it builds
stays for the process's life; the disk caches stay for the next process.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from feltlab.analysis import advice_inputs, advise
from feltlab.analysis.figures import seat_figures, wager_math
from feltlab.core.cards import full_deck
from feltlab.core.engine import ChooseColour, Deal, HandState, PlaceWager
from feltlab.core.family import family_of
from feltlab.core.registry import builtin_ids
from feltlab.core.rules import Rules, load_rules

ROUNDS = 6
"""Rounds played per stake choice: a few decks, so that the hands differ (a flush or
none, a dealer who qualifies or not)."""


@dataclass(frozen=True)
class Warmed:
    """What a warm-up built: the rule sets, and how long it took (wall-clock seconds)."""

    rules: tuple[str, ...]
    seconds: float


def _stakes(rules: Rules) -> dict[str, int]:
    """Every wager the rule set has, at its minimum (bonuses matched where they must be)."""
    return rules.matched_stakes({name: limit.min for name, limit in rules.limits.items()})


def play_rounds(rules: Rules, seed: int = 0, rounds: int = ROUNDS) -> list[HandState]:
    """Rounds of two seats played to the end: one seat takes the smallest stake at every
    decision, the other the largest, and a third round in each three folds at once."""
    rng = random.Random(seed)
    colours = family_of(rules).engine.colours
    seats = (1, 2) if rules.seats >= 2 else (1,)
    played: list[HandState] = []
    for index in range(rounds * 3):
        state = HandState(rules, rng.sample(full_deck(), 52))
        for seat in seats:
            if colours:
                state.apply(ChooseColour(seat, colours[index % len(colours)]))
            for name, amount in _stakes(rules).items():
                state.apply(PlaceWager(seat, name, amount))
        state.apply(Deal())
        while (acting := state.to_act) is not None:
            legal = list(state.legal_amounts(acting))
            if not legal or index % 3 == 2:
                amount = 0
            else:
                amount = legal[0] if acting == seats[0] else legal[-1]
            state.apply(state.decision_action(acting, amount))
            state.advance()
        state.advance()
        played.append(state)
    return played


def warm_rules(rules: Rules) -> None:
    """Build everything a round of ``rules`` reaches: its PAR sheet's edges (the memo of
    :mod:`feltlab.analysis.sheets`), the engine's and the settlement's kernels, and every
    seat's figures, which ask the advisor about each decision as the trainer does (the
    cards the seat saw, the community cards turned, the bets made)."""
    wager_math(rules)
    for state in play_rounds(rules):
        for seat in state.seats:
            seat_figures(state, seat)


ADVISED_HANDS = 6
"""Decisions asked of the advisor per rule set when warming it: a few streets."""


def warm_advisor(rules: Rules, hands: int = ADVISED_HANDS) -> None:
    """Load what the per-hand advisor reads (Hold'em Stud's table from the derived-data
    cache, or solved and stored there), asking it about drill hands as the trainer does
    (:meth:`~feltlab.core.family.GameWords.drill_hand`)."""
    rng = random.Random(0)
    words = family_of(rules).words
    for _ in range(hands):
        hand = words.drill_hand(rules, rng.sample(full_deck(), 52), rng.randrange)
        bets = ",".join(str(bet) for bet in hand["bets"])
        inputs = advice_inputs(rules, hand["player"], hand["community"] or None,
                               hand["colour"], bets or None)
        advise(rules, inputs.player, inputs.community, inputs.colour, inputs.bets)


def warm_builtin(rule_ids: Sequence[str] | None = None,
                 progress: Callable[[str], None] | None = None) -> Warmed:
    """:func:`warm_rules` for every built-in rule set (or those named), in order."""
    start = time.perf_counter()
    chosen = tuple(builtin_ids() if rule_ids is None else rule_ids)
    for rules_id in chosen:
        if progress is not None:
            progress(rules_id)
        warm_rules(load_rules(rules_id))
    return Warmed(chosen, time.perf_counter() - start)
