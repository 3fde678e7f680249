"""Terminal play: ``feltlab play RULESET``, a table in the terminal (one seat, or
``--seats N`` hands a round played by the same person).

Every round is a :class:`feltlab.engine.HandState`: the session only turns what the
player types into engine actions, shows the engine's :class:`~feltlab.engine.ActionError`
when the rules refuse one (and asks again), and prints the engine's
:class:`~feltlab.settle.Settlement`; no rule or payout is decided here. The one check of
its own is the bankroll: a player cannot put at risk more than the bankroll holds.

Input comes from a text stream and output goes to a Rich console, so a whole session can
be scripted:

>>> import io
>>> from rich.console import Console
>>> from feltlab.rules import load_rules
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, TextIO

import numpy as np
import typer
from rich import box
from rich.console import Console, JustifyMethod
from rich.table import Table
from rich.text import Text

from feltlab.cards import (
    COLOUR_SUITS,
    RANKS,
    SUIT_SYMBOLS,
    Card,
    secure_shuffle,
    seeded_shuffle,
    sort_by_suit,
)
from feltlab.engine import (
    STREET_NAMES,
    Action,
    ActionError,
    Bet,
    ChooseColour,
    Deal,
    Fold,
    HandState,
    Phase,
    PlaceWager,
    Play,
    Raise,
    Reveal,
    Settle,
)
from feltlab.evaluators import best_flush, colour_flush_count
from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, Rules, RulesError, load_rules
from feltlab.rulescard import rules_card, wager_title
from feltlab.terminal import fail

SUIT_STYLES = ("default", "red", "blue", "green")  # spades, hearts, diamonds, clubs
HIGHLIGHT = "bold underline reverse"
FACE_DOWN = "▒▒"
HELP_KEYS = ("?", "p")
QUIT_KEYS = ("q", "quit")
FOLD_KEYS = ("f", "fold")
# Result names that are decisions, with their position among the seat's non-zero decisions.
DECISION_WAGERS = {"raise": 0, "play": 0, **{name: i for i, name in enumerate(STREET_NAMES)}}

DeckSource = Callable[[], Sequence[Card]]


class QuitSession(Exception):
    """The player typed ``q`` or the input ended."""


def deck_source(seed: int | None) -> DeckSource:
    """Decks for a session: cryptographic shuffles, or, with a seed, one seeded generator
    for the whole session so that the same seed deals the same sequence of hands.

    >>> first, second = deck_source(5), deck_source(5)
    >>> [first() for _ in range(3)] == [second() for _ in range(3)]
    True
    """
    if seed is None:
        return secure_shuffle
    generator = np.random.default_rng(seed)
    return lambda: seeded_shuffle(generator)


def card_text(card: Card, highlight: bool = False) -> Text:
    """A card in its suit's colour (spades default, hearts red, diamonds blue, clubs green).

    >>> card_text(Card.parse("Th")).plain, card_text(Card.parse("Th")).style
    ('T♥', 'red')
    """
    style = SUIT_STYLES[card.suit] + (f" {HIGHLIGHT}" if highlight else "")
    return Text(RANKS[card.rank] + SUIT_SYMBOLS[card.suit], style=style)


def cards_text(cards: Sequence[Card], highlight_suit: int | None = None, *,
               sort: bool = True, hidden: int = 0) -> Text:
    """Cards side by side (grouped by suit unless ``sort`` is false), the cards of
    ``highlight_suit`` highlighted, then ``hidden`` face-down cards.

    >>> from feltlab.cards import parse_cards
    >>> cards_text(parse_cards("2c Ah 9h Ks"), highlight_suit=1, hidden=1).plain
    'K♠ A♥ 9♥ 2♣ ▒▒'
    """
    text = Text()
    shown = sort_by_suit(cards) if sort else list(cards)
    pieces = [card_text(card, card.suit == highlight_suit) for card in shown]
    pieces += [Text(FACE_DOWN, style="dim")] * hidden
    for position, piece in enumerate(pieces):
        if position:
            text.append(" ")
        text.append_text(piece)
    return text


def colour_suit(cards: Sequence[Card], colour: str) -> int | None:
    """The suit of ``colour`` holding the colour's flush cards (``None`` if it has none)."""
    count = colour_flush_count(cards, colour)
    suits = [suit for suit in COLOUR_SUITS[colour]
             if sum(card.suit == suit for card in cards) == count]
    return suits[0] if count else None


