"""Hold'em Stud strategies as data, the card features they test, and their decision
tables (the strategy card fitted to the optimum: :mod:`.strategy_card`).

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

from functools import cache
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from feltlab.core.rules import describe_validation_error, parse_toml, validate_strict
from feltlab.games.holdem_stud.shape import Shape
from feltlab.games.holdem_stud.solver import I8, all_sets

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


def strategy_choices(strategy: StudStrategy, shape: Shape) -> tuple[I8, ...]:
    """The strategy's bet at every decision node, shaped like the optimal choices of a
    game of this ``shape``.

    A rule's card conditions are matched once per street; the columns (bets made) only
    switch whole rules on or off, so each distinct set of rules switched on is played
    once and shared by its columns.
    """
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
