"""Rounds: the service that drives :class:`feltlab.core.engine.HandState` for the server.

A round is stored as its append-only event log (one engine action a row) beside the
seeds that give its deck; its state is always the replay of that log, so a round
resumes after any crash exactly where its last committed event left it. Each request
runs in one database transaction: the events it appends, the stakes it debits and the
payouts it credits are committed together or not at all. The server deals and settles
only through the engine (and so through :mod:`feltlab.core.settle`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.orm import Session

from feltlab.core.cards import Card, format_cards
from feltlab.core.engine import (
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
    action_from_json,
    action_to_json,
)
from feltlab.core.family import family_of
from feltlab.core.rules import Rules, load_rules
from feltlab.server import faults, ledger
from feltlab.server.clock import aware, now
from feltlab.server.errors import ApiError, conflict, not_found, refused
from feltlab.server.fairness import (
    combine_client_seeds,
    commitment,
    deck_from_seed,
    new_server_seed,
)
from feltlab.server.models import GameTable, Round, RoundEvent, RoundSeat, User, table_of

MAX_OPTIONS_LISTED = 3
"""Raises are listed at whole multiples of the ante; ``raise_range`` gives the rest."""


@dataclass
class LoadedRound:
    """A round with its seats and its state replayed from the log."""

    record: Round
    seats: list[RoundSeat]
    rules: Rules
    state: HandState
    events: int
    shared: bool = False
    """At a shared table: the seats' client seeds are mixed at the deal."""

    def seat_of(self, user_id: int) -> RoundSeat | None:
        return next((seat for seat in self.seats if seat.user_id == user_id), None)


def rules_for(rules_id: str, fingerprint: str) -> Rules:
    """The built-in rule set a table was opened with; refuses one whose content changed."""
    rules = load_rules(rules_id)
    if rules.fingerprint != fingerprint:
        raise conflict(f"rule set {rules_id} changed since this table opened "
                       f"(fingerprint {fingerprint[:12]}); open a new table")
    return rules


# Statements run on every request are built once: building one costs more CPU than
# running it, and a statement kept keeps its compiled form's cache key too.
_ROUND = (select(Round, GameTable.shared).join(GameTable, GameTable.id == Round.table_id)
          .where(Round.id == bindparam("round_id")))
_ROUND_LOCKED = _ROUND.with_for_update(of=Round)
_SEATS = (select(RoundSeat).where(RoundSeat.round_id == bindparam("round_id"))
          .order_by(RoundSeat.seat))
_ROUNDS, _ROUND_SEATS, _EVENT_LOG = table_of(Round), table_of(RoundSeat), table_of(RoundEvent)
_EVENTS = (select(_EVENT_LOG.c.action).where(_EVENT_LOG.c.round_id == bindparam("round_id"))
           .order_by(_EVENT_LOG.c.seq))
_TABLE_OF_SEAT = (select(_ROUNDS.c.table_id)
                  .join(_ROUND_SEATS, _ROUND_SEATS.c.round_id == _ROUNDS.c.id)
                  .where(_ROUND_SEATS.c.round_id == bindparam("round_id"),
                         _ROUND_SEATS.c.user_id == bindparam("user_id")))
_TABLE = select(GameTable).where(GameTable.id == bindparam("table_id"))
_TABLE_LOCKED = _TABLE.with_for_update()
_TABLE_LOCKED_OR_SKIPPED = _TABLE.with_for_update(skip_locked=True)
_UNFINISHED = select(func.min(_ROUNDS.c.id)).where(_ROUNDS.c.table_id == bindparam("table_id"),
                                                   _ROUNDS.c.phase != Phase.COMPLETE.value)
_LATEST = select(func.max(_ROUNDS.c.id)).where(_ROUNDS.c.table_id == bindparam("table_id"))
_NEW_EVENT = insert(_EVENT_LOG)
_NAMES_OF = select(table_of(User).c.id, table_of(User).c.username).where(
    table_of(User).c.id.in_(bindparam("user_ids", expanding=True)))


