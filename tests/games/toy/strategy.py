"""The toy game's strategies as data (TOML): raise with a card of one rank or better,
fold the rest::

    name = "Toy High Card strategy card"
    rules = "toy-high-card"     # the rule set it was made for (informational)
    raise_from = "5"            # raise a five or better (2-9, T or 10, J, Q, K, A)

>>> strategy = parse_toy_strategy('raise_from = "10"')
>>> strategy.raises(RANKS.index("9")), strategy.raises(RANKS.index("T"))
(False, True)
>>> parse_toy_strategy('raise_from = "B"')
Traceback (most recent call last):
...
ValueError: invalid toy strategy: field raise_from: 'B' is not a rank (2-9, T, J, Q, K, A)
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from feltlab.core.cards import RANKS
from feltlab.core.rules import describe_validation_error, parse_toml, validate_strict


class ToyStrategy(BaseModel):
    """Raise with a card of rank ``raise_from`` or higher; fold the rest."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    game: Literal["toy-high-card"] = "toy-high-card"
    name: str = ""
    rules: str = ""
    raise_from: str

    @field_validator("raise_from")
    @classmethod
    def _rank(cls, value: str) -> str:
        text = "T" if value == "10" else value.upper()
        if len(text) != 1 or text not in RANKS:
            raise ValueError(f"{value!r} is not a rank (2-9, T, J, Q, K, A)")
        return text

    @property
    def lowest_raise(self) -> int:
        """The lowest rank that raises (0 a deuce, 12 an ace)."""
        return RANKS.index(self.raise_from)

    def raises(self, rank: int) -> bool:
        return rank >= self.lowest_raise


def parse_toy_strategy(text: str) -> ToyStrategy:
    """A strategy file's content; ``ValueError`` naming the field."""
    try:
        return validate_strict(ToyStrategy, parse_toml(text, "the strategy"))
    except ValidationError as error:
        raise ValueError("invalid toy strategy: " + describe_validation_error(error)) from error
    except ValueError as error:
        raise ValueError(f"invalid toy strategy: {error}") from error