def whole_number(text: str) -> int | None:
    """``text`` as a whole number (``-3`` too: the rules refuse it), else ``None``.

    >>> whole_number(" 25 "), whole_number("-3"), whole_number("2.5")
    (25, -3, None)
    """
    digits = text.strip()
    return int(digits) if digits.lstrip("-").isdigit() else None


def parse_amount(answer: str, ante: int) -> int | None:
    """A typed amount: ``20`` units, or ``2x`` the ante; ``None`` if it is neither.

    >>> parse_amount("2x", 10), parse_amount("25", 10), parse_amount("lots", 10)
    (20, 25, None)
    """
    text = answer.strip().lower()
    if text.endswith("x"):
        multiple = whole_number(text[:-1])
        return None if multiple is None else multiple * ante
    return whole_number(text)


def signed(amount: int) -> str:
    return f"{amount:+,}" if amount else "0"


def outcome(net: int) -> str:
    return "won" if net > 0 else "lost" if net < 0 else "push"


def pretty_class(name: str) -> str:
    """``'high_pair'`` as ``'High pair'``."""
    return name.replace("_", " ").capitalize()


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
    _warned_round: int = field(default=-1, init=False, repr=False)  # short-bankroll warning

    def __post_init__(self) -> None:
        if not 1 <= self.seats <= self.rules.seats:
            raise ValueError(f"seats: {self.rules.id} has seats 1-{self.rules.seats}, "
                             f"cannot play {self.seats}")
        self.start_bankroll = self.bankroll

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
            elif state.phase is Phase.REVEAL:
                state.apply(Reveal())
                self._show_reveal(state)
            else:
                state.apply(Settle())
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

    # --- input ----------------------------------------------------------------------------

    def say(self, message: str | Text) -> None:
        self.console.print(Text(message) if isinstance(message, str) else message)

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
            if isinstance(self.rules, NineCardRules):
                self._choose_colour(state, seat)
            for name in (*self.rules.required_wagers, *self.rules.optional_wagers):
                self._take_wager(state, seat, name)

    def _choose_colour(self, state: HandState, seat: int) -> None:
        shortcuts = {"r": "red", "b": "black"}
        default = self.colours.get(seat, "red")
        while True:
            answer = self.ask(f"{self._label(seat)}Colour, red or black [{default}]: ").lower()
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

    def _least_to_play_on(self, state: HandState) -> tuple[int, str]:
        """What the seats with a hand need after the wagers to do more than fold: the
        smallest raise, Play or street bets the rules ask, and what it is called."""
        rules = self.rules
        antes = [hand.wagers[rules.main_wager] for hand in state.seats.values()
                 if rules.main_wager in hand.wagers]
        if isinstance(rules, FlushRules):
            return sum(antes), "a raise of 1x the Ante"
        if isinstance(rules, NineCardRules):
            return sum(antes), "the Play wager (equal to All 9)"
        return sum(antes) * rules.streets, (f"a 1x street bet on each of the {rules.streets} "
                                            "streets")

    def _warn_if_short(self, state: HandState, name: str) -> None:
        """Say, once a hand, when the wagers leave too little of the bankroll to play on."""
        needed, what = self._least_to_play_on(state)
        left = self.bankroll - self.at_risk(state)
        if left >= needed or self._warned_round == self.hands_played:
            return
        can_only_fold = left < needed // (self.rules.streets
                                          if isinstance(self.rules, HoldemStudRules) else 1)
        outcome = ("this hand can only fold" if can_only_fold else
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
        wagers = state.seats[seat].wagers
        rules = self.rules
        if isinstance(rules, NineCardRules):
            if answer in ("play", "b", "bet"):
                return Play(seat)
            return _not_a_choice(answer, self._choices_hint(state, seat))
        ante = wagers["ante"]
        amount = parse_amount(answer, ante)
        if isinstance(rules, FlushRules):
            if answer in ("r", "raise"):
                raises = self.payable_raises(state, seat) or state.legal_raises(seat)
                return Raise(seat, raises[0] if raises else ante)
            if amount is None:
                return _not_a_choice(answer, self._choices_hint(state, seat))
            return Raise(seat, amount)
        if answer in ("b", "bet"):
            return Bet(seat, ante)
        if amount is None:
            return _not_a_choice(answer, self._choices_hint(state, seat))
        return Bet(seat, amount)

    def left_to_bet(self, state: HandState) -> int:
        """The bankroll not yet on the table this round."""
        return self.bankroll - self.at_risk(state)

    def payable_raises(self, state: HandState, seat: int) -> range:
        """The engine's legal raises for ``seat`` that the bankroll can pay."""
        legal = state.legal_raises(seat)
        return range(legal.start, min(legal.stop, self.left_to_bet(state) + 1), legal.step)

    def payable_bets(self, state: HandState, seat: int) -> list[int]:
        """The engine's legal street bets for ``seat`` that the bankroll can pay."""
        return [bet for bet in state.legal_street_bets(seat) if bet <= self.left_to_bet(state)]

    def _cannot_pay(self, state: HandState, least: int, what: str) -> str | None:
        left = self.left_to_bet(state)
        if least <= left:
            return None
        return (f"your bankroll cannot cover {what} ({least:,} needed, {left:,} left), so "
                "this hand may only fold")

    def _choices_hint(self, state: HandState, seat: int) -> str:
        """What can be typed at this decision: only the options the engine allows for
        this hand under these rules and the bankroll can pay."""
        ante = state.seats[seat].wagers[self.rules.main_wager]
        if isinstance(self.rules, NineCardRules):
            short = self._cannot_pay(state, ante, "Play")
            return f"f to fold ({short})" if short else f"f to fold or play to bet Play ({ante:,})"
        if isinstance(self.rules, FlushRules):
            legal = state.legal_raises(seat)
            if not legal:
                return "f to fold: this hand may only fold"
            raises = self.payable_raises(state, seat)
            if not raises:
                return f"f to fold: {self._cannot_pay(state, legal[0], 'a raise')}"
            return "f to fold, " + _raise_hint(raises, ante)
        bets = self.payable_bets(state, seat)
        if not bets:
            return f"f to fold: {self._cannot_pay(state, ante, 'a street bet')}"
        multiples = _either([f"{bet // ante}x" for bet in bets])
        amounts = ", ".join(f"{bet:,}" for bet in bets)
        return f"f to fold, or {multiples} to bet that many antes ({amounts})"

    def _decision_bankroll_problem(self, state: HandState, action: Action) -> str | None:
        if isinstance(action, Raise | Bet):
            stake, what = action.amount, "raise" if isinstance(action, Raise) else "bet"
        elif isinstance(action, Play):
            stake, what = state.seats[action.seat].wagers["all9"], "Play"
        else:
            return None
        left = self.bankroll - self.at_risk(state)
        if stake <= left:
            return None
        return (f"a {what} of {stake:,} needs more than the {left:,} left in your bankroll "
                "after this hand's wagers")

    def _decision_prompt(self, state: HandState, seat: int) -> str:
        rules = self.rules
        wagers = state.seats[seat].wagers
        if isinstance(rules, FlushRules):
            legal = state.legal_raises(seat)
            if not legal:
                return "This hand may only fold. f = fold: "
            raises = self.payable_raises(state, seat)
            if not raises:
                return f"Not enough bankroll to raise ({legal[0]:,} needed). f = fold: "
            return f"f = fold; raise: {_raise_choices(raises, wagers['ante'])}: "
        if isinstance(rules, NineCardRules):
            if self._cannot_pay(state, wagers["all9"], "Play"):
                return f"Not enough bankroll for Play ({wagers['all9']:,} needed). f = fold: "
            return f"f = fold, play = bet Play ({wagers['all9']:,}): "
        bets = self.payable_bets(state, seat)
        street = wager_title(STREET_NAMES[state.street])
        if not bets:
            return (f"{street}: not enough bankroll for a street bet ({wagers['ante']:,} "
                    "needed). f = fold: ")
        multiples = "/".join(f"{bet // wagers['ante']}x" for bet in bets)
        return f"{street}: f = fold, or bet {multiples} ({', '.join(map(str, bets))}): "

    # --- what the player sees -------------------------------------------------------------

    def _show_decision(self, state: HandState, seat: int) -> None:
        hand = state.seats[seat]
        if isinstance(self.rules, FlushRules):
            self._show_flush_hand(f"{self._label(seat)}Your cards", hand.cards)
        elif isinstance(self.rules, NineCardRules):
            colour = hand.colour or "red"
            count = colour_flush_count(state.community, colour)
            self.say(Text(f"{self._label(seat)}Community: ").append_text(
                cards_text(state.community, colour_suit(state.community, colour)))
                .append(f"   ({count} {colour} flush card{'s' * (count != 1)})"))
        else:
            self._show_holdem_table(state, seat)
        self.say(Text(f"At risk: {self.at_risk(state):,}; bankroll {self.bankroll:,}",
                      style="dim"))

    def _show_flush_hand(self, title: str, cards: Sequence[Card]) -> None:
        flush = best_flush(cards)
        self.say(Text(f"{title}: ").append_text(cards_text(cards, flush.suit))
                 .append(f"   {flush.describe()}"))

    def _show_holdem_table(self, state: HandState, seat: int) -> None:
        turned = state.visible_community
        self.say(Text(f"{self._label(seat)}Your cards: ")
                 .append_text(cards_text(state.seats[seat].cards))
                 .append("   Community: ")
                 .append_text(cards_text(turned, sort=False,
                                         hidden=len(state.community) - len(turned))))

    def _show_reveal(self, state: HandState) -> None:
        if isinstance(self.rules, HoldemStudRules):
            self.say(Text("Turned: ").append_text(card_text(state.visible_community[-1])))
        elif isinstance(self.rules, NineCardRules):
            for seat in self.seat_numbers:
                self.say(Text(f"{self._label(seat)}Your 6 cards: ")
                         .append_text(cards_text(state.seats[seat].cards)))
        else:
            self.say(Text("The dealer turns the cards over.", style="dim"))

    def _show_settlement(self, state: HandState) -> None:
        if isinstance(self.rules, FlushRules):
            self._show_flush_hand("Dealer", state.dealer_cards)
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
        hand = state.seats[seat]
        settlement = hand.settlement
        assert settlement is not None, "a complete hand is settled"
        details = settlement.details
        label = self._label(seat)
        if isinstance(self.rules, FlushRules):
            qualifies = "qualifies" if details["dealer_qualifies"] else "does not qualify"
            self.say(f"{label}The dealer {qualifies}. You: {details['player_flush']}.")
        elif isinstance(self.rules, NineCardRules):
            nine = [*state.community, *hand.cards]
            colour = details["colour"]
            self.say(Text(f"{label}Your 9 cards: ")
                     .append_text(cards_text(nine, colour_suit(nine, colour)))
                     .append(f"   {details['flush_cards_9']} {colour} flush cards"))
        else:
            self._show_holdem_table(state, seat)
            self.say(f"{label}Your hand: {pretty_class(details['player_hand'])}"
                     f"{' (folded)' if details['folded'] else ''}; 3 Card Bonus hand: "
                     f"{pretty_class(details['bonus3_hand'])}.")
        self.console.print(self._settlement_table(state, seat))
        cap = self.rules.max_aggregate_payout
        if self.seats > 1 or settlement.capped:
            capped = (f" (the maximum aggregate payout of {cap:,} per hand applied)"
                      if settlement.capped and cap else "")
            self.say(f"{label}Total {signed(settlement.total)}{capped}.")
        return settlement.total

    def _settlement_table(self, state: HandState, seat: int) -> Table:
        hand = state.seats[seat]
        assert hand.settlement is not None
        decisions = [amount for amount in hand.decisions if amount]
        table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False)
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("Wager", "left"), ("Stake", "right"), ("Result", "left"), ("Net", "right"),
            ("On", "left"))
        for column, justify in columns:
            table.add_column(column, justify=justify)
        for name, net in hand.settlement.results.items():
            stake = (decisions[DECISION_WAGERS[name]] if name in DECISION_WAGERS
                     else hand.wagers[name])
            table.add_row(wager_title(name), f"{stake:,}", outcome(net), signed(net),
                          self._settled_on(state, seat, name))
        return table

    def _settled_on(self, state: HandState, seat: int, name: str) -> str:
        """What ``name`` was settled on, in words, from the settlement's details."""
        hand = state.seats[seat]
        assert hand.settlement is not None
        details = hand.settlement.details
        rules = self.rules
        if isinstance(rules, FlushRules):
            lost_on_fold = {"ante", *(wager for wager, kept in rules.settled_on_fold.items()
                                      if not kept)}
            if hand.folded and name in lost_on_fold:
                return "folded"
            if name == "flush":
                return f"{best_flush(hand.cards).length}-card flush"
            if name == "straight_flush":
                run = details["player_straight_flush"]
                return f"{run}-card straight flush" if run >= 2 else "no straight flush"
            return "" if details["dealer_qualifies"] else "dealer does not qualify"
        if isinstance(rules, NineCardRules):
            if name == "all9" and hand.folded:
                return "folded"
            counts = {"player6": ("flush_cards_player6", "your 6 cards"),
                      "first3": ("flush_cards_first3", "the community cards")}
            key, where = counts.get(name, ("flush_cards_9", "the 9 cards"))
            return f"{details[key]} flush card{'s' * (details[key] != 1)} in {where}"
        if name == "bonus3":
            return pretty_class(details["bonus3_hand"])
        return "folded" if details["folded"] else pretty_class(details["player_hand"])


