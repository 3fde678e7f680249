"""A money request played in memory, through the engine
(:class:`feltlab.core.engine.HandState`), the same way at every table: a private table
is a table with one seat, no timers and its seeds derived; a shared one takes its
players' bets into a betting window, deals when all of them have bet (or the window
closes), and folds a player whose decision timer runs out.

Each step answers :class:`Played`: the round as it now is, the actions it appended, the
seats it changed and the money it moves (:class:`feltlab.server.services.ledger.Move`:
stakes, and at the settlement every seat's payout). Nothing here touches the database:
the ledger posts the money and :mod:`feltlab.server.services.round_writes` the rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property

from feltlab.core.decisions import FOLD_NAME, kind_named
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
    action_to_json,
)
from feltlab.core.family import family_of
from feltlab.core.rules import Rules
from feltlab.server.errors import Conflict, Refused, not_found
from feltlab.server.fairness import combine_client_seeds, commitment, new_server_seed, next_seed
from feltlab.server.models import GameTable, Round, RoundSeat, detached
from feltlab.server.services.ledger import Move
from feltlab.server.services.round_store import (
    EMPTY_LOG,
    AtTable,
    LoadedRound,
    cached_deck,
    opened_round,
    rules_of,
)


@dataclass(frozen=True)
class Wagers:
    """A bet as the caller places it: wager amounts by name, the colour where the game
    has one, and the client seed (checked already; "" for none)."""

    wagers: dict[str, int]
    colour: str | None
    client_seed: str


@dataclass
class Played:
    """What a step did: ``loaded`` is the round now; ``opened`` when the step opened it
    (its row is to be inserted); the log's first ``before`` actions were there already;
    ``new_seat`` joined it, ``changed`` seats changed; ``moves`` is the money."""

    table: GameTable
    loaded: LoadedRound
    opened: bool
    before: int
    new_seat: RoundSeat | None = None
    changed: list[RoundSeat] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.loaded.state.phase is Phase.COMPLETE

    @cached_property
    def texts(self) -> list[str]:
        """The actions the step appended to the round's log, as JSON texts (made once)."""
        return [json.dumps(action_to_json(action))
                for action in self.loaded.state.log[self.before:]]


# --- a bet ------------------------------------------------------------------------------------

def bet(found: AtTable, current: LoadedRound | None, user_id: int, placed: Wagers,
        moment: datetime) -> Played:
    """The caller's bet at the table (``current``: its unfinished round, loaded): a
    private table opens a round and deals at once; a shared one takes it into the round
    in its betting window (opening one if none is open) and deals once every seated
    player has bet."""
    table = found.table
    if table.shared:
        if table.status != "open":
            raise Conflict(f"table {table.id} is closed")
        if found.my_seat is None:
            raise Conflict(f"take a seat at table {table.id} before betting")
        seat_number, sitting = found.my_seat, {seat.user_id for seat in found.sitting}
    else:
        if table.owner_id != user_id:
            raise not_found(f"table {table.id}")
        if table.status != "open":
            raise Conflict(f"table {table.id} is closed")
        # a bet that waited for this table's lock reads the rows as they were before it
        # on PostgreSQL: a round opened meanwhile is caught by the database (one
        # unfinished round a table, a seed used once) and the bet runs again
        if found.unfinished is not None and not waiting_for_stake(current):
            raise Conflict(f"round {found.unfinished} at this table is not finished")
        seat_number, sitting = 1, {user_id}
    opened = current is None
    if current is None:
        loaded = _open(table, found, placed.client_seed, moment)
    elif table.shared and current.state.phase is Phase.WAGERS:
        loaded = current
    elif waiting_for_stake(current):
        loaded = current
        loaded.record.client_seed = placed.client_seed  # the bet's own, as at a new round
        loaded.state = HandState(loaded.rules, cached_deck(loaded.record.server_seed,
                                                           placed.client_seed))
    else:
        raise Conflict(f"round {current.record.id} at this table is not finished"
                       if not table.shared else
                       f"betting is closed: round {current.record.id} is being played")
    if loaded.seat_of(user_id) is not None:
        raise Conflict(f"you have already bet in round {loaded.record.id}")
    actions = wager_actions(loaded.rules, seat_number, placed.wagers, placed.colour)
    stake = sum(amount for amount in placed.wagers.values() if amount)
    if table.shared:  # the wagers must allow a deal, before any other seat's
        run_actions(HandState(loaded.rules, loaded.state.deck), [*actions, Deal()])
    played = Played(table, loaded, opened, len(loaded.state.log))
    run_actions(loaded.state, actions)
    seat = detached(RoundSeat, {
        "round_id": loaded.record.id, "seat": seat_number, "user_id": user_id,
        "staked": stake, "client_seed": placed.client_seed, "total": None,
        "balance_before": None, "balance_after": None})
    loaded.seats.append(seat)
    loaded.seats.sort(key=lambda item: item.seat)
    played.new_seat = seat
    if {item.user_id for item in loaded.seats} >= sitting:
        _deal(loaded)
    _advance(played, moment)
    played.moves = _moves(played, {user_id: stake})
    return played


