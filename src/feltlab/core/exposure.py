"""The house's exposure to one seat on one round: the most a rule set can pay it, from the
rule set's data alone (pay tables and limits), before the aggregate payout cap.

A round pays a seat in a few ways, each a :class:`Payout`: a wager or a decision's stake
(a raise, a street bet, a Play), the most it can carry at the rule set's maximum wagers,
and the most it pays per unit (the top line of its pay table, 1 for even money). Each
rule-set model names its own (:meth:`feltlab.core.rules.Rules.payouts`); the exposure is
their sum, as if every payout hit its top line at once. That is a sound upper bound on
what one seat can win on one round, and for every built-in rule set the exact maximum
(one hand reaches every top line: a 7-card straight flush raised to the most, a royal
flush on a 3-card straight flush board, nine cards of the chosen colour). A new way of
paying (a decision that returns money mid-round) is one more :class:`Payout`.

>>> from feltlab.core.rules import load_rules
>>> exposure(load_rules("nh-flush-poker")).total
4030
>>> print(exposure(load_rules("nh-flush-poker")).describe())
ante 10 x 1 + raise 20 x 1 + flush 10 x 200 + straight_flush 10 x 200
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from feltlab.core.rules import Rules

DEFAULT_EXPOSURE_LIMIT: Final = 1_000_000
"""The house exposure limit when none is set, in units: above every built-in rule set's
exposure (the largest, High Card Flush's, is 834,000) and above that of any design with a
built-in's limits and pays no higher than its own, whatever its raise or street-bet
multiples (at most 851,000)."""


@dataclass(frozen=True)
class Payout:
    """One way a round pays a seat: ``most_staked`` units at most, paid at most
    ``most_paid`` to 1."""

    name: str
    most_staked: int
    most_paid: int

    @property
    def most_won(self) -> int:
        return self.most_staked * self.most_paid

    def describe(self) -> str:
        return f"{self.name} {self.most_staked:,} x {self.most_paid:,}"


@dataclass(frozen=True)
class Exposure:
    """Every payout of a rule set at its maximum wagers; :attr:`total` is the most one
    seat can win on one round."""

    payouts: tuple[Payout, ...]

    @property
    def total(self) -> int:
        return sum(payout.most_won for payout in self.payouts)

    def describe(self) -> str:
        """The sum spelt out: ``ante 1,000 x 1 + raise 3,000 x 1 + ...``."""
        return " + ".join(payout.describe() for payout in self.payouts if payout.most_won)


def exposure(rules: Rules) -> Exposure:
    """The rule set's exposure: its payouts at its maximum wagers."""
    return Exposure(tuple(rules.payouts()))


def top_pay(pays: Iterable[int | str]) -> int:
    """The most a pay table pays, N to 1 (a push, written ``"push"``, pays 0).

    >>> top_pay([1, 10, 300]), top_pay(["push"])
    (300, 0)
    """
    return max((pay for pay in pays if isinstance(pay, int)), default=0)
