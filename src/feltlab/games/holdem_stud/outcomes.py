"""The optimal strategy's play, kept across pay tables that move none of its decisions,
and strategies' play-outs, which the pays never enter.

Playing a strategy out counts the deals that reach each decision node, fold or end in each
final hand (:func:`~.solver.play_out`); the pay table only prices those counts afterwards.
So an edit of the main pay table that leaves every optimal decision where it was (a royal
flush paid 126 rather than 125) has the play-out and the strategy map of the decisions
before it. :func:`optimal_play` keeps the last few plays, each with its values as forms of
the pays (:mod:`.pay_forms`), and :func:`still_optimal` finds one whose decisions the
solver would take again under new pays, without solving. A strategy card's play-out
depends on the card and the street bets alone (:func:`strategy_outcome`).

>>> from feltlab.core.rules import load_rules
>>> from feltlab.games.holdem_stud.solver import net_multiples, solution_for
>>> rules = load_rules("nh-holdem-stud")
>>> play = optimal_play(solution_for(rules))
>>> royal_126 = (*net_multiples(rules)[:-1], 126)
>>> still_optimal(play.forms.shape, royal_126)[0] is play
True
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from feltlab.core.cards import RANKS
from feltlab.core.model import StrategyRow, name_splits
from feltlab.games.holdem_stud.pay_forms import PayForms, pay_forms
from feltlab.games.holdem_stud.shape import Shape
from feltlab.games.holdem_stud.solver import (
    I8,
    I64,
    Outcome,
    Solution,
    add_at,
    all_sets,
    play_out,
)
from feltlab.games.holdem_stud.strategy import (
    MADE_NAMES,
    STREET_LABELS,
    StudStrategy,
    card_features,
    strategy_choices,
)

OPTIMAL_PLAYS_KEPT: Final = 4
"""Optimal plays kept (each about 15 MB with street bets of up to 3x, 61 MB up to 10x)."""
STRATEGY_OUTCOMES_KEPT: Final = 32


def _starting_label(cards: npt.NDArray[np.uint8]) -> str:
    high, low = sorted((int(cards[0]) % 13, int(cards[1]) % 13), reverse=True)
    if high == low:
        return RANKS[high] * 2
    suited = int(cards[0]) // 13 == int(cards[1]) // 13
    return RANKS[high] + RANKS[low] + ("s" if suited else "o")


@cache
def starting_labels() -> tuple[str, ...]:
    """Each two-card set's starting-hand label (``AKs``, ``72o``, ``TT``), in colex order."""
    return tuple(_starting_label(cards) for cards in all_sets(2))


def _decision_name(bet: int) -> str:
    return "fold" if bet == 0 else f"{bet}x"


def strategy_map(shape: Shape, choices: tuple[I8, ...], outcome: Outcome
                 ) -> tuple[StrategyRow, ...]:
    """Share of deals meeting each decision: starting hands by label, later streets by
    made hand; ``outcome`` is the play-out of ``choices``, with its paths to each node."""
    rows: dict[tuple[str, str], int] = {}
    labels = starting_labels()
    for row, label in enumerate(labels):
        key = (f"{STREET_LABELS[0]}: {label}", _decision_name(int(choices[0][row, 0])))
        rows[key] = rows.get(key, 0) + 1
    result = [(group, decision, Fraction(count, len(labels)))
              for (group, decision), count in sorted(rows.items())]
    options = shape.most + 1
    for level in range(1, shape.streets):
        made = card_features(2 + level)["made"]
        deals = outcome.reach[level] * shape.scale(level)
        # deals by (made hand, bet), summed exactly in one pass
        cell = made[:, None].astype(np.int64) * options + choices[level]
        by_cell = np.zeros(len(MADE_NAMES) * options, dtype=np.int64)
        add_at(by_cell, cell.ravel(), deals.ravel())
        for category, name in enumerate(MADE_NAMES):
            for bet in range(options):
                count = int(by_cell[category * options + bet])
                if count:
                    result.append((f"{STREET_LABELS[level]}: {name}", _decision_name(bet),
                                   Fraction(count, outcome.total)))
    return name_splits(result, lambda group: "other cards (draws, high cards)")


@dataclass(frozen=True)
class OptimalPlay:
    """The optimal strategy played out, its strategy map, and its values as forms of the
    pays (which keep what is needed of the paths to each node: the outcome drops them)."""

    outcome: Outcome
    strategy_map: tuple[StrategyRow, ...]
    forms: PayForms


_optimal_plays: list[OptimalPlay] = []
_strategy_outcomes: OrderedDict[tuple[Shape, str], Outcome] = OrderedDict()
_lock = threading.Lock()


def _same_choices(first: tuple[I8, ...], second: tuple[I8, ...]) -> bool:
    return len(first) == len(second) and all(
        a.shape == b.shape and np.array_equal(a, b) for a, b in zip(first, second, strict=True))


def _keep(play: OptimalPlay) -> None:
    """Keep ``play`` as the most recently used."""
    with _lock:
        _optimal_plays[:] = [kept for kept in _optimal_plays if kept is not play]
        _optimal_plays.append(play)
        del _optimal_plays[:-OPTIMAL_PLAYS_KEPT]


def _kept_plays() -> list[OptimalPlay]:
    """The kept plays, the most recently used first."""
    with _lock:
        return _optimal_plays[::-1]


def optimal_play(solution: Solution) -> OptimalPlay:
    """The play of ``solution``'s decisions: an earlier solution's whose decisions are the
    same at every node, else played out now (and kept)."""
    for play in _kept_plays():
        if _same_choices(play.forms.choices, solution.choices):
            _keep(play)
            return play
    shape = solution.shape
    played = play_out(shape, solution.choices)
    play = OptimalPlay(Outcome(played.folded, played.final, played.bets, (), played.total),
                       strategy_map(shape, solution.choices, played),
                       pay_forms(shape, solution.choices, played.reach))
    _keep(play)
    return play


def still_optimal(shape: Shape, multiples: tuple[int, ...]
                  ) -> tuple[OptimalPlay, tuple[I64, ...]] | None:
    """A kept play that is still optimal play under ``multiples`` (the solver would take
    every decision on its path again: :meth:`PayForms.for_pays`), and the strategy card's
    street totals there; ``None`` if some decision on the path of every kept play of this
    shape moves."""
    for play in _kept_plays():
        found = play.forms.for_pays(multiples) if play.forms.shape == shape else None
        if found is None:
            continue
        forms, totals = found
        if forms is not play.forms:  # decisions moved off the path: the same play
            play = OptimalPlay(play.outcome, play.strategy_map, forms)
        _keep(play)
        return play, totals
    return None


def strategy_outcome(shape: Shape, strategy: StudStrategy) -> Outcome:
    """``strategy`` played out with these street bets, without the paths to each node
    (kept per street bets and strategy: the pays do not enter it)."""
    key = (shape, strategy.model_dump_json())
    with _lock:
        if key in _strategy_outcomes:
            _strategy_outcomes.move_to_end(key)
            return _strategy_outcomes[key]
    played = play_out(shape, strategy_choices(strategy, shape))
    outcome = Outcome(played.folded, played.final, played.bets, (), played.total)
    with _lock:
        _strategy_outcomes[key] = outcome
        while len(_strategy_outcomes) > STRATEGY_OUTCOMES_KEPT:
            _strategy_outcomes.popitem(last=False)
    return outcome


def forget() -> None:
    """Drop every kept play (the tests compare against plays made afresh)."""
    with _lock:
        _optimal_plays.clear()
        _strategy_outcomes.clear()