def load_round(session: Session, round_id: int, lock: bool = False) -> LoadedRound:
    key = {"round_id": round_id}
    row = session.execute(_ROUND_LOCKED if lock else _ROUND, key).one_or_none()
    if row is None:
        raise not_found(f"round {round_id}")
    record, shared = row
    seats = list(session.scalars(_SEATS, key))
    actions = [action_from_json(json.loads(text))
               for text in session.connection().execute(_EVENTS, key).scalars()]
    rules = load_rules(record.rules_id)
    state = HandState.replay(rules, cached_deck(record.server_seed, record.client_seed),
                             actions)
    return LoadedRound(record, seats, rules, state, len(actions), shared)


@lru_cache(maxsize=4096)
def cached_deck(server_seed: str, client_seed: str) -> tuple[Card, ...]:
    """:func:`deck_from_seed`, kept for the rounds a worker loads again and again."""
    return deck_from_seed(server_seed, client_seed)


def load_for(session: Session, round_id: int, user_id: int) -> LoadedRound:
    """The round if the caller has a seat in it; another player's round is not found."""
    _table_of_seat(session, round_id, user_id)
    return load_round(session, round_id)


def lock_for(session: Session, round_id: int, user_id: int
             ) -> tuple[GameTable, LoadedRound]:
    """:func:`load_for` to change the round: its table's row is locked first, then the
    round's."""
    table = lock_table(session, _table_of_seat(session, round_id, user_id))
    assert table is not None
    return table, load_round(session, round_id, lock=True)


def _table_of_seat(session: Session, round_id: int, user_id: int) -> int:
    table_id: int | None = session.connection().execute(
        _TABLE_OF_SEAT, {"round_id": round_id, "user_id": user_id}).scalar()
    if table_id is None:
        raise not_found(f"round {round_id}")
    return table_id


def find_table(session: Session, table_id: int) -> GameTable | None:
    """The table, unlocked (a built statement: quicker than ``Session.get``)."""
    table: GameTable | None = session.scalars(_TABLE, {"table_id": table_id}).one_or_none()
    return table


def lock_table(session: Session, table_id: int, skip_locked: bool = False
               ) -> GameTable | None:
    """Lock a table's row and return the table: every transaction that changes a round
    locks its table, then the round, then the house wallet, then players' wallets, always
    in that order, so none waits for another in a circle. None when ``skip_locked`` and
    another transaction holds it."""
    query = _TABLE
    if session.get_bind().dialect.name == "postgresql":
        query = _TABLE_LOCKED_OR_SKIPPED if skip_locked else _TABLE_LOCKED
    table: GameTable | None = session.scalars(query, {"table_id": table_id}).one_or_none()
    return table


def _append(session: Session, loaded: LoadedRound, action: Action) -> None:
    """Apply ``action`` to the state and append it to the log (same transaction)."""
    try:
        loaded.state.apply(action)
    except ActionError as error:
        raise refused(str(error)) from None
    session.connection().execute(_NEW_EVENT, {  # Core: outside the unit of work
        "round_id": loaded.record.id, "seq": loaded.events,
        "action": json.dumps(action_to_json(action)), "at": now()})
    loaded.events += 1
    faults.event_appended()


# --- starting a round --------------------------------------------------------------------

def check_may_play(session: Session, user: User, currency: str, stake: int) -> None:
    """Self-exclusion and the daily loss limit (cash play)."""
    if user.excluded_until is not None and aware(user.excluded_until) > now():
        raise ApiError(403, f"you are self-excluded until "
                            f"{aware(user.excluded_until).isoformat(timespec='minutes')}")
    if currency != "cash" or user.daily_loss_limit is None:
        return
    lost = loss_today(session, user.id)
    if lost + stake > user.daily_loss_limit:
        raise ApiError(409, f"this stake of {stake} could take today's losses ({lost}) past "
                            f"your daily loss limit of {user.daily_loss_limit}")


