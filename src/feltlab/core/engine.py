"""The hand engine: one round of a game at a table, as a state machine.

A :class:`HandState` is built from a rule set and a deck (so a round is reproducible from
its deck) and moves through explicit :class:`Phase` values as typed, immutable actions
are applied. Every action is verified first (:meth:`HandState.verify` raises
:class:`ActionError`, :meth:`HandState.can` answers yes or no) and a refused action
leaves the state as it was. The list of applied actions is the round's history:
:meth:`HandState.replay` rebuilds the state from the rule set, the deck and that log.

The state machine and the actions are the same for every game; what differs (how the
cards are dealt and revealed, the decision a hand plays on with, how a seat is settled)
is the game family's :class:`~feltlab.core.family.EngineSteps`. Seats are numbered from 1
(the dealer's left, first to act); cards are dealt from the top of the deck in seat
order, as each game's procedure says.

>>> from feltlab.core.cards import parse_cards, full_deck
>>> from feltlab.core.rules import load_rules
>>> hand = HandState(load_rules("high-card-flush"), full_deck())
>>> for action in (PlaceWager(1, "ante", 10), Deal(), Decide(1, "raise", 10), Reveal(), Settle()):
...     hand.apply(action)
>>> hand.phase, hand.seats[1].settlement.total
(<Phase.COMPLETE: 'complete'>, 20)

(An unshuffled deck gives the player 2-8 of spades, a 7-card flush, against the dealer's
5-card flush: Ante and Raise win.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any

from feltlab.core import registry
from feltlab.core.cards import Card, CardError, ensure_distinct
from feltlab.core.decisions import FOLD_NAME, kind_named
from feltlab.core.family import family_of
from feltlab.core.rules import Rules
from feltlab.core.settle import Settlement, WagerError, check_wagers

if TYPE_CHECKING:
    from feltlab.core.family import EngineSteps


class ActionError(ValueError):
    """An action the rules refuse in the current state; the state is unchanged."""


class Phase(Enum):
    WAGERS = "wagers"
    DECISIONS = "decisions"
    REVEAL = "reveal"
    SETTLE = "settle"
    COMPLETE = "complete"


@dataclass(frozen=True)
class PlaceWager:
    """Put ``amount`` on ``wager`` at ``seat`` (0 takes the wager back)."""

    seat: int
    wager: str
    amount: int


@dataclass(frozen=True)
class ChooseColour:
    """9 Card Flush: the colour the seat's wagers are on."""

    seat: int
    colour: str


@dataclass(frozen=True)
class Deal:
    """Close the wagers and deal the first cards."""


@dataclass(frozen=True)
class Fold:
    """Give up the hand (every game's other choice): its wagers are lost."""

    seat: int


@dataclass(frozen=True)
class Decide:
    """A decision of one of the game's own kinds (:attr:`GameFamily.decisions
    <feltlab.core.family.GameFamily.decisions>`): ``Decide(1, "raise", 20)``,
    ``Decide(1, "play")``. ``amount`` is given exactly when the kind takes one."""

    seat: int
    kind: str
    amount: int | None = None


@dataclass(frozen=True)
class Reveal:
    """The dealer's next reveal: the dealer's hand, the players' 6 cards or a community card."""


@dataclass(frozen=True)
class Settle:
    """Settle every wager at the table."""


Action = PlaceWager | ChooseColour | Deal | Fold | Decide | Reveal | Settle
ACTION_TYPES: dict[str, type[Action]] = {
    cls.__name__: cls for cls in (PlaceWager, ChooseColour, Deal, Fold, Decide, Reveal, Settle)
}
_CHECK: dict[type, str] = {cls: f"_verify_{name.lower()}" for name, cls in ACTION_TYPES.items()}
_CARRY_OUT: dict[type, str] = {cls: f"_do_{name.lower()}" for name, cls in ACTION_TYPES.items()}
"""Each action type's methods, by name (looked up a few hundred times a round)."""


def action_to_json(action: Action) -> dict[str, object]:
    """An action as a JSON-ready object (how a server stores a round's log). A decision
    is written by its kind (``Raise``, ``Play``), as round logs have always had it.

    >>> action_to_json(Decide(2, "raise", 30))
    {'type': 'Raise', 'seat': 2, 'amount': 30}
    >>> action_to_json(Decide(1, "play"))
    {'type': 'Play', 'seat': 1}
    """
    if isinstance(action, Decide):
        kind = registry.decision_kind(action.kind)
        written: dict[str, object] = {"type": kind.log_type if kind else action.kind,
                                      "seat": action.seat}
        if action.amount is not None:
            written["amount"] = action.amount
        return written
    return {"type": type(action).__name__, **vars(action)}