def _not_a_choice(answer: str, choices: str) -> str:
    return f"{answer!r} is not a choice: type {choices}" if answer else f"type {choices}"


def _either(choices: list[str]) -> str:
    """``'1x, 2x or 3x'``."""
    return choices[0] if len(choices) == 1 else ", ".join(choices[:-1]) + " or " + choices[-1]


def _raise_hint(raises: range, ante: int) -> str:
    """The legal raises, for a hint after an answer that is not a choice.

    >>> _raise_hint(range(10, 31), 10)
    'r to raise 1x (10), or 2x or 3x to raise that many antes (20, 30), or any amount 10-30'
    >>> _raise_hint(range(5, 6), 5)
    'r to raise 1x (5)'
    """
    multiples = [amount for amount in raises if amount % ante == 0]
    hint = f"r to raise 1x ({raises[0]:,})"
    if len(multiples) > 1:
        more = multiples[1:]
        hint += (f", or {_either([f'{amount // ante}x' for amount in more])} to raise that "
                 f"many antes ({', '.join(f'{amount:,}' for amount in more)})")
    if len(multiples) < len(raises):
        hint += f", or any amount {raises[0]:,}-{raises[-1]:,}"
    return hint


def _raise_choices(raises: range, ante: int) -> str:
    """The legal raises as the player can type them.

    >>> _raise_choices(range(10, 31), 10)
    'r = 1x (10), 2x (20), 3x (30), or any amount 10-30'
    >>> _raise_choices(range(5, 6), 5)
    'r = 1x (5)'
    """
    multiples = [amount for amount in raises if amount % ante == 0]
    named = ", ".join(f"{amount // ante}x ({amount:,})" for amount in multiples)
    if len(multiples) == len(raises):
        return f"r = {named}"
    return f"r = {named}, or any amount {raises[0]:,}-{raises[-1]:,}"


def register(app: typer.Typer) -> None:
    """Add the ``play`` command to ``app``."""

    @app.command("play")
    def play_command(
        ruleset: Annotated[str, typer.Argument(help="A rule-set id or TOML file.")],
        seed: Annotated[int | None, typer.Option(
            help="Deal reproducible hands from this seed (one generator per session).")] = None,
        bankroll: Annotated[int, typer.Option(min=1, help="Starting bankroll.")] = 1000,
        seats: Annotated[int, typer.Option(
            min=1, help="Play this many hands a round, at seats 1, 2, ...")] = 1,
    ) -> None:
        """Play at a table in the terminal: wagers, decisions and settlement by the engine."""
        try:
            rules = load_rules(ruleset)
        except RulesError as error:
            fail(str(error))
        if seats > rules.seats:
            fail(f"--seats: {rules.id} has seats 1-{rules.seats}")
        PlaySession(rules, Console(), sys.stdin, deck_source(seed), bankroll, seats).run()
