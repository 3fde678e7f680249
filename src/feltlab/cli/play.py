"""Terminal play: ``feltlab play RULESET`` (:mod:`feltlab.cli.play_command`), a table in
the terminal (one seat, or ``--seats N`` hands a round played by the same person).

Every round is a :class:`feltlab.core.engine.HandState`: the session only turns what the
player types into engine actions, shows the engine's :class:`~feltlab.core.engine.ActionError`
when the rules refuse one (and asks again), and prints the engine's
:class:`~feltlab.core.settle.Settlement`; no rule or payout is decided here. The one check of
its own is the bankroll: a player cannot put at risk more than the bankroll holds.

Input comes from a text stream and output goes to a Rich console, so a whole session can
be scripted:

>>> import io
>>> from rich.console import Console
>>> from feltlab.core.rules import load_rules
>>> out = Console(file=io.StringIO(), width=100)
>>> script = io.StringIO("10\\n0\\n0\\nq\\n")  # Ante 10, no bonuses, then q at the decision
>>> session = PlaySession(load_rules("high-card-flush"), out, script, new_deck=deck_source(1))
>>> session.run()
>>> session.hands_played, session.bankroll  # leaving mid-hand folds the hand
(1, 990)
>>> "You leave the table: the hand is folded." in out.file.getvalue()
True
"""

from __future__ import annotations

import sys
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from rich import box
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from feltlab.cli.rulescard import rules_card
from feltlab.cli.table_text import (
    HIGHLIGHT,
    DeckSource,
    cards_text,
    deck_source,
    line_text,
    outcome,
    signed,
)
from feltlab.core import registry
from feltlab.core.cards import secure_shuffle
from feltlab.core.engine import (
    Action,
    ActionError,
    ChooseColour,
    Deal,
    Decide,
    Fold,
    HandState,
    Phase,
    PlaceWager,
    Reveal,
)
from feltlab.core.family import family_of, wager_title
from feltlab.core.rules import Rules
from feltlab.core.text import whole_number
from feltlab.core.views import Line
from feltlab.core.words import Words

HELP_KEYS = ("?", "p")
QUIT_KEYS = ("q", "quit")
FOLD_KEYS = ("f", "fold")

class QuitSession(Exception):
    """The player typed ``q`` or the input ended."""