def waiting_for_stake(current: LoadedRound | None) -> bool:
    """Whether ``current`` is a private round opened for a stake its wallet has not
    taken yet (an operator's: :mod:`feltlab.server.services.operator_play`): no seat, no
    action. The next bet at the table goes into it."""
    return (current is not None and not current.shared and not current.seats
            and current.state.phase is Phase.WAGERS and not current.state.log)


def waiting_round(table: GameTable, found: AtTable, client_seed: str, moment: datetime
                  ) -> LoadedRound:
    """A new private round waiting for its stake (see :func:`waiting_for_stake`): its
    seeds derived as any new round's, no action, no seat; :func:`bet` goes into it."""
    return _open(table, found, client_seed, moment)


def _open(table: GameTable, found: AtTable, client_seed: str, moment: datetime
          ) -> LoadedRound:
    """A new round at ``table``. A private table's seed is derived from its newest
    round's (its commitment shown before the bet) and the bet's client seed dealt at
    once; a shared one's is drawn now, its commitment fixed before any seat's client
    seed is seen, and it takes bets until its window closes."""
    rules = rules_of(table.rules_id, table.fingerprint, to_change=True)
    if table.shared:
        seed, client_seed = new_server_seed(), ""
    else:  # a table from before seed keys has none: a fresh seed, committed at the deal
        seed = next_seed(table.seed_key, found.last_seed) if table.seed_key else new_server_seed()
    record = detached(Round, {
        "id": None, "table_id": table.id, "rules_id": rules.id,
        "fingerprint": rules.fingerprint, "currency": table.currency, "server_seed": seed,
        "commitment": commitment(seed), "client_seed": client_seed,
        "phase": Phase.WAGERS.value, "created_at": moment,
        "deadline": (moment + timedelta(seconds=table.betting_seconds) if table.shared
                     else None),
        "log": EMPTY_LOG, "completed_at": None, "figures_pending": False, "number": None})
    return opened_round(record, rules, table.shared)


# --- a decision and a timer -------------------------------------------------------------------

def decide(table: GameTable, loaded: LoadedRound, user_id: int, kind: str,
           amount: int | None, moment: datetime) -> Played:
    """The caller's decision, checked by the engine (its stake debited), the round run
    on to the next decision or the end."""
    seat, action, stake = checked_decision(loaded, user_id, kind, amount)
    state = loaded.state
    played = Played(table, loaded, False, len(state.log))
    run_actions(state, [action])
    if stake:
        seat.staked += stake
        played.changed.append(seat)
    _advance(played, moment)
    played.moves = _moves(played, {user_id: stake}, why=kind)
    return played


def checked_decision(loaded: LoadedRound, user_id: int, kind: str, amount: int | None
                     ) -> tuple[RoundSeat, Action, int]:
    """The caller's seat, the decision as the engine's action (checked: nothing is
    applied) and the stake it costs."""
    seat = loaded.seat_of(user_id)
    if seat is None:
        raise not_found(f"round {loaded.record.id}")
    state = loaded.state
    if state.phase is not Phase.DECISIONS:
        raise Conflict(f"round {loaded.record.id} takes no decisions in the "
                       f"{state.phase.value} phase")
    if state.to_act != seat.seat:
        raise Conflict(f"it is not your turn: seat {state.to_act} acts next")
    action = action_for(loaded.rules, seat.seat, kind, amount)
    try:
        state.verify(action)
    except ActionError as error:
        raise Refused(str(error)) from None
    return seat, action, state.stake_of(action)


