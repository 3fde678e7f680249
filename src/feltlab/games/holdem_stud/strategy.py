"""Hold'em Stud strategies as data, and the strategy card derived from the optimum.

A strategy is, for each street, a list of rules ``{bet = k, when = {feature = minimum}}``;
a hand bets the LARGEST ``k`` among the rules whose every minimum it meets, and folds
when none does. Features of the cards known at the street (the player's 2 and the
community cards turned, together):

- ``made``: 0 nothing, 1 a pair of 2s-5s, 2 a pair of 6s-10s, 3 a pair of jacks or
  better, 4 two pair, 5 three of a kind, 6 four of a kind;
- ``points``: J, Q, K, A count 2 each, 6 to 10 count 1, 2 to 5 count 0;
- ``suited``: most cards of one suit; ``straight``: most distinct ranks within 5
  consecutive ranks (ace high or low); ``straight_flush``: the same in one suit;
- ``bets``: the street bets already made, in antes.

>>> strategy = parse_strategy('''
... street3 = [{bet = 3, when = {made = 1}}, {bet = 1, when = {points = 2}}]
... ''')
>>> [rule.bet for rule in strategy.street3]
[3, 1]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cache
from typing import Literal

import numba as nb
import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from feltlab.core.rules import describe_validation_error, parse_toml, validate_strict
from feltlab.games.holdem_stud.atom_sums import ConditionTable
from feltlab.games.holdem_stud.solver import (
    I8,
    I64,
    Solution,
    all_sets,
)

Feature = Literal["made", "points", "suited", "straight", "straight_flush", "bets"]
CARD_FEATURES: tuple[Feature, ...] = ("made", "points", "suited", "straight", "straight_flush")
STREET_LABELS = ("3rd street", "4th street", "5th street")
MADE_NAMES = ("nothing", "a pair of 2s-5s", "a pair of 6s-10s", "a pair of jacks or better",
              "two pair", "three of a kind", "four of a kind")


class StrategyError(ValueError):
    """A strategy file that does not validate; the message names the field."""


class StudRule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    bet: int = Field(ge=1, le=10)
    when: dict[Feature, int] = Field(default_factory=dict)


class StudStrategy(BaseModel):
    """One rule list per street (streets beyond the rule set's are ignored)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    game: Literal["holdem-stud"] = "holdem-stud"
    rules: str = ""
    street3: tuple[StudRule, ...] = ()
    street4: tuple[StudRule, ...] = ()
    street5: tuple[StudRule, ...] = ()

    def street(self, level: int) -> tuple[StudRule, ...]:
        return (self.street3, self.street4, self.street5)[level]


def parse_strategy(text: str) -> StudStrategy:
    """A strategy from TOML text (see the module docstring)."""
    try:
        return validate_strict(StudStrategy, parse_toml(text, "the strategy"))
    except ValidationError as error:
        raise StrategyError("invalid Hold'em Stud strategy: "
                            + describe_validation_error(error)) from error
    except ValueError as error:
        raise StrategyError(f"invalid Hold'em Stud strategy: {error}") from error


def strategy_toml(strategy: StudStrategy) -> str:
    """The strategy as TOML text that :func:`parse_strategy` reads back."""
    lines = ['game = "holdem-stud"']
    for level in range(3):
        rules = strategy.street(level)
        if not rules:
            continue
        lines.append(f"street{level + 3} = [")
        for rule in rules:
            when = ", ".join(f"{name} = {value}" for name, value in rule.when.items())
            lines.append(f"  {{bet = {rule.bet}, when = {{{when}}}}},")
        lines.append("]")
    return "\n".join(lines) + "\n"


@cache
def card_features(size: int) -> dict[str, npt.NDArray[np.int64]]:
    """Each card feature of every ``size``-card set, in colex order."""
    sets = all_sets(size).astype(np.int64)
    ranks, suits = sets % 13, sets // 13
    counts = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
    pairs = (counts == 2).sum(axis=1)
    top_pair = np.where(counts == 2, np.arange(13), -1).max(axis=1)
    pair_level = np.select([top_pair >= 9, top_pair >= 4, top_pair >= 0], [3, 2, 1], 0)
    made = np.select([(counts == 4).any(axis=1), (counts == 3).any(axis=1), pairs >= 2],
                     [6, 5, 4], pair_level)
    points = np.select([ranks >= 9, ranks >= 4], [2, 1], 0).sum(axis=1)
    by_suit = np.zeros((sets.shape[0], 4, 13), dtype=np.int64)
    rows = np.repeat(np.arange(sets.shape[0]), size)
    by_suit[rows, suits.ravel(), ranks.ravel()] = 1
    present = by_suit.max(axis=1)
    return {"made": made, "points": points, "suited": by_suit.sum(axis=2).max(axis=1),
            "straight": _window_most(present), "straight_flush": _window_most(by_suit).max(axis=1)}


def _window_most(present: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Most ranks present in any 5 consecutive ranks (the ace also below the deuce)."""
    low_ace = np.concatenate([present[..., 12:], present], axis=-1)
    windows = [low_ace[..., start:start + 5].sum(axis=-1) for start in range(10)]
    return np.max(np.stack(windows), axis=0)  # type: ignore[no-any-return]


def strategy_choices(strategy: StudStrategy, solution: Solution) -> tuple[I8, ...]:
    """The strategy's bet at every decision node, shaped like ``solution.choices``.

    A rule's card conditions are matched once per street; the columns (bets made) only
    switch whole rules on or off, so each distinct set of rules switched on is played
    once and shared by its columns.
    """
    shape = solution.shape
    tables = []
    for level in range(shape.streets):
        features = card_features(2 + level)
        rules = strategy.street(level)
        for rule in rules:
            if rule.bet > shape.most:
                raise StrategyError(f"street{level + 3}: bet {rule.bet}x is above the "
                                    f"maximum of {shape.most}x")
        cards_match = []
        for rule in rules:
            match = np.ones(len(features["made"]), dtype=bool)
            for name, minimum in rule.when.items():
                if name != "bets":
                    match &= features[name] >= minimum
            cards_match.append(match)
        by_rules: dict[tuple[int, ...], I8] = {}
        columns = []
        for column in range(shape.width(level)):
            bets_made = shape.low(level) + column - 1
            # The bets condition is compared as it always was here (against a boolean
            # array filled with ``bets_made``: whether any bet was made, so a minimum of 2
            # or more never matches); correcting it changes strategy cards' figures, which
            # is a change of its own.
            switched_on = tuple(index for index, rule in enumerate(rules)
                                if all(int(bets_made != 0) >= minimum
                                       for name, minimum in rule.when.items()
                                       if name == "bets"))
            if switched_on not in by_rules:
                choice = np.zeros(len(features["made"]), dtype=np.int8)
                for index in switched_on:
                    choice = np.where(cards_match[index], np.maximum(choice, rules[index].bet),
                                      choice).astype(np.int8)
                by_rules[switched_on] = choice
            columns.append(by_rules[switched_on])
        tables.append(np.stack(columns, axis=1))
    return tuple(tables)


# The strategy card --------------------------------------------------------------------

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
    final sum times the antes then at risk."""
    totals = np.zeros((group_count, most + 1), dtype=np.int64)
    for row in range(reach.shape[0]):
        for column in range(reach.shape[1]):
            paths = reach[row, column]
            if paths == 0:
                continue
            at_risk = low + column
            group = groups[row, column]
            totals[group, 0] += paths * (-scale * at_risk)
            for bet in range(1, most + 1):
                totals[group, bet] += paths * (final_sums[row] * (at_risk + bet))
    return totals


@dataclass(frozen=True)
class Atom:
    """One condition of a card line: every feature at least its minimum."""

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


@dataclass
class _Search:
    """Local search for the card lines of one street over groups of decision nodes."""

    totals: I64  # [group, bet]: paths x scaled value
    features: dict[str, npt.NDArray[np.int64]]  # per group
    bets: tuple[int, ...]
    penalty: int  # the least a line must gain to be worth remembering
    ranges: dict[Feature, range]

    def mask(self, atom: Atom) -> npt.NDArray[np.bool_]:
        mask: npt.NDArray[np.bool_] = np.logical_and.reduce(
            [self.features[name] >= value for name, value in atom.when])
        return mask

    def action(self, rules: list[tuple[Atom, int]]) -> npt.NDArray[np.int64]:
        action = np.zeros(len(self.totals), dtype=np.int64)
        for atom, bet in rules:
            action = np.where(self.mask(atom), np.maximum(action, bet), action)
        return action

    def score(self, rules: list[tuple[Atom, int]]) -> int:
        action = self.action(rules)
        value = int(self.totals[np.arange(len(action)), action].sum())
        return value - self.penalty * len(rules)

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
def _node_groups(level: int, width: int, low: int
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


def derive_card(solution: Solution, reach: tuple[I64, ...], total: int,
                min_gain: float = 0.0005, max_rules: int = 6) -> StudStrategy:
    """A short points-style card fitted street by street to the exact option values
    (optimal play afterwards), weighting each decision by how often optimal play meets it.

    A line stays on the card only if it gains at least ``min_gain`` antes per hand dealt.
    """
    shape = solution.shape
    streets: list[tuple[StudRule, ...]] = []
    for level in range(shape.streets):
        width = shape.width(level)
        keys, groups, group_features = _node_groups(level, width, shape.low(level))
        if level == shape.last:
            totals = _group_totals_last(reach[level], shape.low(level), shape.scale(level),
                                        groups, len(keys), solution.final_sums, shape.most)
        else:
            totals = _group_totals_middle(reach[level], shape.low(level), shape.scale(level),
                                          groups, len(keys), solution.next_sums[level],
                                          shape.low(level + 1), shape.most)
        bets_made = range(shape.low(level) - 1, shape.low(level) - 1 + width)
        search = _Search(totals, group_features, tuple(sorted({1, shape.most})),
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