def loss_today(session: Session, user_id: int) -> int:
    """Cash lost since midnight UTC: net of complete rounds plus stakes of open ones."""
    midnight = now().replace(hour=0, minute=0, second=0, microsecond=0)
    rows = session.execute(
        select(RoundSeat.total, RoundSeat.staked).join(Round, Round.id == RoundSeat.round_id)
        .where(RoundSeat.user_id == user_id, Round.currency == "cash",
               Round.created_at >= midnight)).all()
    net = sum(-staked if total is None else total for total, staked in rows)
    return max(0, -net)


def wager_actions(rules: Rules, seat: int, wagers: dict[str, int], colour: str | None
                  ) -> list[Action]:
    actions: list[Action] = [PlaceWager(seat, name, amount)
                             for name, amount in wagers.items() if amount]
    colours = family_of(rules).engine.colours
    if colours:
        if colour is None:
            raise refused(f"{rules.id} needs a colour: {' or '.join(colours)}")
        actions.append(ChooseColour(seat, colour))
    elif colour is not None:
        raise refused(f"{rules.id} has no colour to choose")
    return actions


def open_round(session: Session, table: GameTable, client_seed: str,
               phase_deadline: timedelta | None = None) -> LoadedRound:
    """A new round at ``table`` in the wagers phase, its commitment fixed now."""
    rules = rules_for(table.rules_id, table.fingerprint)
    seed = new_server_seed()
    record = Round(table_id=table.id, rules_id=rules.id, fingerprint=rules.fingerprint,
                   currency=table.currency, server_seed=seed, commitment=commitment(seed),
                   client_seed=client_seed, phase=Phase.WAGERS.value, created_at=now(),
                   deadline=None if phase_deadline is None else now() + phase_deadline)
    session.add(record)
    session.flush()
    state = HandState(rules, deck_from_seed(seed, client_seed))
    return LoadedRound(record, [], rules, state, 0, table.shared)


def place_wagers(session: Session, loaded: LoadedRound, user: User, seat: int,
                 wagers: dict[str, int], colour: str | None, client_seed: str = ""
                 ) -> RoundSeat:
    """Seat ``user`` in the round with these wagers, debited now, and the client seed
    they give (checked already) for a shared round's deal."""
    if loaded.seat_of(user.id) is not None:
        raise conflict(f"you have already bet in round {loaded.record.id}")
    actions = wager_actions(loaded.rules, seat, wagers, colour)
    stake = sum(amount for amount in wagers.values() if amount)
    check_may_play(session, user, loaded.record.currency, stake)
    trial = HandState(loaded.rules, loaded.state.deck)
    for action in [*actions, Deal()]:
        try:
            trial.apply(action)
        except ActionError as error:
            raise refused(str(error)) from None
    before = ledger.balance(session, user.id, loaded.record.currency, lock=True,
                            shard=ledger.house_shard(loaded.record.table_id))
    round_seat = RoundSeat(round_id=loaded.record.id, seat=seat, user_id=user.id, staked=0,
                           balance_before=before, client_seed=client_seed)
    session.add(round_seat)
    session.flush()
    loaded.seats.append(round_seat)
    _stake(session, loaded, round_seat, stake, "wagers")
    for action in actions:
        _append(session, loaded, action)
    return round_seat


def _stake(session: Session, loaded: LoadedRound, seat: RoundSeat, amount: int,
           memo: str) -> None:
    ledger.stake(session, seat.user_id, loaded.record.currency, amount, loaded.record.id,
                 f"round {loaded.record.id} seat {seat.seat}: {memo}",
                 ledger.house_shard(loaded.record.table_id))
    seat.staked += amount


def deal(session: Session, loaded: LoadedRound, decision: timedelta | None = None) -> None:
    """Close the wagers, deal, and run on to the first decision (or settlement)."""
    if loaded.shared:
        _mix_client_seeds(loaded)
    _append(session, loaded, Deal())
    advance(session, loaded, decision)


