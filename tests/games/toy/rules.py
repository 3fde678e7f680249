"""The toy game's rule-set model: the base rule set, plus the size of the one raise.

>>> ToyRules.model_validate(EXAMPLE).most_at_risk(10)
20
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import Field, model_validator

from feltlab.core.rules import MAX_MULTIPLE, Rules

TITLES: Final = {"ante": "Ante", "raise": "Raise"}
"""Each wager's and decision wager's name as the rules card writes it."""

EXAMPLE: Final[dict[str, Any]] = {
    "id": "toy-example", "name": "Toy example", "game": "toy-high-card", "seats": 2,
    "required_wagers": ["ante"], "limits": {"ante": {"min": 1, "max": 10}}}
"""A rule set as data, for the doctests (they run without the registry)."""


class ToyRules(Rules):
    """One card each against the dealer's one; fold or raise ``raise_multiple`` antes."""

    game: Literal["toy-high-card"]
    raise_multiple: int = Field(default=1, ge=1, le=MAX_MULTIPLE)

    def placeable_wagers(self) -> tuple[str, ...]:
        return ("ante",)

    @model_validator(mode="after")
    def _cards_suffice(self) -> ToyRules:
        if self.seats + 1 > 52:
            raise ValueError(f"seats: {self.seats} seats and the dealer need more than 52 "
                             "cards")
        return self

    def raise_amount(self, ante: int) -> int:
        """The one raise a hand with ``ante`` on the Ante may make."""
        return self.raise_multiple * ante

    def most_at_risk(self, ante: int) -> int:
        """Ante and Raise, both lost."""
        return ante + self.raise_amount(ante)
