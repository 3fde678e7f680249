"""Hold'em Stud with cards known beyond the game's own: dead cards (other seats' hands)
and community cards seen before they are turned, solved exactly by backward induction
over every order the unseen community cards can come in (Numba kernels).

A decision point is (street ``L``, community cards known ``k``, antes at risk ``B``). Its
value is an exact integer: the sum over every ordered completion of the ``3 - k``
community cards still unknown, so the EV per ante is ``value / P(n, 3 - k)`` with ``n``
the cards left unseen. Which community cards are known at each street is a *schedule*:
``schedule[L]`` cards are known at the decision before the ``L + 1``-th card is turned
(at least ``L``, never fewer than at the street before); the normal game is
``(0, 1, 2, 3)``, a player who always sees the next card ``(1, 2, 3, 3)``.

>>> from feltlab.rules import load_rules
>>> from feltlab.cards import parse_cards
>>> sums, scale = option_sums(load_rules("nh-holdem-stud"), parse_cards("Ah Ad"), ())
>>> scale, [int(value) for value in sums] == sorted(int(value) for value in sums)
(117600, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.analysis.holdem_solver import I64, binomials, five_card_classes, set_colex_index
from feltlab.cards import Card
from feltlab.rules import HoldemStudRules

I8 = npt.NDArray[np.int8]
Used = npt.NDArray[np.bool_]
Cards = npt.NDArray[np.int64]
STREETS = 3


@nb.njit(cache=True)
def final_sum(cards: Cards, known: int, used: Used, classes: I8, multiples: I64,
              binom: I64, buffer: I64) -> int:
    """Sum of the net multiple of the final hand over every ordered completion of the
    ``3 - known`` community cards not known (``cards[2 + known:]`` are filled in)."""
    if known == STREETS:
        return int(multiples[classes[set_colex_index(cards, 0, 5, buffer, binom)]])
    total = 0
    for card in range(52):
        if used[card]:
            continue
        used[card] = True
        cards[2 + known] = card
        total += final_sum(cards, known + 1, used, classes, multiples, binom, buffer)
        used[card] = False
    return total


@nb.njit(cache=True)
def ordered_ways(unseen: int, count: int) -> int:
    ways = 1
    for i in range(count):
        ways *= unseen - i
    return ways


@nb.njit(cache=True)
def node_values(level: int, cards: Cards, known: int, target: int, used: Used,
                schedule: I64, most: int, classes: I8, multiples: I64, binom: I64,
                buffer: I64) -> I64:
    """``values[B]``: the value with ``B`` antes at risk at street ``level`` (3 = every
    bet made) once ``target`` community cards are known, summed over the draws of the
    known-to-be cards ``known .. target - 1`` and scaled by ordered completions."""
    top = 1 + most * STREETS
    values = np.zeros(top + 1, dtype=np.int64)
    if level == STREETS:
        total = final_sum(cards, known, used, classes, multiples, binom, buffer)
        for at_risk in range(top + 1):
            values[at_risk] = at_risk * total
        return values
    if known < target:
        for card in range(52):
            if used[card]:
                continue
            used[card] = True
            cards[2 + known] = card
            values += node_values(level, cards, known + 1, target, used, schedule, most,
                                  classes, multiples, binom, buffer)
            used[card] = False
        return values
    unseen = 0
    for card in range(52):
        unseen += 0 if used[card] else 1
    scale = ordered_ways(unseen, STREETS - known)
    after = node_values(level + 1, cards, known, schedule[level + 1], used, schedule, most,
                        classes, multiples, binom, buffer)
    for at_risk in range(top + 1 - most):
        best = -at_risk * scale
        for bet in range(1, most + 1):
            best = max(best, after[at_risk + bet])
        values[at_risk] = best
    return values


@nb.njit(cache=True)
def decision_sums(level: int, cards: Cards, known: int, used: Used, schedule: I64,
                  at_risk: int, most: int, classes: I8, multiples: I64,
                  binom: I64) -> tuple[I64, int]:
    """(value of folding and of each bet 1..most, scale) at street ``level`` with
    ``known`` community cards known (``known == schedule[level]``)."""
    buffer = np.empty(5, dtype=np.int64)
    unseen = 0
    for card in range(52):
        unseen += 0 if used[card] else 1
    scale = ordered_ways(unseen, STREETS - known)
    after = node_values(level + 1, cards, known, schedule[level + 1], used, schedule, most,
                        classes, multiples, binom, buffer)
    sums = np.zeros(most + 1, dtype=np.int64)
    sums[0] = -at_risk * scale
    for bet in range(1, most + 1):
        sums[bet] = after[at_risk + bet]
    return sums, scale


def net_multiples_array(rules: HoldemStudRules) -> I64:
    from feltlab.analysis.holdem import net_multiples

    return np.array(net_multiples(rules), dtype=np.int64)


def advice_schedule(turned: int, seen: int) -> I64:
    """What is known at each street when ``seen`` cards beyond the ``turned`` ones are
    known now and nothing more is glimpsed later."""
    now = turned + seen
    return np.array([max(level, now) for level in range(STREETS)] + [STREETS],
                    dtype=np.int64)


def lookahead_schedule(ahead: int) -> I64:
    """A player who sees the next ``ahead`` community cards before every decision."""
    return np.array([min(STREETS, level + ahead) for level in range(STREETS)] + [STREETS],
                    dtype=np.int64)


def option_sums(rules: HoldemStudRules, player: Sequence[Card], community: Sequence[Card],
                seen: Sequence[Card] = (), dead: Sequence[Card] = (),
                at_risk: int = 1) -> tuple[I64, int]:
    """Fold and each bet's value (times ``scale``) for the player's 2 cards with the
    ``community`` cards turned, the next community cards ``seen`` (in turning order)
    and ``dead`` cards out of the deck: later decisions are played optimally with what
    is known by then. Returns ``(sums, scale)``."""
    known_cards = [*community, *seen]
    cards = np.zeros(5, dtype=np.int64)
    for position, card in enumerate([*player, *known_cards]):
        cards[position] = card.index
    used = np.zeros(52, dtype=np.bool_)
    for card in [*player, *known_cards, *dead]:
        used[card.index] = True
    schedule = advice_schedule(len(community), len(seen))
    sums, scale = decision_sums(len(community), cards, len(known_cards), used, schedule,
                                at_risk, rules.max_street_multiple, five_card_classes(),
                                net_multiples_array(rules), binomials())
    return sums, int(scale)