def _mix_client_seeds(loaded: LoadedRound) -> None:
    """A shared round's deck comes from its server seed, fixed when it opened, and the
    seats' client seeds mixed into one: the round keeps that one (committed with the
    Deal event) and its wagers are replayed on the new deck; no card is drawn yet."""
    mixed = combine_client_seeds({seat.seat: seat.client_seed for seat in loaded.seats})
    if mixed == loaded.record.client_seed:
        return
    log = loaded.state.log
    if not all(isinstance(action, PlaceWager | ChooseColour) for action in log):
        raise RuntimeError(f"round {loaded.record.id} drew cards before its seeds were mixed")
    loaded.record.client_seed = mixed
    loaded.state = HandState.replay(loaded.rules, cached_deck(loaded.record.server_seed,
                                                              mixed), log)


# --- decisions -----------------------------------------------------------------------------

def action_for(loaded: LoadedRound, seat: int, body: dict[str, Any]) -> Action:
    """The engine action a request's ``{"action": ..., "amount": ...}`` names."""
    kind, amount = body["action"], body.get("amount")
    needs_amount = kind in ("raise", "bet")
    if needs_amount and amount is None:
        raise refused(f"action {kind} needs an amount")
    if not needs_amount and amount is not None:
        raise refused(f"action {kind} takes no amount")
    if kind == "fold":
        return Fold(seat)
    if kind == "play":
        return Play(seat)
    assert amount is not None
    return Raise(seat, amount) if kind == "raise" else Bet(seat, amount)


def act(session: Session, loaded: LoadedRound, user_id: int, body: dict[str, Any],
        decision: timedelta | None = None) -> None:
    """The caller's decision: checked by the engine, its stake debited, the round run on."""
    seat = loaded.seat_of(user_id)
    if seat is None:
        raise not_found(f"round {loaded.record.id}")
    state = loaded.state
    if state.phase is not Phase.DECISIONS:
        raise conflict(f"round {loaded.record.id} takes no decisions in the "
                       f"{state.phase.value} phase")
    if state.to_act != seat.seat:
        raise conflict(f"it is not your turn: seat {state.to_act} acts next")
    action = action_for(loaded, seat.seat, body)
    try:
        state.verify(action)
    except ActionError as error:
        raise refused(str(error)) from None
    _stake(session, loaded, seat, state.stake_of(action), body["action"])
    _append(session, loaded, action)
    advance(session, loaded, decision)


def advance(session: Session, loaded: LoadedRound, decision: timedelta | None = None) -> None:
    """Run the dealer's part (reveals, settlement) until a player must decide or the round
    is complete; set the decision timer of a shared table."""
    state = loaded.state
    while state.phase in (Phase.REVEAL, Phase.SETTLE):
        _append(session, loaded, Reveal() if state.phase is Phase.REVEAL else Settle())
    loaded.record.phase = state.phase.value
    loaded.record.deadline = (now() + decision if decision is not None
                              and state.phase is Phase.DECISIONS else None)
    if state.phase is Phase.COMPLETE:
        _pay_out(session, loaded)


def _pay_out(session: Session, loaded: LoadedRound) -> None:
    """Every seat gets back its stakes plus its net result (after the cap)."""
    for seat in sorted(loaded.seats, key=lambda item: item.user_id):
        settlement = loaded.state.seats[seat.seat].settlement
        assert settlement is not None
        returned = seat.staked + settlement.total
        ledger.pay(session, seat.user_id, loaded.record.currency, returned, loaded.record.id,
                   f"round {loaded.record.id} seat {seat.seat}: settlement",
                   ledger.house_shard(loaded.record.table_id))
        seat.total = settlement.total
        seat.balance_after = ledger.balance(session, seat.user_id, loaded.record.currency)
    loaded.record.completed_at = now()


def fold_absent(session: Session, loaded: LoadedRound, decision: timedelta) -> None:
    """The decision timer ran out: the seat to act folds."""
    seat = loaded.state.to_act
    if seat is None:
        return
    _append(session, loaded, Fold(seat))
    advance(session, loaded, decision)


# --- what a caller sees --------------------------------------------------------------------