def action_from_json(data: object) -> Action:
    """The action stored by :func:`action_to_json`; refuses anything else by name.

    >>> action_from_json({"type": "PlaceWager", "seat": 1, "wager": "ante", "amount": 5})
    PlaceWager(seat=1, wager='ante', amount=5)
    >>> action_from_json({"type": "Bet", "seat": 2, "amount": 10})
    Decide(seat=2, kind='bet', amount=10)
    """
    written = data.get("type") if isinstance(data, dict) else None
    kind = registry.decision_logged(written) if isinstance(written, str) else None
    if not isinstance(data, dict) or written == "Decide" or (
            kind is None and written not in ACTION_TYPES):
        known = [name for name in ACTION_TYPES if name != "Decide"]
        known += [each.log_type for each in registry.decision_kinds()]
        raise ActionError(f"not an action: {data!r}; types are {', '.join(known)}")
    fields = {key: value for key, value in data.items() if key != "type"}
    try:
        if kind is not None:
            if ("amount" in fields) != kind.takes_amount:
                raise TypeError("an amount is needed" if kind.takes_amount
                                else "it takes no amount")
            return Decide(kind=kind.name, **fields)
        return ACTION_TYPES[data["type"]](**fields)
    except TypeError as error:
        raise ActionError(f"action {data['type']}: {error}") from error


@dataclass
class SeatState:
    """One seated player's wagers, cards, decisions and, at the end, settlement."""

    wagers: dict[str, int] = field(default_factory=dict)
    colour: str | None = None
    cards: list[Card] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)  # per decision: its stake, 0 for none
    choices: list[str] = field(default_factory=list)  # per decision: its kind (or "fold")
    folded: bool = False
    settlement: Settlement | None = None