@dataclass
class PlaySession:
    """One player at seats 1 to ``seats`` (one hand a seat), playing rounds until ``q``, the
    end of input, or a bankroll that cannot cover the minimum wagers."""

    rules: Rules
    console: Console
    stream: TextIO
    new_deck: DeckSource = secure_shuffle
    bankroll: int = 1000
    seats: int = 1
    hands: list[HandState] = field(default_factory=list)  # one per round played
    defaults: dict[tuple[int, str], int] = field(default_factory=dict)
    colours: dict[int, str] = field(default_factory=dict)
    leaving: bool = False
    start_bankroll: int = field(init=False)
    words: Words[Any] = field(init=False, repr=False)
    _warned_round: int = field(default=-1, init=False, repr=False)  # short-bankroll warning

    def __post_init__(self) -> None:
        if not 1 <= self.seats <= self.rules.seats:
            raise ValueError(f"seats: {self.rules.id} has seats 1-{self.rules.seats}, "
                             f"cannot play {self.seats}")
        self.start_bankroll = self.bankroll
        self.words = family_of(self.rules).words

    @property
    def hands_played(self) -> int:
        """Rounds played (with several seats, each round is one hand at every seat)."""
        return len(self.hands)

    @property
    def net(self) -> int:
        return self.bankroll - self.start_bankroll

    @property
    def seat_numbers(self) -> range:
        return range(1, self.seats + 1)

    # --- the session ----------------------------------------------------------------------

    def run(self) -> None:
        """Play rounds until the player leaves, then print the session summary."""
        self.say(Text(f"{self.rules.name}: bankroll {self.bankroll:,}. Type ? or p for the "
                      "rules card and pay tables, q to quit.", style="bold"))
        try:
            while self._can_cover_minimum():
                self.play_round()
        except QuitSession:
            pass
        played = self.hands_played
        plural = "s" if played != 1 else ""
        what = f"hand{plural}" if self.seats == 1 else f"round{plural} of {self.seats} hands"
        self.say(f"Session over: {played} {what} played, net {signed(self.net)}, "
                 f"bankroll {self.bankroll:,}.")

    def _can_cover_minimum(self) -> bool:
        needed = self.seats * sum(self.rules.limits[name].min
                                  for name in self.rules.required_wagers)
        if needed <= self.bankroll:
            return True
        titles = " and ".join(wager_title(name) for name in self.rules.required_wagers)
        seats = f" at {self.seats} seats" if self.seats > 1 else ""
        self.say(f"Your bankroll of {self.bankroll:,} cannot cover the minimum {titles}"
                 f"{seats} of {needed:,}.")
        return False

    def play_round(self) -> None:
        """One round: wagers, deal, decisions, reveals, settlement."""
        state = HandState(self.rules, self.new_deck())
        self.console.rule(Text(f"Hand {self.hands_played + 1} · bankroll {self.bankroll:,}"))
        self._take_wagers(state)  # quitting here costs nothing: no card is dealt yet
        state.apply(Deal())
        while state.phase is not Phase.COMPLETE:
            if state.phase is Phase.DECISIONS:
                self._decide(state)
            dealt = state.advance()  # the dealer's own steps, taken by the engine
            if any(isinstance(step, Reveal) for step in dealt):
                self.show(self.words.reveal_view(state, self.seat_numbers, self._label))
        self._show_settlement(state)
        if self.leaving:
            raise QuitSession

    def _label(self, seat: int) -> str:
        return f"Seat {seat}: " if self.seats > 1 else ""

    @staticmethod
    def at_risk(state: HandState) -> int:
        """Everything the player has on the table this round, at every seat."""
        return sum(sum(seat.wagers.values()) + sum(seat.decisions)
                   for seat in state.seats.values())

    # --- input and output -----------------------------------------------------------------

    def say(self, message: str | Text) -> None:
        self.console.print(Text(message) if isinstance(message, str) else message)

    def show(self, lines: Sequence[Line]) -> None:
        """The game's view lines, in colour."""
        for line in lines:
            self.say(line_text(line))

    def refuse(self, message: str) -> None:
        self.console.print(Text(f"Not allowed: {message}", style="bold red"))

    def read_line(self, prompt: str) -> str:
        """One line of input after ``prompt``; :class:`QuitSession` at the end of input."""
        if self.stream is sys.stdin and self.stream.isatty():
            try:
                return self.console.input(Text(prompt, style="bold"))
            except EOFError:
                self.console.print()
                raise QuitSession from None
        self.console.print(Text(prompt, style="bold"), end="")
        line = self.stream.readline()
        if not line:
            self.console.print()
            raise QuitSession
        self.console.print(Text(line.rstrip("\r\n")))  # echo, so a transcript reads right
        return line

    def ask(self, prompt: str) -> str:
        """The answer to ``prompt``, stripped; ``?``/``p`` show the rules card and ask
        again, ``q`` quits."""
        while True:
            answer = self.read_line(prompt).strip()
            if answer.lower() in HELP_KEYS:
                self.console.print(rules_card(self.rules))
            elif answer.lower() in QUIT_KEYS:
                raise QuitSession
            else:
                return answer

    # --- wagers ---------------------------------------------------------------------------

    def _take_wagers(self, state: HandState) -> None:
        for seat in self.seat_numbers:
            if state.steps.colours:
                self._choose_colour(state, seat)
            for name in (*self.rules.required_wagers, *self.rules.optional_wagers):
                self._take_wager(state, seat, name)

    def _choose_colour(self, state: HandState, seat: int) -> None:
        colours = state.steps.colours
        shortcuts = {colour[0]: colour for colour in colours}
        default = self.colours.get(seat, colours[0])
        while True:
            answer = self.ask(f"{self._label(seat)}Colour, {' or '.join(colours)} "
                              f"[{default}]: ").lower()
            colour = shortcuts.get(answer, answer) or default
            try:
                state.apply(ChooseColour(seat, colour))
            except ActionError as error:
                self.refuse(str(error))
                continue
            self.colours[seat] = colour
            return

    def _take_wager(self, state: HandState, seat: int, name: str) -> None:
        limit = self.rules.limits[name]
        required = name in self.rules.required_wagers
        default = self.defaults.get((seat, name), limit.min if required else 0)
        optional = "" if required else ", 0 = none"
        prompt = (f"{self._label(seat)}{wager_title(name)} ({limit.min}-{limit.max:,}"
                  f"{optional}) [{default}]: ")
        while True:
            answer = self.ask(prompt)
            amount = default if answer == "" else whole_number(answer)
            if amount is None:
                self.refuse(f"{wager_title(name)}: {answer!r} is not a whole number of units")
                continue
            problem = self._wager_problem(state, seat, name, amount, required)
            if problem:
                self.refuse(problem)
                continue
            state.apply(PlaceWager(seat, name, amount))
            self.defaults[seat, name] = amount
            if amount:
                self._warn_if_short(state, name)
            return

    def _warn_if_short(self, state: HandState, name: str) -> None:
        """Say, once a hand, when the wagers leave too little of the bankroll to play on."""
        main = self.rules.main_wager
        antes = sum(hand.wagers[main] for hand in state.seats.values() if main in hand.wagers)
        needed, next_needed, what = self.words.least_to_play_on(self.rules, antes)
        left = self.bankroll - self.at_risk(state)
        if left >= needed or self._warned_round == self.hands_played:
            return
        outcome = ("this hand can only fold" if left < next_needed else
                   "the hand cannot be played to the end")
        self.console.print(Text(
            f"Warning: after this {wager_title(name)}, {left:,} is left in your bankroll, "
            f"less than the {needed:,} {what} needs: {outcome}.", style="bold yellow"))
        self._warned_round = self.hands_played

    def _wager_problem(self, state: HandState, seat: int, name: str, amount: int,
                       required: bool) -> str | None:
        if required and amount == 0:
            return (f"{wager_title(name)} is required: at least "
                    f"{self.rules.limits[name].min}")
        try:
            state.verify(PlaceWager(seat, name, amount))
        except ActionError as error:
            return str(error)
        replaced = state.seats[seat].wagers.get(name, 0) if seat in state.seats else 0
        at_risk = self.at_risk(state) - replaced + amount
        if at_risk > self.bankroll:
            return (f"{wager_title(name)} of {amount:,} would put {at_risk:,} at risk; "
                    f"your bankroll is {self.bankroll:,}")
        return None

    # --- decisions ------------------------------------------------------------------------

    def _decide(self, state: HandState) -> None:
        seat = state.to_act
        assert seat is not None, "the engine is waiting for a decision"
        if self.leaving:
            state.apply(Fold(seat))
            return
        self._show_decision(state, seat)
        try:
            action = self._ask_decision(state, seat)
        except QuitSession:
            self.leaving = True
            self.say("You leave the table: the hand is folded.")
            action = Fold(seat)
        state.apply(action)

    def _decision_prompt(self, state: HandState, seat: int) -> str:
        return self.words.decision_prompt(state, seat, self.payable(state, seat))

    def _ask_decision(self, state: HandState, seat: int) -> Action:
        prompt = self._label(seat) + self._decision_prompt(state, seat)
        while True:
            answer = self.ask(prompt).lower()
            action = self._parse_decision(state, seat, answer)
            if isinstance(action, str):
                self.refuse(action)
                continue
            try:
                state.verify(action)
            except ActionError as error:
                self.refuse(str(error))
                continue
            problem = self._decision_bankroll_problem(state, action)
            if problem:
                self.refuse(problem)
                continue
            return action

    def _parse_decision(self, state: HandState, seat: int, answer: str) -> Action | str:
        """The action ``answer`` asks for, or a message saying what can be typed."""
        if answer in FOLD_KEYS:
            return Fold(seat)
        action = self.words.parse_decision(state, seat, answer, self.payable(state, seat))
        if action is None:
            return _not_a_choice(answer, self._choices_hint(state, seat))
        return action

    def left_to_bet(self, state: HandState) -> int:
        """The bankroll not yet on the table this round."""
        return self.bankroll - self.at_risk(state)

    def payable(self, state: HandState, seat: int) -> Sequence[int]:
        """The engine's legal stakes for ``seat``'s decision that the bankroll can pay."""
        legal = state.legal_amounts(seat)
        return legal[:bisect_right(legal, self.left_to_bet(state))]

    def _cannot_pay(self, state: HandState, least: int, what: str) -> str | None:
        left = self.left_to_bet(state)
        if least <= left:
            return None
        return (f"your bankroll cannot cover {what} ({least:,} needed, {left:,} left), so "
                "this hand may only fold")

    def _choices_hint(self, state: HandState, seat: int) -> str:
        """What can be typed at this decision: only the options the engine allows for
        this hand under these rules and the bankroll can pay."""
        return self.words.choices_hint(state, seat, self.payable(state, seat),
                                       lambda least, what: self._cannot_pay(state, least, what))

    def _decision_bankroll_problem(self, state: HandState, action: Action) -> str | None:
        stake = state.stake_of(action)
        if not stake:
            return None
        left = self.bankroll - self.at_risk(state)
        if stake <= left:
            return None
        kind = registry.decision_kind(action.kind) if isinstance(action, Decide) else None
        word = kind.word if kind is not None else "stake"
        return (f"a {word} of {stake:,} needs more than the "
                f"{left:,} left in your bankroll after this hand's wagers")

    # --- what the player sees -------------------------------------------------------------

    def _show_decision(self, state: HandState, seat: int) -> None:
        self.show(self.words.decision_view(state, seat, self._label(seat)))
        self.say(Text(f"At risk: {self.at_risk(state):,}; bankroll {self.bankroll:,}",
                      style="dim"))

    def _show_settlement(self, state: HandState) -> None:
        self.show(self.words.settlement_view(state))
        total = 0
        for seat in self.seat_numbers:
            total += self._show_seat_settlement(state, seat)
        self.bankroll += total
        self.hands.append(state)
        seats = " at all seats" if self.seats > 1 else ""
        self.say(Text(f"Total{seats} {signed(total)}. Bankroll {self.bankroll:,}.",
                      style="bold"))

    def _show_seat_settlement(self, state: HandState, seat: int) -> int:
        """Print one seat's hand and settlement; return its total."""
        settlement = state.seats[seat].settlement
        assert settlement is not None, "a complete hand is settled"
        label = self._label(seat)
        self.show(self.words.seat_settlement_view(state, seat, label))
        self.console.print(self._settlement_table(state, seat))
        cap = self.rules.max_aggregate_payout
        if self.seats > 1 or settlement.capped:
            capped = (f" (the maximum aggregate payout of {cap:,} per hand applied)"
                      if settlement.capped and cap else "")
            self.say(f"{label}Total {signed(settlement.total)}{capped}.")
        return settlement.total

    def _settlement_table(self, state: HandState, seat: int) -> Table:
        hand = state.seats[seat]
        settlement = hand.settlement
        assert settlement is not None
        stakes = state.steps.request_stakes(state.steps.payout_request(state, seat))
        table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False)
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("Wager", "left"), ("Stake", "right"), ("Result", "left"), ("Net", "right"),
            ("On", "left"))
        for column, justify in columns:
            table.add_column(column, justify=justify)
        for name, net in settlement.results.items():
            on = self.words.settled_on(self.rules, settlement.details, name, hand.folded,
                                       brief=True)
            table.add_row(wager_title(name), f"{stakes[name]:,}", outcome(net), signed(net), on)
        return table


def _not_a_choice(answer: str, choices: str) -> str:
    return f"{answer!r} is not a choice: type {choices}" if answer else f"type {choices}"


__all__ = ["HIGHLIGHT", "PlaySession", "QuitSession", "cards_text", "deck_source", "outcome",
           "signed"]
