"""9 Card Flush's rule-set model: where All 9 wins and pushes, and the three bonus pay
tables by flush cards of the chosen colour.

>>> from feltlab.core.rules import load_rules
>>> rules = load_rules("nine-card-flush")
>>> rules.all9_win_at, rules.main_wager
(4, 'all9')
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from feltlab.core.exposure import Payout
from feltlab.core.rules import PayTable, Rules, check_pay_table
from feltlab.core.strict import Constrained

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
    all9_win_at: Annotated[int, Constrained(ge=1, le=9)]
    all9_push_at: Annotated[int, Constrained(ge=1, le=9)] | None = None
    bonus9_pays: PayTable
    player6_pays: PayTable
    first3_pays: PayTable

    def placeable_wagers(self) -> tuple[str, ...]:
        return ("all9", *BONUSES)

    def __post_init__(self) -> None:
        super().__post_init__()
        if 3 + self.seats * 6 > 52:
            raise ValueError(f"seats: {self.seats} seats need more than 52 cards")
        if self.all9_push_at is not None and self.all9_push_at >= self.all9_win_at:
            raise ValueError(f"all9_push_at: {self.all9_push_at} must be below all9_win_at "
                             f"({self.all9_win_at})")
        for name in BONUSES:
            check_pay_table(f"{name}_pays", self.bonus_table(name), BONUS_CARDS[name],
                            name in self.limits)

    def bonus_table(self, name: str) -> PayTable:
        """The pay table of a bonus wager."""
        table: PayTable = getattr(self, f"{name}_pays")
        return table

    def pay_table_fields(self) -> dict[str, str]:
        return {name: f"{name}_pays" for name in BONUSES}

    def decision_payouts(self) -> tuple[Payout, ...]:
        """The Play, the All 9 stake again, paid even money."""
        return (Payout("play", self.limits["all9"].max, 1),)