def timer(table: GameTable, loaded: LoadedRound, moment: datetime) -> Played | None:
    """A shared round whose timer ran out: its betting window closes with the deal, or
    the seat to act folds. None when there is nothing to do."""
    state = loaded.state
    played = Played(table, loaded, False, len(state.log))
    if state.phase is Phase.WAGERS:
        _deal(loaded)
    elif state.phase is Phase.DECISIONS and state.to_act is not None:
        run_actions(state, [Fold(state.to_act)])
    else:
        return None
    _advance(played, moment)
    played.moves = _moves(played, {})
    return played


# --- the steps every change shares ------------------------------------------------------------

def wager_actions(rules: Rules, seat: int, wagers: dict[str, int], colour: str | None
                  ) -> list[Action]:
    actions: list[Action] = [PlaceWager(seat, name, amount)
                             for name, amount in wagers.items() if amount]
    colours = family_of(rules).engine.colours
    if colours:
        if colour is None:
            raise Refused(f"{rules.id} needs a colour: {' or '.join(colours)}")
        actions.append(ChooseColour(seat, colour))
    elif colour is not None:
        raise Refused(f"{rules.id} has no colour to choose")
    return actions


def action_for(rules: Rules, seat: int, kind: str, amount: int | None) -> Action:
    """The engine action a request's ``{"action": ..., "amount": ...}`` names: a kind
    this game lacks is a conflict (another game's table takes it), an amount the kind
    does not take is refused."""
    if kind == FOLD_NAME:
        if amount is not None:
            raise Refused("action fold takes no amount")
        return Fold(seat)
    decisions = family_of(rules).decisions
    if kind_named(decisions, kind) is None:
        raise Conflict(f"{rules.id} has no {kind!r} decision; its decisions are fold, "
                       + ", ".join(each.name for each in decisions))
    return Decide(seat, kind, amount)


def run_actions(state: HandState, actions: list[Action]) -> None:
    """Apply ``actions``, then the dealer's part up to the next decision or the end."""
    try:
        for action in actions:
            state.apply(action)
        state.advance()
    except ActionError as error:
        raise Refused(str(error)) from None


def _deal(loaded: LoadedRound) -> None:
    """Close the wagers and deal. At a shared table the seats' client seeds are mixed
    into one first: the round keeps it (committed with the deal) and its wagers are
    replayed on the new deck; no card is drawn yet."""
    if loaded.shared:
        mixed = combine_client_seeds({seat.seat: seat.client_seed for seat in loaded.seats})
        if mixed != loaded.record.client_seed:
            log = loaded.state.log
            if not all(isinstance(action, PlaceWager | ChooseColour) for action in log):
                raise RuntimeError(f"round {loaded.record.id} drew cards before its seeds "
                                   "were mixed")
            loaded.record.client_seed = mixed
            loaded.state = HandState.replay(
                loaded.rules, cached_deck(loaded.record.server_seed, mixed), log)
    run_actions(loaded.state, [Deal()])


def _advance(played: Played, moment: datetime) -> None:
    """Run the dealer's part up to the next decision or the end; at a shared table set
    the decision timer; at the end, set each seat's result."""
    loaded, table = played.loaded, played.table
    run_actions(loaded.state, [])
    state, record = loaded.state, loaded.record
    record.phase = state.phase.value
    if table.shared and state.phase is Phase.DECISIONS:
        record.deadline = moment + timedelta(seconds=table.decision_seconds)
    elif state.phase is not Phase.WAGERS:
        record.deadline = None
    if state.phase is not Phase.COMPLETE:
        return
    record.completed_at = moment
    record.figures_pending = True
    for seat in loaded.seats:
        settlement = state.seats[seat.seat].settlement
        assert settlement is not None
        seat.total = settlement.total
    played.changed = [seat for seat in loaded.seats if seat is not played.new_seat]


def _moves(played: Played, stakes: dict[int, int], why: str = "wagers") -> list[Move]:
    """The money of a step: each stake, and once the round is complete what the house
    pays every seat back (its stakes plus its result; 0 when it lost them all)."""
    seats = {seat.user_id: seat for seat in played.loaded.seats}
    moves = []
    for user_id in sorted(set(stakes) | (set(seats) if played.complete else set())):
        seat = seats[user_id]
        payout = seat.staked + seat.total if played.complete and seat.total is not None else 0
        moves.append(Move(user_id, seat.seat, stakes.get(user_id, 0), payout, why))
    return moves
