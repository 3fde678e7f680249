"""Strategies for the High Card Flush family, as data (TOML).

A strategy decides from the hand's flush alone (its length and ranks, as the game ranks
them). The file holds an optional ``name``, an optional ``rules`` (the id of the rule set
it was made for; informational), a ``default`` action (``"fold"`` unless given) and a
list of ``[[rule]]`` tables. The first rule that matches the hand decides::

    name = "High Card Flush strategy card"
    rules = "high-card-flush"
    default = "fold"

    [[rule]]
    min_length = 4          # every flush of 4 or more cards ...
    action = "max"          # ... raises the most the rule set allows for it

    [[rule]]
    min_length = 3
    at_least = "T86"        # a 3-card flush of T-8-6 or better
    action = "1x"

Fields of a rule:

- ``min_length`` (2-7, required): the flush has at least this many cards;
- ``max_length`` (2-7, optional, default 7): and at most this many;
- ``at_least`` (optional): ranks such as ``"T86"`` or ``"T-8-6"`` (``10`` works for a
  ten); the flush must be at least as good as a ``min_length``-card flush of these ranks
  (a shorter list is a prefix: ``"T"`` means "ten high or better");
- ``action``: ``"fold"``, ``"max"`` (the largest raise the rule set allows for the
  hand's flush length) or ``"Nx"`` (raise N antes, N from 1 to 10; lowered to the
  largest raise allowed when that is less).

A hand the rule set does not allow to raise (a 2-card flush in ``nh-flush-poker``) folds
whatever the action. Unknown fields and bad values are refused with an error that names
the field.

>>> strategy = parse_strategy('[[rule]]\\nmin_length = 3\\nat_least = "T86"\\naction = "max"')
>>> from feltlab.core.evaluators import flush_value_of
>>> strategy.raise_multiple(flush_value_of(3, (8, 6, 4)), 1), strategy.raise_multiple(
...     flush_value_of(3, (8, 6, 3)), 1)
(1, 0)
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from feltlab.core.cards import RANKS
from feltlab.core.evaluators import RANK_BITS, describe_flush_value
from feltlab.core.rules import describe_validation_error, parse_toml, validate_strict

_ACTION = re.compile(r"^(fold|max|([1-9]|10)x)$")


class StrategyError(ValueError):
    """A strategy file that does not validate; the message names the field."""


@functools.lru_cache(maxsize=4096)
def ranks_of(text: str) -> tuple[int, ...]:
    """Ranks written as ``"T86"``, ``"T-8-6"`` or ``"10 8 6"``, highest first.

    >>> ranks_of("t-8-6"), ranks_of("10 9")
    ((8, 6, 4), (8, 7))
    """
    cleaned = re.sub(r"[\s,-]+", "", text.upper()).replace("10", "T")
    ranks = []
    for symbol in cleaned:
        if symbol not in RANKS:
            raise ValueError(f"{symbol!r} is not a rank (2-9, T, J, Q, K, A)")
        ranks.append(RANKS.index(symbol))
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"{text!r} repeats a rank")
    return tuple(sorted(ranks, reverse=True))


def format_ranks(ranks: tuple[int, ...]) -> str:
    return "-".join(RANKS[rank] for rank in sorted(ranks, reverse=True))


class StrategyRule(BaseModel):
    """One line of a strategy: which flushes it covers and what they do."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min_length: int = Field(ge=2, le=7)
    max_length: int = Field(default=7, ge=2, le=7)
    at_least: str = ""
    action: str

    @field_validator("at_least")
    @classmethod
    def _ranks(cls, value: str) -> str:
        return format_ranks(ranks_of(value))

    @field_validator("action")
    @classmethod
    def _action(cls, value: str) -> str:
        text = value.strip().lower()
        if not _ACTION.match(text):
            raise ValueError(f"{value!r} is not an action: use 'fold', 'max' or '1x' to '10x'")
        return text

    @model_validator(mode="after")
    def _consistent(self) -> StrategyRule:
        if self.max_length < self.min_length:
            raise ValueError(f"max_length {self.max_length} is below min_length "
                             f"{self.min_length}")
        if len(ranks_of(self.at_least)) > self.min_length:
            raise ValueError(f"at_least {self.at_least!r} has more ranks than min_length "
                             f"{self.min_length}")
        return self

    @property
    def threshold(self) -> int:
        """The smallest flush value this rule covers."""
        mask = sum(1 << rank for rank in ranks_of(self.at_least))
        return (self.min_length << RANK_BITS) | mask

    def matches(self, value: int) -> bool:
        return value >= self.threshold and value >> RANK_BITS <= self.max_length

    def multiple(self, most: int) -> int:
        """The raise, in antes, this rule makes when the rule set allows up to ``most``."""
        if self.action == "fold":
            return 0
        wanted = most if self.action == "max" else int(self.action[:-1])
        return min(wanted, most)

    def describe(self) -> str:
        lengths = (f"{self.min_length}-card" if self.max_length == self.min_length else
                   f"{self.min_length}- to {self.max_length}-card" if self.max_length < 7
                   else f"{self.min_length}-card or longer")
        ranks = f" of {self.at_least} or better" if self.at_least else ""
        verb = "fold" if self.action == "fold" else (
            "raise the maximum" if self.action == "max" else f"raise {self.action}")
        return f"{lengths} flush{ranks}: {verb}"


class Strategy(BaseModel):
    """A strategy given as data: first matching rule wins, else ``default``."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str = "strategy"
    rules: str = ""
    default: Literal["fold", "max"] = "fold"
    rule: tuple[StrategyRule, ...] = ()

    def raise_multiple(self, value: int, most: int) -> int:
        """Raise in antes (0 = fold) for a hand of flush ``value`` allowed up to ``most``."""
        for rule in self.rule:
            if rule.matches(value):
                return rule.multiple(most)
        return most if self.default == "max" else 0

    def to_toml(self) -> str:
        lines = [f"name = {json.dumps(self.name)}"]
        if self.rules:
            lines.append(f"rules = {json.dumps(self.rules)}")
        lines.append(f'default = "{self.default}"')
        for rule in self.rule:
            lines += ["", "[[rule]]", f"min_length = {rule.min_length}"]
            if rule.max_length != 7:
                lines.append(f"max_length = {rule.max_length}")
            if rule.at_least:
                lines.append(f'at_least = "{rule.at_least}"')
            lines.append(f'action = "{rule.action}"')
        return "\n".join(lines) + "\n"


def parse_strategy(text: str, origin: str = "<strategy>") -> Strategy:
    """Validate strategy TOML text; errors name the origin and the field."""
    try:
        return validate_strict(Strategy, parse_toml(text, origin))
    except ValidationError as error:
        raise StrategyError(f"{origin}: {describe_validation_error(error)}") from error
    except ValueError as error:
        raise StrategyError(str(error) if str(error).startswith(origin) else
                            f"{origin}: {error}") from error


def load_strategy(path: str | Path) -> Strategy:
    """Read and validate a strategy file."""
    try:
        text = Path(path).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise StrategyError(f"cannot read strategy {path}: {error}") from error
    return parse_strategy(text, str(path))


def threshold_rule_text(value: int) -> str:
    """``'3-card flush T-8-6'`` for a flush value (used on strategy cards)."""
    return describe_flush_value(value)
