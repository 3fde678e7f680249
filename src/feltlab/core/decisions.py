"""The decisions a game's hands take, as the game's data.

A family declares its decision kinds (:attr:`~feltlab.core.family.GameFamily.decisions`):
each a name (API v1's ``"action"``), the word on its button, whether it takes an amount
(and what a refusal calls that amount) and what money it moves. Fold is every game's and
the engine's own. The engine, API v1, the action log, the pages' buttons and the terminal
follow from the declaration; nothing outside a game's folder lists the kinds.

>>> RAISE = DecisionKind("raise", "Raise", takes_amount=True)
>>> RAISE.log_type, RAISE.money
('Raise', 'stake')
>>> DecisionKind("pull_back", "Pull back half", money="refund").log_type
'PullBack'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FOLD_NAME = "fold"


@dataclass(frozen=True)
class DecisionKind:
    """One kind of decision: ``name`` as API v1 and the terminal write it, ``label`` on
    its button, ``takes_amount`` whether the player gives an amount (the game's legal
    amounts bound it), ``noun`` what a refusal calls its stake (``raise``, ``Play``), and
    ``money``: a ``stake`` put on the table (debited before the next card) or a
    ``refund`` of a wager, paid with the round's settlement."""

    name: str
    label: str
    takes_amount: bool = False
    noun: str = ""
    money: Literal["stake", "refund"] = "stake"

    @property
    def log_type(self) -> str:
        """The action log's ``type`` of this kind (``raise`` -> ``Raise``)."""
        return "".join(part.capitalize() for part in self.name.split("_"))

    @property
    def word(self) -> str:
        """What a refusal calls the decision's stake."""
        return self.noun or self.name


def kind_named(kinds: tuple[DecisionKind, ...], name: str) -> DecisionKind | None:
    """The kind called ``name`` among ``kinds``, or ``None``."""
    for kind in kinds:
        if kind.name == name:
            return kind
    return None
