"""Hold'em Stud's rule-set model: the street bets' size and two pay tables of named
hands (the 5-card hand every wager is paid on, and the 3 Card Bonus).

>>> from feltlab.core.rules import load_rules
>>> from feltlab.core.evaluators import PokerHand
>>> rules = load_rules("nh-holdem-stud")
>>> rules.max_street_multiple, rules.net_multiple(PokerHand.HIGH_CARD)
(3, -1)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Final, Literal

from feltlab.core.evaluators import PokerHand, ThreeCardHand
from feltlab.core.exposure import Payout, top_pay
from feltlab.core.rules import MAX_MULTIPLE, Pays, Rules, check_rising
from feltlab.core.strict import After, Before, Constrained

Push = Literal["push"]


TITLES: Final = {"ante": "Ante", "bonus3": "3 Card Bonus", "street3": "3rd street",
                 "street4": "4th street", "street5": "5th street"}
"""Each wager's and decision wager's name as the rules card writes it."""

def pays_or_push(value: object) -> object:
    """Refuse a line that is neither a whole number of units to 1 nor ``"push"``."""
    if isinstance(value, Mapping):
        for hand, pays in value.items():
            is_push = isinstance(pays, str) and pays == "push"
            if not (is_push or (isinstance(pays, int) and not isinstance(pays, bool))):
                raise ValueError(f"{hand}: {pays!r} is neither a whole number of units "
                                 'to 1 nor "push"')
    return value


def poker_classes(value: dict[str, int | str]) -> dict[str, int | str]:
    return _check_classes(value, PokerHand)


def three_card_classes(value: dict[str, int | str]) -> dict[str, int | str]:
    return _check_classes(value, ThreeCardHand)


class HoldemStudRules(Rules):
    """Hold'em Stud: 2 cards, three streets to buy 3 community cards, a 5-card pay table."""

    game: Literal["holdem-stud"]
    # Three community cards, a decision before each is turned: the game's shape, not a knob.
    streets: Literal[3] = 3
    max_street_multiple: Annotated[int, Constrained(ge=1, le=MAX_MULTIPLE)]
    pays: Annotated[dict[str, Pays | Push], Before(pays_or_push), After(poker_classes)]
    bonus3_pays: Annotated[dict[str, Pays | Push], Before(pays_or_push),
                           After(three_card_classes)]

    def placeable_wagers(self) -> tuple[str, ...]:
        return ("ante", "bonus3")

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.pays:
            raise ValueError("pays: the pay table has no lines")
        if "bonus3" in self.limits and not self.bonus3_pays:
            raise ValueError("bonus3_pays: the pay table has no lines")
        if 3 + self.seats * 2 > 52:
            raise ValueError(f"seats: {self.seats} seats need more than 52 cards")

    def net_multiple(self, hand: PokerHand) -> int:
        """Net result per unit bet for a final hand: N to 1, 0 for a push, -1 to lose."""
        return _net(self.pays.get(hand.name.lower()))

    def bonus3_net_multiple(self, hand: ThreeCardHand) -> int:
        return _net(self.bonus3_pays.get(hand.name.lower()))

    def pay_table_fields(self) -> dict[str, str]:
        return {"ante": "pays", "bonus3": "bonus3_pays"}

    def decision_payouts(self) -> tuple[Payout, ...]:
        """Each street bet, up to the largest multiple of the largest Ante, paid on the
        Ante's table."""
        most = self.max_street_multiple * self.limits["ante"].max
        return tuple(Payout(f"street{street}", most, top_pay(self.pays.values()))
                     for street in range(3, 3 + self.streets))

    def ranked_pay_lines(self, wager: str) -> list[int | str]:
        classes = PokerHand if wager == "ante" else ThreeCardHand
        return [member.name.lower() for member in sorted(classes, key=lambda m: m.value)]


def _net(line: int | str | None) -> int:
    if line is None:
        return -1
    return 0 if line == "push" else int(line)


def _check_classes(value: dict[str, int | str], classes: type[PokerHand] | type[ThreeCardHand],
                   ) -> dict[str, int | str]:
    """Known hand names only, and no better hand paid less."""
    names = {member.name.lower() for member in classes}
    for key in value:
        if key not in names:
            raise ValueError(f"unknown hand {key!r}; known: {sorted(names)}")
    worst_first = sorted(classes, key=lambda member: member.value)
    check_rising("the pay table", [(member.name.lower(), _net(value.get(member.name.lower())))
                                   for member in worst_first])
    return value
