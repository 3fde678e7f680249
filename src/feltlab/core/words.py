"""A game's words, split by who reads them: the rules (cards and documents), the table
(pages and trainers) and the terminal (``feltlab play``).

:class:`Words` is all three, the facet ``family.words``. A game gives only what its faces
show: the members with a body below have a plain default (no pay tables, a button per
decision kind, no open points, ...) that a game overrides where it has more to say.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from feltlab.core import registry
from feltlab.core.decisions import FOLD_NAME

if TYPE_CHECKING:
    from feltlab.core.cards import Card
    from feltlab.core.engine import Action, HandState
    from feltlab.core.rules import Rules
    from feltlab.core.views import Line

R = TypeVar("R", bound="Rules", contravariant=True)


@dataclass(frozen=True)
class TableView:
    """A pay table as the rules card prints it: a title, what a line counts, and rows of
    (line, pays)."""

    title: str
    unit: str
    rows: tuple[tuple[str, str], ...]


class RulesText(Protocol[R]):
    """What the rules card, ``feltlab rules`` and the rules document say of the game."""

    def card_lines(self, rules: R) -> list[str]:
        """The rules card's lines on how the game goes."""

    def procedure(self, rules: R, first: str) -> list[str]:
        """The dealing procedure step by step, after the wagers' step ``first``."""

    def card_tables(self, rules: R) -> list[TableView]:
        """The rules card's pay tables (none by default)."""
        return []

    def pay_table(self, rules: R, wager: str) -> dict[str, Any] | None:
        """The pay table a wager is paid on, as the pages show it (``None``: even money)."""
        return None

    def document_intro(self) -> list[str]:
        """The rules document's Markdown on the game, before its rule sets."""
        return []

    def document_section(self, rules: R) -> list[str]:
        """The rules document's Markdown on one rule set's own rules and pay tables (by
        default its card's lines)."""
        return [*(f"- {line}" for line in self.card_lines(rules)), ""]

    def open_points(self) -> list[tuple[str, str, str]]:
        """Points the posted rules leave open: (point, what feltlab does, where)."""
        return []


class TableWords(Protocol[R]):
    """What the table page, the dealer trainer and the strategy trainer show."""

    def deal_layout(self, rules: R) -> list[dict[str, Any]]:
        """The order the engine deals from the top of the deck (``per_seat``: once for
        each seat with a hand, in seat order)."""

    def hand_view(self, rules: R, player: Sequence[Card], dealer: Sequence[Card],
                  community: Sequence[Card], colour: str | None) -> dict[str, Any]:
        """The cards a round shows laid out for a page, bonus hands named apart; a
        ``headline`` in place of the player's hand's words under its cards, if given."""

    def settled_on(self, rules: R, details: Mapping[str, Any], wager: str, folded: bool,
                   brief: bool = False) -> str:
        """What a settled wager was paid on, in words (``brief``: as the terminal's
        settlement table says it)."""

    def decision_buttons(self, rules: R) -> list[dict[str, Any]]:
        """Every decision button a table page may show, in API v1's action form: by
        default a fold and one button per kind (a kind with an amount needs the game's
        own buttons, one per amount)."""
        kinds = registry.family(rules.game).decisions
        if any(kind.takes_amount for kind in kinds):
            raise NotImplementedError(f"{rules.game}: a decision with an amount needs its "
                                      "game's buttons")
        return [{"label": "Fold", "action": FOLD_NAME},
                *({"label": kind.label, "action": kind.name} for kind in kinds)]

    def decision_wagers(self, rules: R) -> list[dict[str, Any]]:
        """Wagers made by a decision (Raise, Play, street bets) and how they pay."""
        return []

    def drill_hand(self, rules: R, deck: Sequence[Card], randbelow: Callable[[int], int]
                   ) -> dict[str, Any]:
        """A random decision for the strategy trainer, from a shuffled deck (a game with
        an advisor, that is exact math, gives it)."""
        raise ValueError(f"{rules.game} has no strategy trainer: it has no exact math")

    def option_action(self, option: str, ante: int) -> tuple[str, dict[str, Any]]:
        """One of the advisor's options (as ``ExactMath.advise`` names it) as a button's
        label and API v1's action at this ante (by default: a kind without an amount)."""
        kind = registry.decision_kind(option)
        return (kind.label if kind else option.capitalize()), {"action": option}

    @property
    def advice_takes_bets(self) -> bool:
        """Whether the advisor needs the street bets made so far."""
        return False


class TerminalWords(Protocol[R]):
    """What ``feltlab play`` shows and asks at the table."""

    def least_to_play_on(self, rules: R, antes: int) -> tuple[int, int, str]:
        """What hands with ``antes`` on the main wager need to play on: to the end, for
        the next decision, and what that is called."""

    def decision_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        """What a seat sees when it decides."""

    def reveal_view(self, state: HandState, seats: Sequence[int],
                    label: Callable[[int], str]) -> list[Line]:
        """What the table sees after a reveal."""

    def settlement_view(self, state: HandState) -> list[Line]:
        """What the table sees before the seats' settlements (the dealer's hand)."""

    def seat_settlement_view(self, state: HandState, seat: int, label: str) -> list[Line]:
        """One seat's hand as settled."""

    def decision_prompt(self, state: HandState, seat: int, payable: Sequence[int]) -> str:
        """The terminal's prompt at a decision (``payable``: the legal stakes the
        bankroll covers)."""

    def choices_hint(self, state: HandState, seat: int, payable: Sequence[int],
                     short: Callable[[int, str], str | None]) -> str:
        """What can be typed at a decision (``short(least, what)``: why the bankroll
        cannot cover it, or ``None``)."""

    def parse_decision(self, state: HandState, seat: int, answer: str,
                       payable: Sequence[int]) -> Action | None:
        """The decision typed (not a fold), or ``None`` if the answer is not one."""


class Words(RulesText[R], TableWords[R], TerminalWords[R], Protocol[R]):
    """All of a game's words: the facet ``family.words``."""