def options(loaded: LoadedRound, seat: int) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
    """The legal decisions of ``seat`` now, in the actions' JSON form, and the raise range."""
    state = loaded.state
    if state.phase is not Phase.DECISIONS or state.to_act != seat:
        return [], None
    return state.steps.options_json(state, seat)


def _seat_cards(loaded: LoadedRound, seat: int, visible: bool) -> dict[str, Any]:
    state = loaded.state
    hand = state.seats.get(seat)
    if hand is None or not visible:
        return {}
    return {"player": format_cards(hand.cards)} if hand.cards else {}


def table_cards(loaded: LoadedRound) -> dict[str, Any]:
    """Cards every seat may see now: the community cards turned, the dealer's at the end."""
    state = loaded.state
    cards: dict[str, Any] = {}
    if state.visible_community:
        cards["community"] = format_cards(state.visible_community)
    if state.phase is Phase.COMPLETE and state.dealer_cards:
        cards["dealer"] = format_cards(state.dealer_cards)
    return cards


def payout_request(loaded: LoadedRound, seat: int) -> dict[str, Any]:
    """The complete round of ``seat`` as a ``feltlab payout`` request."""
    return loaded.state.steps.payout_request(loaded.state, seat)


def _others(loaded: LoadedRound, mine: int | None, usernames: dict[int, str]
            ) -> list[dict[str, Any]]:
    complete = loaded.state.phase is Phase.COMPLETE
    views = []
    for seat in loaded.seats:
        if seat.seat == mine:
            continue
        hand = loaded.state.seats.get(seat.seat)
        view: dict[str, Any] = {"seat": seat.seat, "username": usernames.get(seat.user_id, ""),
                                "wagers": dict(hand.wagers) if hand else {},
                                "decisions": list(hand.decisions) if hand else []}
        view |= _seat_cards(loaded, seat.seat, complete)
        if complete and seat.total is not None:
            view["total"] = seat.total
        views.append(view)
    return views


_USERNAMES: dict[int, str] = {}
"""Usernames by user id, kept by each worker: a username never changes once chosen."""


def usernames(session: Session, loaded: LoadedRound) -> dict[int, str]:
    """The names of the round's seated players, by user id."""
    wanted = {item.user_id for item in loaded.seats}
    missing = wanted - _USERNAMES.keys()
    if missing:
        if len(_USERNAMES) > 100_000:
            _USERNAMES.clear()
        rows = session.connection().execute(_NAMES_OF, {"user_ids": sorted(missing)})
        _USERNAMES.update({user_id: name for user_id, name in rows})
    return {user_id: _USERNAMES[user_id] for user_id in wanted if user_id in _USERNAMES}


def round_view(session: Session, loaded: LoadedRound, user_id: int) -> dict[str, Any]:
    """The round as ``user_id`` may see it: no hidden card before its reveal."""
    mine = loaded.seat_of(user_id)
    names = usernames(session, loaded) if len(loaded.seats) > 1 or mine is None else {}
    return view_of(loaded, user_id, names)


def view_of(loaded: LoadedRound, user_id: int, names: dict[int, str]) -> dict[str, Any]:
    """:func:`round_view` from the seated players' ``names`` (no database read): the live
    updates build every watcher's view from one loaded round this way."""
    record, state, rules = loaded.record, loaded.state, loaded.rules
    mine = loaded.seat_of(user_id)
    seat = mine.seat if mine else None
    hand = state.seats.get(seat) if seat is not None else None
    choices, raise_range = options(loaded, seat) if seat is not None else ([], None)
    view: dict[str, Any] = {
        "id": record.id, "table": record.table_id, "rules": rules.id,
        "fingerprint": record.fingerprint, "currency": record.currency,
        "phase": state.phase.value, "commitment": record.commitment,
        "client_seed": record.client_seed, "seat": seat,
        "wagers": dict(hand.wagers) if hand else {},
        "decisions": list(hand.decisions) if hand else [],
        "to_act": state.to_act, "options": choices,
        "deadline": aware(record.deadline).isoformat() if record.deadline else None,
        "staked": mine.staked if mine else 0,
        "cards": {**(_seat_cards(loaded, seat, True) if seat is not None else {}),
                  **table_cards(loaded)},
        "log": [action_to_json(action) for action in state.log],
        "created_at": aware(record.created_at).isoformat(),
    }
    if loaded.shared:
        view["client_seeds"] = {str(item.seat): item.client_seed for item in loaded.seats}
    if state.steps.colours:
        view["colour"] = hand.colour if hand else None
    if raise_range:
        view["raise_range"] = raise_range
    if len(loaded.seats) > 1 or mine is None:
        view["others"] = _others(loaded, seat, names)
    if state.phase is Phase.COMPLETE:
        view |= _complete_fields(loaded, mine)
    return view


