"""9 Card Flush's rule-set model: where All 9 wins and pushes, and the three bonus pay
tables by flush cards of the chosen colour.

>>> from feltlab.core.rules import load_rules
>>> rules = load_rules("nine-card-flush")
>>> rules.all9_win_at, rules.main_wager
(4, 'all9')
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field, field_validator, model_validator

from feltlab.core.exposure import Payout
from feltlab.core.rules import PayTable, Rules, check_pay_table, integer_keys

BONUSES: Final = ("bonus9", "player6", "first3")
"""The bonus wagers, each paid on its own table."""
BONUS_CARDS: Final = {"bonus9": 9, "player6": 6, "first3": 3}
"""The cards each bonus counts flush cards in."""


TITLES: Final = {"all9": "All 9", "bonus9": "9 Card Bonus", "player6": "Player 6",
                 "first3": "First 3", "play": "Play"}
"""Each wager's and decision wager's name as the rules card writes it."""

class NineCardRules(Rules):
    """9 Card Flush: a colour, 3 community cards, fold or Play, then 6 cards each."""

    game: Literal["nine-card-flush"]
    all9_win_at: int = Field(ge=1, le=9)
    all9_push_at: int | None = Field(default=None, ge=1, le=9)
    bonus9_pays: PayTable
    player6_pays: PayTable
    first3_pays: PayTable

    _counts = field_validator("bonus9_pays", "player6_pays", "first3_pays",
                              mode="before")(integer_keys)

    def placeable_wagers(self) -> tuple[str, ...]:
        return ("all9", *BONUSES)

    @model_validator(mode="after")
    def _seats_fit(self) -> NineCardRules:
        if 3 + self.seats * 6 > 52:
            raise ValueError(f"seats: {self.seats} seats need more than 52 cards")
        if self.all9_push_at is not None and self.all9_push_at >= self.all9_win_at:
            raise ValueError(f"all9_push_at: {self.all9_push_at} must be below all9_win_at "
                             f"({self.all9_win_at})")
        for name in BONUSES:
            check_pay_table(f"{name}_pays", self.bonus_table(name), BONUS_CARDS[name],
                            name in self.limits)
        return self

    def bonus_table(self, name: str) -> PayTable:
        """The pay table of a bonus wager."""
        table: PayTable = getattr(self, f"{name}_pays")
        return table

    def pay_table_fields(self) -> dict[str, str]:
        return {name: f"{name}_pays" for name in BONUSES}

    def decision_payouts(self) -> tuple[Payout, ...]:
        """The Play, the All 9 stake again, paid even money."""
        return (Payout("play", self.limits["all9"].max, 1),)
