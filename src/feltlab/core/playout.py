"""Rounds played through the engine: the generic path for a game without a compiled
kernel or exact math (the simulator's and the Monte Carlo estimates' one loop).

A round is a :class:`~feltlab.core.engine.HandState` driven to the end: every seat places
the same bets, a :data:`Policy` takes each decision, the dealer's steps follow
(:meth:`~feltlab.core.engine.HandState.advance`). Slower than a compiled kernel (thousands
of rounds a second), but it needs nothing of a game beyond its engine steps.

The money a round moves is reported per wager *slot*, as the compiled kernels report it:
one slot per placed wager, where the wagers a decision makes (Raise, Play, street bets)
count with the game's first required wager (its main game), and ``total``, the seat's
capped total.

>>> from feltlab.core.rules import load_rules
>>> rules = load_rules("high-card-flush")
>>> tally = play_rounds(rules, {"ante": 1}, seats=2, rounds=200, seed=7)
>>> tally.slots, tally.rounds, sum(tally.wins[0:1] + tally.pushes[0:1] + tally.losses[0:1])
(('ante', 'total'), 200, 400)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from feltlab.core.cards import Card, full_deck
from feltlab.core.decisions import FOLD_NAME
from feltlab.core.engine import Action, ChooseColour, Deal, Fold, HandState, PlaceWager
from feltlab.core.family import family_of
from feltlab.core.rules import Rules
from feltlab.core.settle import Settlement

Policy = Callable[[HandState, int], Action]
"""Takes the decision of seat ``seat`` in ``state`` (one of ``state.choices(seat)``)."""

DEFAULT_STRATEGY: Final = "default"
"""The strategy a game without exact math is played by (:func:`default_policy`)."""


def default_policy(state: HandState, seat: int) -> Action:
    """Play on with the least: the game's first open decision kind at its smallest legal
    amount (a fold only when nothing else is open). Never the best play, but one every
    game has and a reproducible baseline for its house edge.

    >>> from feltlab.core.rules import load_rules
    >>> state = HandState(load_rules("high-card-flush"), full_deck())
    >>> state.apply(PlaceWager(1, "ante", 10)); state.apply(Deal())
    >>> default_policy(state, 1)
    Decide(seat=1, kind='raise', amount=10)
    """
    choices = state.choices(seat)
    return choices[1] if len(choices) > 1 else choices[0]


def main_slot(rules: Rules) -> str:
    """The slot a decision's wagers count in: the first required wager's."""
    return rules.required_wagers[0]


@dataclass
class Tally:
    """Integer sums over rounds per slot: the nets summed over the seats of a round, their
    squares (the round is the unit of sampling: seats share the dealer's cards), and
    seat-hands won, pushed and lost; and how often each decision kind was taken."""

    slots: tuple[str, ...]
    rounds: int = 0
    net_sums: list[int] = field(default_factory=list)
    square_sums: list[int] = field(default_factory=list)
    wins: list[int] = field(default_factory=list)
    pushes: list[int] = field(default_factory=list)
    losses: list[int] = field(default_factory=list)
    choices: dict[str, int] = field(default_factory=dict)
    outcomes: list[dict[tuple[int, int], int]] = field(default_factory=list)
    """Per slot: (seat net, seat's staked total) -> seat-hands, for a return table."""

    def __post_init__(self) -> None:
        for each in (self.net_sums, self.square_sums, self.wins, self.pushes, self.losses):
            each.extend([0] * (len(self.slots) - len(each)))
        self.outcomes.extend({} for _ in range(len(self.slots) - len(self.outcomes)))

    def add(self, nets: list[list[int]], staked: list[list[int]]) -> None:
        """One round: ``nets[seat][slot]`` and what each seat staked in each slot."""
        self.rounds += 1
        for slot in range(len(self.slots)):
            round_net = 0
            for seat_nets, seat_staked in zip(nets, staked, strict=True):
                net = seat_nets[slot]
                round_net += net
                if net > 0:
                    self.wins[slot] += 1
                elif net < 0:
                    self.losses[slot] += 1
                else:
                    self.pushes[slot] += 1
                key = (net, seat_staked[slot])
                self.outcomes[slot][key] = self.outcomes[slot].get(key, 0) + 1
            self.net_sums[slot] += round_net
            self.square_sums[slot] += round_net * round_net


def slot_nets(rules: Rules, bets: Mapping[str, int], state: HandState, seat: int,
              settlement: Settlement) -> tuple[list[int], list[int]]:
    """One seat's net and stake per slot (``total`` last: the capped total, on all the
    wagers and decisions staked)."""
    slots = [*bets]
    main = slots.index(main_slot(rules))
    nets = [0] * (len(slots) + 1)
    staked = [*bets.values(), 0]
    for name, net in settlement.results.items():
        nets[slots.index(name) if name in bets else main] += net
    decided = sum(state.seats[seat].decisions)
    staked[main] += decided
    nets[-1] = settlement.total
    staked[-1] = sum(bets.values()) + decided
    return nets, staked


def play_round(rules: Rules, bets: Mapping[str, int], seats: int, deck: Sequence[Card],
               policy: Policy = default_policy, choices: dict[str, int] | None = None
               ) -> HandState:
    """One round dealt from ``deck`` (in its order) to ``seats`` seats with ``bets``
    each, ``policy`` deciding, to its settlement; each decision taken is counted in
    ``choices`` by its kind's name."""
    state = HandState(rules, deck)
    colours = family_of(rules).engine.colours
    for seat in range(1, seats + 1):
        for name, amount in bets.items():
            state.apply(PlaceWager(seat, name, amount))
        if colours:  # the colours are alike: the first, always
            state.apply(ChooseColour(seat, colours[0]))
    state.apply(Deal())
    state.advance()
    while (seat_to_act := state.to_act) is not None:
        action = policy(state, seat_to_act)
        state.apply(action)
        if choices is not None:
            name = FOLD_NAME if isinstance(action, Fold) else getattr(action, "kind", "")
            choices[name] = choices.get(name, 0) + 1
        state.advance()
    return state


def play_rounds(rules: Rules, bets: Mapping[str, int], seats: int, rounds: int,
                seed: int | str,
                policy: Policy = default_policy, tally: Tally | None = None,
                every: int = 0, progress: Callable[[int], None] | None = None) -> Tally:
    """Deal ``rounds`` rounds of ``seats`` seats with ``bets`` each (every required wager
    among them), ``policy`` deciding; the same seed deals the same rounds. ``progress``
    is called with the rounds done every ``every`` rounds."""
    tally = tally if tally is not None else Tally((*bets, "total"))
    shuffler = random.Random(seed)
    deck = list(full_deck())
    for done in range(rounds):
        shuffler.shuffle(deck)
        state = play_round(rules, bets, seats, deck, policy, tally.choices)
        nets, staked = [], []
        for seat in state.active_seats:
            settlement = state.seats[seat].settlement
            assert settlement is not None
            seat_nets, seat_staked = slot_nets(rules, bets, state, seat, settlement)
            nets.append(seat_nets)
            staked.append(seat_staked)
        tally.add(nets, staked)
        if progress is not None and every and (done + 1) % every == 0:
            progress(done + 1)
    return tally