def _complete_fields(loaded: LoadedRound, mine: RoundSeat | None) -> dict[str, Any]:
    fields: dict[str, Any] = {"seed": loaded.record.server_seed,
                              "completed_at": aware(loaded.record.completed_at).isoformat()
                              if loaded.record.completed_at else None}
    if mine is None:
        return fields
    settlement = loaded.state.seats[mine.seat].settlement
    assert settlement is not None
    return fields | {
        "results": dict(settlement.results), "total": settlement.total,
        "capped": settlement.capped, "settlement": settlement.as_json(),
        "balance_before": mine.balance_before, "balance_after": mine.balance_after,
        "payout_request": payout_request(loaded, mine.seat),
    }


def recent_rounds(session: Session, user_id: int, limit: int) -> list[int]:
    """Ids of the caller's latest rounds, newest first."""
    return list(session.scalars(
        select(RoundSeat.round_id).where(RoundSeat.user_id == user_id)
        .order_by(RoundSeat.round_id.desc()).limit(limit)))


def recall(session: Session, loaded: LoadedRound, user_id: int) -> list[dict[str, Any]]:
    """The round step by step as the caller saw it: after each event, the cards then
    visible, the caller's stake so far and their balance."""
    mine = loaded.seat_of(user_id)
    if mine is None:
        raise not_found(f"round {loaded.record.id}")
    steps = []
    staked, balance = 0, mine.balance_before
    partial = LoadedRound(loaded.record, loaded.seats, loaded.rules,
                          HandState(loaded.rules, loaded.state.deck), 0, loaded.shared)
    for action in loaded.state.log:
        partial.state.apply(action)
        stake = partial.state.stake_of(action) if getattr(action, "seat", None) == mine.seat \
            else 0
        staked += stake
        balance -= stake
        if partial.state.phase is Phase.COMPLETE and mine.balance_after is not None:
            balance = mine.balance_after
        steps.append(_step(partial, action, mine.seat, staked, balance))
    return steps


def _step(partial: LoadedRound, action: Action, seat: int, staked: int, balance: int
          ) -> dict[str, Any]:
    state = partial.state
    hidden_phase = state.phase is not Phase.COMPLETE
    cards = {**_seat_cards(partial, seat, True), **table_cards(partial)}
    step: dict[str, Any] = {"action": action_to_json(action), "phase": state.phase.value,
                            "cards": cards, "staked": staked, "balance": balance}
    if not hidden_phase:
        settlement = state.seats[seat].settlement
        if settlement is not None:
            step["results"], step["total"] = dict(settlement.results), settlement.total
    return step


def unfinished_round(session: Session, table_id: int) -> int | None:
    found: int | None = session.connection().execute(
        _UNFINISHED, {"table_id": table_id}).scalar()
    return found


def open_round_of(session: Session, user_id: int, currency: str) -> int | None:
    """An unfinished round in which the player has a seat, in ``currency``."""
    return session.scalar(select(func.min(Round.id)).join(
        RoundSeat, RoundSeat.round_id == Round.id).where(
        RoundSeat.user_id == user_id, Round.currency == currency,
        Round.phase != Phase.COMPLETE.value))


def latest_round(session: Session, table_id: int) -> int | None:
    found: int | None = session.connection().execute(_LATEST, {"table_id": table_id}).scalar()
    return found
