"""The strategy card: a short points-style card fitted, street by street, to the optimal
strategy's exact option values (:func:`derive_card`), and its lines as sentences.

The decision nodes of a street are grouped by their card features and the bets already
made (:func:`node_groups`, the same whatever the pays); each group's total value of each
option, weighted by how often optimal play meets its nodes, is what the local search
(:class:`_Search`) fits lines to. The card's conditions are those of
:mod:`feltlab.games.holdem_stud.strategy`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import cache
from typing import NamedTuple

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.games.holdem_stud.atom_sums import ConditionTable
from feltlab.games.holdem_stud.shape import Shape
from feltlab.games.holdem_stud.solver import I64, Solution
from feltlab.games.holdem_stud.strategy import (
    CARD_FEATURES,
    MADE_NAMES,
    STREET_LABELS,
    Feature,
    StudRule,
    StudStrategy,
    card_features,
)


@nb.njit(cache=True)
def _group_totals_middle(reach: I64, low: int, scale: int, groups: I64, group_count: int,
                         next_sums: I64, next_low: int, most: int) -> I64:
    """Per group of nodes and bet (0 = fold): sum of paths x scaled value of the bet
    (``next_sums``: each row's sums over the next card, from the solver)."""
    totals = np.zeros((group_count, most + 1), dtype=np.int64)
    for row in range(reach.shape[0]):
        for column in range(reach.shape[1]):
            paths = reach[row, column]
            if paths == 0:
                continue
            offset = low + column - next_low
            group = groups[row, column]
            totals[group, 0] += paths * (-scale * (low + column))
            for bet in range(1, most + 1):
                totals[group, bet] += paths * next_sums[row, offset + bet]
    return totals


@nb.njit(cache=True)
def _group_totals_last(reach: I64, low: int, scale: int, groups: I64, group_count: int,
                       final_sums: I64, most: int) -> I64:
    """As :func:`_group_totals_middle` at the last street, where a bet's value is the
    final sum times the antes then at risk: every node of a group has the same antes at
    risk (its column), so each group sums paths and paths x final sum once."""
    paths_in = np.zeros(group_count, dtype=np.int64)
    final_in = np.zeros(group_count, dtype=np.int64)
    at_risk_of = np.zeros(group_count, dtype=np.int64)
    for row in range(reach.shape[0]):
        for column in range(reach.shape[1]):
            paths = reach[row, column]
            if paths == 0:
                continue
            group = groups[row, column]
            paths_in[group] += paths
            final_in[group] += paths * final_sums[row]
            at_risk_of[group] = low + column
    totals = np.zeros((group_count, most + 1), dtype=np.int64)
    for group in range(group_count):
        totals[group, 0] = -scale * at_risk_of[group] * paths_in[group]
        for bet in range(1, most + 1):
            totals[group, bet] = (at_risk_of[group] + bet) * final_in[group]
    return totals


class Atom(NamedTuple):
    """One condition of a card line: every feature at least its minimum (a tuple: the
    search keys its memos by lists of atoms, and a tuple's hash is quick)."""

    when: tuple[tuple[Feature, int], ...]

    def describe(self) -> str:
        return " with ".join(_describe(name, value) for name, value in self.when)


def _describe(name: Feature, value: int) -> str:
    if name == "made":
        return "any pair" if value == 1 else MADE_NAMES[value] + " or better"
    if name == "points":
        return f"{value}+ points"
    if name == "bets":
        return f"{value}x or more already bet"
    what = {"suited": "flush", "straight": "straight", "straight_flush": "straight flush"}[name]
    return f"{value} to a {what}" + ("" if name == "suited" else " (within 5 ranks)")


def _feature_ranges(size: int, bets: range) -> dict[Feature, range]:
    ranges: dict[Feature, range] = {"made": range(1, 7), "points": range(1, 2 * size + 1),
                                    "suited": range(2, size + 1),
                                    "straight": range(2, size + 1),
                                    "straight_flush": range(2, size + 1)}
    if len(bets) > 1:
        ranges["bets"] = range(bets.start + 1, bets.stop)
    return ranges


def _atoms(ranges: dict[Feature, range]) -> list[Atom]:
    singles = [(name, value) for name, values in ranges.items() for value in values]
    atoms = [Atom(((name, value),)) for name, value in singles]
    for (first, low), (second, high) in itertools.combinations(singles, 2):
        if first != second:
            atoms.append(Atom(((first, low), (second, high))))
    return atoms


_Lines = tuple[tuple[Atom, int], ...]
"""Card lines (a condition and its bet) as a memo's key."""


@dataclass
class _Search:
    """Local search for the card lines of one street over groups of decision nodes."""

    totals: I64  # [group, bet]: paths x scaled value
    features: dict[str, npt.NDArray[np.int64]]  # per group
    bets: tuple[int, ...]
    penalty: int  # the least a line must gain to be worth remembering
    ranges: dict[Feature, range]
    # The climbs meet the same lines and lists of lines again and again: each is worked
    # out once (the arrays are never written to).
    _masks: dict[Atom, npt.NDArray[np.bool_]] = field(default_factory=dict)
    _actions: dict[_Lines, npt.NDArray[np.int64]] = field(default_factory=dict)
    _scores: dict[_Lines, int] = field(default_factory=dict)
    _additions: dict[tuple[_Lines, int], tuple[int, list[tuple[Atom, int]]]] = field(
        default_factory=dict)

    def mask(self, atom: Atom) -> npt.NDArray[np.bool_]:
        if atom not in self._masks:
            self._masks[atom] = np.logical_and.reduce(
                [self.features[name] >= value for name, value in atom.when])
        return self._masks[atom]

    def action(self, rules: list[tuple[Atom, int]]) -> npt.NDArray[np.int64]:
        """Each group's bet: the largest of the lines it meets, 0 (fold) if none."""
        key = tuple(rules)
        if key not in self._actions:
            if rules:
                atom, bet = rules[-1]
                self._actions[key] = np.maximum(self.action(rules[:-1]),
                                                np.where(self.mask(atom), bet, 0))
            else:
                self._actions[key] = np.zeros(len(self.totals), dtype=np.int64)
        return self._actions[key]

    def score(self, rules: list[tuple[Atom, int]]) -> int:
        key = tuple(rules)
        if key not in self._scores:
            action = self.action(rules)
            value = int(self.totals[np.arange(len(action)), action].sum())
            self._scores[key] = value - self.penalty * len(rules)
        return self._scores[key]

    def neighbours(self, rules: list[tuple[Atom, int]]) -> list[list[tuple[Atom, int]]]:
        found = []
        for index, (atom, bet) in enumerate(rules):
            others = rules[:index] + rules[index + 1:]
            found.append(others)
            for other_bet in self.bets:
                if other_bet != bet:
                    found.append([*others, (atom, other_bet)])
            for position, (name, value) in enumerate(atom.when):
                for step in (-1, 1):
                    if value + step in self.ranges[name]:
                        when = list(atom.when)
                        when[position] = (name, value + step)
                        found.append([*others, (Atom(tuple(when)), bet)])
                        if step == 1 and bet > min(self.bets):
                            # Narrow a line and keep the hands it drops at a smaller bet.
                            found.append([*others, (Atom(tuple(when)), bet),
                                          (atom, min(self.bets))])
        return found

    def best_addition(self, rules: list[tuple[Atom, int]], atoms: list[Atom],
                      masks: ConditionTable, caution: int = 0,
                      ) -> tuple[int, list[tuple[Atom, int]]]:
        """The line whose gain, less ``caution`` times the hands it makes worse, is
        largest; returns its true gain (net of the penalty) and the new lines."""
        key = (tuple(rules), caution)
        if key not in self._additions:
            self._additions[key] = self._best_addition(rules, atoms, masks, caution)
        return self._additions[key]

    def _best_addition(self, rules: list[tuple[Atom, int]], atoms: list[Atom],
                       masks: ConditionTable, caution: int,
                       ) -> tuple[int, list[tuple[Atom, int]]]:
        action = self.action(rules)
        rows = np.arange(len(action))
        best: tuple[int, int, list[tuple[Atom, int]]] = (0, 0, rules)
        for bet in self.bets:
            delta = np.where(action < bet, self.totals[:, bet] - self.totals[rows, action], 0)
            gains = masks.sums(delta)
            ranked = gains - caution * masks.sums(np.minimum(delta, 0)) if caution else gains
            pick = int(np.argmax(ranked))
            if ranked[pick] - self.penalty > best[0]:
                best = (int(ranked[pick]) - self.penalty, int(gains[pick]) - self.penalty,
                        [*rules, (atoms[pick], bet)])
        return best[1], best[2]

    def run(self, max_rules: int) -> list[tuple[Atom, int]]:
        atoms = _atoms(self.ranges)
        masks = ConditionTable.of([atom.when for atom in atoms], self.features)
        found = [self._climb(atoms, masks, max_rules, caution) for caution in (0, 1, 3)]
        return max(found, key=self.score)

    def _climb(self, atoms: list[Atom], masks: ConditionTable, max_rules: int,
               caution: int) -> list[tuple[Atom, int]]:
        rules: list[tuple[Atom, int]] = []
        while len(rules) < max_rules:
            gain, added = self.best_addition(rules, atoms, masks, caution)
            if gain <= 0:
                break
            rules = added
        score = self.score(rules)
        while True:
            candidates = self.neighbours(rules)
            for index in range(len(rules)):
                candidates.append(self.best_addition(rules[:index] + rules[index + 1:],
                                                     atoms, masks)[1])
            if len(rules) < max_rules:
                candidates.append(self.best_addition(rules, atoms, masks)[1])
            scored = [(self.score(candidate), candidate) for candidate in candidates]
            best_score, best = max(scored, key=lambda item: item[0], default=(score, rules))
            if best_score <= score:
                return rules
            score, rules = best_score, best


@cache
def _card_groups(level: int) -> tuple[I64, I64, I64]:
    """The sets of a street grouped by their card features (whatever the pays and bets):
    the groups' codes (ascending), each set's group, and one set of each group."""
    features = card_features(2 + level)
    codes = np.zeros_like(features["made"])
    for name in CARD_FEATURES:
        codes = codes * 16 + features[name]  # every feature is below 16: codes are unique
    keys, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return keys.astype(np.int64), inverse.ravel().astype(np.int64), first.astype(np.int64)


@cache
def node_groups(level: int, width: int, low: int
                 ) -> tuple[I64, I64, dict[str, npt.NDArray[np.int64]]]:
    """The decision nodes of a street grouped by their card features and the bets made
    (the same whatever the pays): each group's key, each node's group, each group's
    features. A group is a card group and a column (every card group meets every
    column), numbered in the order of ``code * width + column``."""
    codes, card_group, first_row = _card_groups(level)
    columns = np.arange(width, dtype=np.int64)
    keys = (codes[:, None] * width + columns).ravel()
    groups = card_group[:, None] * width + columns
    features = card_features(2 + level)
    group_features: dict[str, npt.NDArray[np.int64]] = {
        name: np.repeat(features[name][first_row], width) for name in CARD_FEATURES}
    group_features["bets"] = low - 1 + keys % width
    return keys, groups, group_features


def street_totals(solution: Solution, reach: tuple[I64, ...]) -> tuple[I64, ...]:
    """Per street, each group of decision nodes' (:func:`node_groups`) total of paths x
    scaled value of each bet (0 = fold), optimal play afterwards; ``reach``: the optimal
    play-out's paths to each node."""
    shape = solution.shape
    totals = []
    for level in range(shape.streets):
        keys, groups, _ = node_groups(level, shape.width(level), shape.low(level))
        if level == shape.last:
            totals.append(_group_totals_last(reach[level], shape.low(level), shape.scale(level),
                                             groups, len(keys), solution.final_sums,
                                             shape.most))
        else:
            totals.append(_group_totals_middle(reach[level], shape.low(level),
                                               shape.scale(level), groups, len(keys),
                                               solution.next_sums[level],
                                               shape.low(level + 1), shape.most))
    return tuple(totals)


def derive_card(solution: Solution, reach: tuple[I64, ...], total: int,
                min_gain: float = 0.0005, max_rules: int = 6) -> StudStrategy:
    """:func:`fit_card` to the :func:`street_totals` of ``solution`` and its play-out."""
    return fit_card(solution.shape, street_totals(solution, reach), total, min_gain,
                    max_rules)


def fit_card(shape: Shape, totals: tuple[I64, ...], total: int, min_gain: float = 0.0005,
             max_rules: int = 6) -> StudStrategy:
    """A short points-style card fitted street by street to the exact option values
    (``totals``: :func:`street_totals`), weighting each decision by how often optimal
    play meets it; ``total`` is the number of deals.

    A line stays on the card only if it gains at least ``min_gain`` antes per hand dealt.
    """
    streets: list[tuple[StudRule, ...]] = []
    for level in range(shape.streets):
        width = shape.width(level)
        _, _, group_features = node_groups(level, width, shape.low(level))
        bets_made = range(shape.low(level) - 1, shape.low(level) - 1 + width)
        search = _Search(totals[level], group_features, tuple(sorted({1, shape.most})),
                         int(min_gain * total), _feature_ranges(2 + level, bets_made))
        rules = search.run(max_rules)
        rules.sort(key=lambda item: (-item[1], item[0].when))
        streets.append(tuple(StudRule(bet=bet, when=dict(atom.when)) for atom, bet in rules))
    streets += [()] * (3 - len(streets))
    return StudStrategy(street3=streets[0], street4=streets[1], street5=streets[2])


def card_lines(strategy: StudStrategy, streets: int) -> tuple[str, ...]:
    """The card as short sentences, biggest bet first."""
    lines = ["Points: J-A = 2, 6-10 = 1, 2-5 = 0 (count all your cards and the "
             "community cards turned)."]
    for level in range(streets):
        rules = strategy.street(level)
        parts = []
        for bet in sorted({rule.bet for rule in rules}, reverse=True):
            conditions = [Atom(tuple(rule.when.items())).describe() or "always"
                          for rule in rules if rule.bet == bet]
            parts.append(f"bet {bet}x with " + "; or ".join(conditions))
        parts.append("otherwise fold")
        lines.append(f"{STREET_LABELS[level]}: " + "; ".join(parts) + ".")
    return tuple(lines)

