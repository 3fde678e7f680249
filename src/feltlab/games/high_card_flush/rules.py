"""The High Card Flush family's rule-set model: the qualifier, raise sizes by flush
length, and the two bonus pay tables.

>>> from feltlab.core.rules import load_rules
>>> rules = load_rules("nh-flush-poker")
>>> rules.max_raise_multiple(2), rules.max_raise_multiple(5), rules.max_aggregate_payout
(0, 2, 2000)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Final, Literal

from feltlab.core.cards import RANKS
from feltlab.core.exposure import Payout
from feltlab.core.rules import MAX_MULTIPLE, PayTable, Rules, check_pay_table, integer_keys
from feltlab.core.strict import After, Before, Constrained, StrictData

BONUSES: tuple[Literal["flush", "straight_flush"], ...] = ("flush", "straight_flush")


TITLES: Final = {"ante": "Ante", "flush": "Flush bonus", "straight_flush": "Straight Flush bonus",
                 "raise": "Raise"}
"""Each wager's and decision wager's name as the rules card writes it."""

def rank_letter(value: str) -> str:
    """A rank as the cards write it (``10`` and ``t`` are ``T``).

    >>> rank_letter("10"), rank_letter("q")
    ('T', 'Q')
    """
    text = "T" if value == "10" else value.upper()
    if len(text) != 1 or text not in RANKS:
        raise ValueError(f"{value!r} is not a rank (2-9, T, J, Q, K, A)")
    return text


class Qualifier(StrictData):
    """The dealer qualifies with a flush of ``min_length`` cards whose high card is at
    least ``min_high_card``, or with any longer flush."""

    min_length: Annotated[int, Constrained(ge=1, le=7)]
    min_high_card: Annotated[str, After(rank_letter)]

    @property
    def min_high_rank(self) -> int:
        return RANKS.index(self.min_high_card)

    @property
    def threshold(self) -> int:
        """Smallest flush value that qualifies (see :mod:`feltlab.core.evaluators`)."""
        return (self.min_length << 13) | (1 << self.min_high_rank)


class FlushRules(Rules):
    """High Card Flush and its variants: 7 cards each, fold or raise, two bonus wagers."""

    game: Literal["high-card-flush"]
    hand_size: Literal[7] = 7
    raise_multiples: Annotated[dict[int, Annotated[int, Constrained(ge=0, le=MAX_MULTIPLE)]],
                               Before(integer_keys)]
    raise_in_whole_antes: bool = False
    qualifier: Qualifier
    flush_pays: PayTable
    straight_flush_pays: PayTable
    settled_on_fold: dict[Literal["flush", "straight_flush"], bool]
    equal_bonuses: bool = False

    def placeable_wagers(self) -> tuple[str, ...]:
        return ("ante", *BONUSES)

    def __post_init__(self) -> None:
        super().__post_init__()
        missing = [length for length in range(2, 8) if length not in self.raise_multiples]
        if missing:
            raise ValueError(f"raise_multiples: no entry for a {missing[0]}-card flush")
        extra = sorted(set(self.raise_multiples) - set(range(2, 8)))
        if extra:
            raise ValueError(f"raise_multiples: a {extra[0]}-card flush cannot occur in 7 cards "
                             "(entries are for 2 to 7)")
        check_pay_table("flush_pays", self.flush_pays, self.hand_size, "flush" in self.limits)
        check_pay_table("straight_flush_pays", self.straight_flush_pays, self.hand_size,
                        "straight_flush" in self.limits)
        if self.seats * 7 + 7 > 52:
            raise ValueError(f"seats: {self.seats} seats and the dealer need more than 52 cards")
        for name in BONUSES:
            if name not in self.settled_on_fold:
                raise ValueError(f"settled_on_fold: missing {name!r}")

    def max_raise_multiple(self, flush_length: int) -> int:
        """Largest raise, in antes, for a flush of this length (0: the hand may only fold)."""
        return self.raise_multiples.get(flush_length, 0)

    def check_stakes(self, stakes: Mapping[str, int]) -> str | None:
        flush, straight = stakes.get("flush"), stakes.get("straight_flush")
        if self.equal_bonuses and flush and straight and flush != straight:
            return (f"wagers flush ({flush}) and straight_flush ({straight}) must be equal "
                    f"when both are bet ({self.id})")
        return None

    def matched_stakes(self, stakes: Mapping[str, int]) -> dict[str, int]:
        matched = dict(stakes)
        if self.equal_bonuses and {"flush", "straight_flush"} <= matched.keys():
            matched["straight_flush"] = matched["flush"]
        return matched

    def pay_table_fields(self) -> dict[str, str]:
        return {"flush": "flush_pays", "straight_flush": "straight_flush_pays"}

    def decision_payouts(self) -> tuple[Payout, ...]:
        """The raise, up to the largest multiple of the largest Ante, paid even money."""
        most = max(self.raise_multiples.values()) * self.limits["ante"].max
        return (Payout("raise", most, 1),)