class HandState:
    """One round at a table under one rule set, dealt from ``deck``."""

    def __init__(self, rules: Rules, deck: Sequence[Card]) -> None:
        try:
            ensure_distinct(deck)
        except CardError as error:
            raise ActionError(f"deck: {error}") from error
        self.rules = rules
        self.deck = tuple(deck)
        self.phase = Phase.WAGERS
        self.seats: dict[int, SeatState] = {}
        self.dealer_cards: list[Card] = []
        self.community: list[Card] = []
        self.revealed = 0  # community cards turned, or cards revealed
        self.street = 0  # decision round (Hold'em Stud has three)
        self.log: list[Action] = []
        self._next_card = 0
        self._dealt_seats: tuple[int, ...] | None = None  # active seats, fixed at the deal

    @property
    def steps(self) -> EngineSteps[Any]:
        """The game's own steps (its family's engine)."""
        return family_of(self.rules).engine

    # --- the verify / can / apply trio ------------------------------------------------

    def verify(self, action: Action) -> None:
        """Raise :class:`ActionError` naming the broken rule unless ``action`` is allowed."""
        check = _CHECK.get(type(action))
        if check is None:
            raise ActionError(f"not an action: {action!r}")
        try:
            getattr(self, check)(action)
        except (WagerError, CardError) as error:
            raise ActionError(str(error)) from error

    def can(self, action: Action) -> bool:
        try:
            self.verify(action)
        except ActionError:
            return False
        return True

    def apply(self, action: Action) -> None:
        """Verify ``action`` and carry it out; on refusal nothing changes."""
        self.verify(action)
        self._carry_out(action)

    def _carry_out(self, action: Action) -> None:
        getattr(self, _CARRY_OUT[type(action)])(action)
        self.log.append(action)

    @classmethod
    def replay(cls, rules: Rules, deck: Sequence[Card], actions: Iterable[Action], *,
               verified: bool = False) -> HandState:
        """Rebuild a round from its rule set, deck and action log. ``verified``: the log
        is one this engine verified action by action as it was made (a server's stored
        round, its rule set's fingerprint checked), so it is carried out without checking
        each action again; a log from elsewhere is checked."""
        state = cls(rules, deck)
        for action in actions:
            if verified:
                state._carry_out(action)
            else:
                state.apply(action)
        return state

    # --- who acts -----------------------------------------------------------------------

    @property
    def active_seats(self) -> list[int]:
        """Seats with the required wagers placed, in dealing order."""
        if self._dealt_seats is not None:  # asked many times a decision: kept at the deal
            return list(self._dealt_seats)
        required = self.rules.required_wagers
        return sorted(seat for seat, state in self.seats.items()
                      if all(name in state.wagers for name in required))

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is awaited, or ``None``."""
        if self.phase is not Phase.DECISIONS:
            return None
        for seat in self.active_seats:
            state = self.seats[seat]
            if not state.folded and len(state.decisions) == self.street:
                return seat
        return None

    # --- verification -------------------------------------------------------------------

    def _require(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise ActionError(f"{what} is not allowed in the {self.phase.value} phase "
                              f"(only in the {phase.value} phase)")

    def _require_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= self.rules.seats:
            raise ActionError(f"seat {seat!r} does not exist: {self.rules.id} has seats "
                              f"1-{self.rules.seats}")

    def _require_turn(self, seat: int, what: str) -> None:
        self._require(Phase.DECISIONS, what)
        self._require_seat(seat)
        if seat not in self.active_seats:
            raise ActionError(f"seat {seat} has no hand in this round")
        if self.to_act != seat:
            raise ActionError(f"seat {seat} is acting out of turn: seat {self.to_act} acts next")

    def _verify_placewager(self, action: PlaceWager) -> None:
        self._require(Phase.WAGERS, "placing a wager")
        self._require_seat(action.seat)
        current = dict(self.seats[action.seat].wagers) if action.seat in self.seats else {}
        current[action.wager] = action.amount
        _check_partial(self.rules, current)

    def _verify_choosecolour(self, action: ChooseColour) -> None:
        self._require(Phase.WAGERS, "choosing a colour")
        self._require_seat(action.seat)
        colours = self.steps.colours
        if not colours:
            raise ActionError(f"{self.rules.id} has no colours to choose")
        if action.colour not in colours:
            raise WagerError(f"colour must be {' or '.join(map(repr, colours))}, "
                             f"got {action.colour!r}")

    def _verify_deal(self, action: Deal) -> None:
        self._require(Phase.WAGERS, "dealing")
        if not self.active_seats:
            wagers = " and ".join(self.rules.required_wagers)
            raise ActionError(f"no seat has placed the required {wagers}: nothing to deal")
        for seat in self.active_seats:
            check_wagers(self.rules, self.seats[seat].wagers)
            self.steps.check_ready(self, seat)
        needed = self.steps.cards_needed(self.rules, len(self.active_seats))
        if needed > len(self.deck):
            raise ActionError(f"the deck has {len(self.deck)} cards; this round needs {needed}")

    def _verify_fold(self, action: Fold) -> None:
        self._require_turn(action.seat, "folding")

    def _verify_decide(self, action: Decide) -> None:
        kinds = family_of(self.rules).decisions
        kind = kind_named(kinds, action.kind)
        if kind is None:
            offered = ", ".join(each.name for each in kinds)
            raise ActionError(f"{self.rules.id} has no {action.kind!r} decision; its "
                              f"decisions are fold, {offered}")
        self._require_turn(action.seat, f"a {kind.word}")
        if kind.takes_amount and action.amount is None:
            raise ActionError(f"action {kind.name} needs an amount")
        if not kind.takes_amount and action.amount is not None:
            raise ActionError(f"action {kind.name} takes no amount")
        self.steps.check_decision(self, action.seat, action)

    def _verify_reveal(self, action: Reveal) -> None:
        self._require(Phase.REVEAL, "revealing")

    def _verify_settle(self, action: Settle) -> None:
        self._require(Phase.SETTLE, "settling")

    # --- carrying out -------------------------------------------------------------------

    def draw(self, count: int) -> list[Card]:
        """The next ``count`` cards from the top of the deck (for the game's steps)."""
        cards = list(self.deck[self._next_card:self._next_card + count])
        self._next_card += count
        return cards

    def _do_placewager(self, action: PlaceWager) -> None:
        state = self.seats.setdefault(action.seat, SeatState())
        if action.amount:
            state.wagers[action.wager] = action.amount
        else:
            state.wagers.pop(action.wager, None)

    def _do_choosecolour(self, action: ChooseColour) -> None:
        self.seats.setdefault(action.seat, SeatState()).colour = action.colour

    def _do_deal(self, action: Deal) -> None:
        active = self.active_seats
        for seat in [seat for seat in self.seats if seat not in active]:
            del self.seats[seat]  # a bonus without the required wager does not play
        self._dealt_seats = tuple(active)
        self.steps.deal(self)
        self.phase = Phase.DECISIONS
        self.after_decision()

    def _decide(self, seat: int, kind: str, amount: int) -> None:
        state = self.seats[seat]
        state.decisions.append(amount)
        state.choices.append(kind)
        state.folded = kind == FOLD_NAME
        self.after_decision()

    def _do_fold(self, action: Fold) -> None:
        self._decide(action.seat, FOLD_NAME, 0)

    def _do_decide(self, action: Decide) -> None:
        self._decide(action.seat, action.kind, self.stake_of(action))

    def after_decision(self) -> None:
        """Go on to the reveal once nobody is left to decide."""
        if self.to_act is None:
            self.phase = Phase.REVEAL

    def _do_reveal(self, action: Reveal) -> None:
        self.steps.reveal(self)

    def _do_settle(self, action: Settle) -> None:
        for seat in self.active_seats:
            self.seats[seat].settlement = self.steps.settle(self, self.seats[seat])
        self.phase = Phase.COMPLETE

    # --- views --------------------------------------------------------------------------

    @property
    def visible_community(self) -> list[Card]:
        return self.community[:self.revealed]

    def _seated(self, seat: int) -> SeatState:
        if seat not in self.active_seats:
            raise ActionError(f"seat {seat} has no hand in this round")
        return self.seats[seat]

    def stake_of(self, action: Action) -> int:
        """What an action puts on the table: a wager's amount, a decision's stake."""
        if isinstance(action, PlaceWager):
            return action.amount
        if isinstance(action, Decide):
            return self.steps.stake(self, action.seat, action)
        return 0

    def legal_amounts(self, seat: int) -> Sequence[int]:
        """The stakes ``seat``'s decision may take now, smallest first (empty if it may
        only fold)."""
        self._seated(seat)
        return self.steps.legal_amounts(self, seat)

    def legal_raises(self, seat: int) -> range:
        """Amounts open to ``seat``'s decision now when they are a range (a raise; empty
        if it may only fold, or if the game's amounts are not a range)."""
        amounts = self.legal_amounts(seat)
        return amounts if isinstance(amounts, range) else range(0)

    def legal_street_bets(self, seat: int) -> list[int]:
        """Amounts open to ``seat``'s decision now when they are a few (street bets)."""
        amounts = self.legal_amounts(seat)
        return [] if isinstance(amounts, range) else list(amounts)

    def decision_action(self, seat: int, amount: int) -> Action:
        """The game's main decision at ``seat`` for a stake of ``amount`` (0: a fold):
        the first kind the family declares."""
        if amount == 0:
            return Fold(seat)
        kind = family_of(self.rules).decisions[0]
        return Decide(seat, kind.name, amount if kind.takes_amount else None)

    def choices(self, seat: int) -> list[Action]:
        """Every decision open to ``seat`` now: a fold, then each kind the game offers at
        each of its amounts (:meth:`~feltlab.core.family.EngineSteps.open_kinds`)."""
        self._seated(seat)
        found: list[Action] = [Fold(seat)]
        for kind, amounts in self.steps.open_kinds(self, seat):
            if kind.takes_amount:
                found += [Decide(seat, kind.name, amount) for amount in amounts]
            else:
                found.append(Decide(seat, kind.name))
        return found

    # --- the dealer's automatic steps ----------------------------------------------------

    def dealer_step(self) -> Action | None:
        """The dealer's next action (a reveal, then the settlement), or ``None`` when a
        player must act or the round is complete."""
        if self.phase is Phase.REVEAL:
            return Reveal()
        if self.phase is Phase.SETTLE:
            return Settle()
        return None

    def advance(self) -> list[Action]:
        """Carry out the dealer's steps up to the next player's decision or the end (the
        state owns its automatic steps); the actions taken, in order."""
        taken: list[Action] = []
        while (step := self.dealer_step()) is not None:
            self.apply(step)
            taken.append(step)
        return taken


def _check_partial(rules: Rules, wagers: dict[str, int]) -> None:
    """Check placed wagers (the required ones may still be missing)."""
    placed = {name: amount for name, amount in wagers.items() if amount != 0}
    required = {name: rules.limits[name].min for name in rules.required_wagers
                if name not in placed}
    # Zero amounts stay in so that an unknown wager name is refused even when taken back.
    check_wagers(rules, {**wagers, **required})


__all__ = ["ACTION_TYPES", "Action", "ActionError", "ChooseColour", "Deal", "Decide", "Fold",
           "HandState", "Phase", "PlaceWager", "Reveal", "SeatState", "Settle",
           "action_from_json", "action_to_json"]
