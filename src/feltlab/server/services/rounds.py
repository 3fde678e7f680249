"""A round's lifecycle, driven through :class:`feltlab.core.engine.HandState`: opened with
its commitment, wagers placed and debited, dealt, decisions taken in turn, the dealer's
part run, and every seat paid out.

Each request runs in one database transaction: the events it appends (see
:mod:`feltlab.server.services.round_log`), the stakes it debits and the payouts it credits
are committed together or not at all. The server deals and settles only through the
engine (and so through :mod:`feltlab.core.settle`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.orm import Session

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
)
from feltlab.core.family import family_of
from feltlab.core.rules import Rules, load_rules
from feltlab.server.clock import now
from feltlab.server.errors import Conflict, Refused, not_found
from feltlab.server.fairness import (
    combine_client_seeds,
    commitment,
    deck_from_seed,
    new_server_seed,
)
from feltlab.server.models import GameTable, Round, RoundSeat, User
from feltlab.server.services import ledger
from feltlab.server.services.limits import check_stake
from feltlab.server.services.round_log import EMPTY_LOG, LoadedRound, append, cached_deck


def rules_for(rules_id: str, fingerprint: str) -> Rules:
    """The built-in rule set a table was opened with; refuses one whose content changed."""
    rules = load_rules(rules_id)
    if rules.fingerprint != fingerprint:
        raise Conflict(f"rule set {rules_id} changed since this table opened "
                       f"(fingerprint {fingerprint[:12]}); open a new table")
    return rules


# --- starting a round --------------------------------------------------------------------

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


def open_round(session: Session, table: GameTable, client_seed: str,
               phase_deadline: timedelta | None = None) -> LoadedRound:
    """A new round at a shared ``table`` in the wagers phase: its commitment is fixed
    now, before any seat's seed is seen (a private table's rounds open in
    :mod:`feltlab.server.services.private_rounds`)."""
    rules = rules_for(table.rules_id, table.fingerprint)
    seed = new_server_seed()
    record = Round(table_id=table.id, rules_id=rules.id, fingerprint=rules.fingerprint,
                   currency=table.currency, server_seed=seed, commitment=commitment(seed),
                   client_seed=client_seed, phase=Phase.WAGERS.value, created_at=now(),
                   deadline=None if phase_deadline is None else now() + phase_deadline,
                   log=EMPTY_LOG)
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
        raise Conflict(f"you have already bet in round {loaded.record.id}")
    actions = wager_actions(loaded.rules, seat, wagers, colour)
    stake = sum(amount for amount in wagers.values() if amount)
    _locked_and_checked(session, loaded, user.id, stake)
    trial = HandState(loaded.rules, loaded.state.deck)
    for action in [*actions, Deal()]:
        try:
            trial.apply(action)
        except ActionError as error:
            raise Refused(str(error)) from None
    round_seat = RoundSeat(round_id=loaded.record.id, seat=seat, user_id=user.id,
                           staked=stake, client_seed=client_seed)
    after = move_seat_money(session.connection(), loaded, round_seat,
                            ledger.RoundMoney(stake, 0, "wagers"))
    round_seat.balance_before = after + stake
    session.add(round_seat)
    session.flush()
    loaded.seats.append(round_seat)
    for action in actions:
        append(session, loaded, action)
    return round_seat


def _locked_and_checked(session: Session, loaded: LoadedRound, user_id: int, stake: int
                        ) -> None:
    """Lock the player's wallet, then check ``stake`` against their limits
    (:func:`~feltlab.server.services.limits.check_stake`): with the lock taken first, the
    stakes a player makes at the same moment at other tables are counted one after
    another."""
    ledger.balance(session, user_id, loaded.record.currency, lock=True,
                   shard=ledger.house_shard(loaded.record.table_id))
    check_stake(session, user_id, loaded.record.currency, stake)


def _stake(session: Session, loaded: LoadedRound, seat: RoundSeat, amount: int,
           memo: str) -> None:
    if amount:
        move_seat_money(session.connection(), loaded, seat,
                        ledger.RoundMoney(amount, 0, memo))
    seat.staked += amount


def move_seat_money(connection: Connection, loaded: LoadedRound, seat: RoundSeat,
                    money: ledger.RoundMoney) -> int:
    """Move a seat's stake and payout with the house's wallet for the round's table (see
    :func:`feltlab.server.services.ledger.move_round_money`); refuses a stake its balance
    does not cover. Answers the player's balance afterwards."""
    record = loaded.record
    if not money.stake and not money.payout:
        return ledger.player_balance(connection, seat.user_id, record.currency)
    house = ledger.house_wallet_id(connection, ledger.house_name(
        record.currency, ledger.house_shard(record.table_id)))
    after = ledger.move_round_money(connection, seat.user_id, record.currency, house, money,
                                    record.id, f"round {record.id} seat {seat.seat}")
    if after is None:
        have = ledger.player_balance(connection, seat.user_id, record.currency)
        raise Conflict(f"the {record.currency} balance of {have} is less than the "
                       f"{money.stake} this needs")
    return after


def deal(session: Session, loaded: LoadedRound, decision: timedelta | None = None) -> None:
    """Close the wagers, deal, and run on to the first decision (or settlement)."""
    if loaded.shared:
        _mix_client_seeds(loaded)
    append(session, loaded, Deal())
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

def action_for(seat: int, body: dict[str, Any]) -> Action:
    """The engine action a request's ``{"action": ..., "amount": ...}`` names."""
    kind, amount = body["action"], body.get("amount")
    needs_amount = kind in ("raise", "bet")
    if needs_amount and amount is None:
        raise Refused(f"action {kind} needs an amount")
    if not needs_amount and amount is not None:
        raise Refused(f"action {kind} takes no amount")
    if kind == "fold":
        return Fold(seat)
    if kind == "play":
        return Play(seat)
    assert amount is not None
    return Raise(seat, amount) if kind == "raise" else Bet(seat, amount)


def act(session: Session, loaded: LoadedRound, user: User, body: dict[str, Any],
        decision: timedelta | None = None) -> None:
    """The caller's decision: checked by the engine and the player's limits, its stake
    debited, the round run on."""
    seat, action, stake = checked_decision(loaded, user.id, body)
    if stake:  # a raise, a street bet, a play: checked as the opening bet is
        _locked_and_checked(session, loaded, user.id, stake)
    _stake(session, loaded, seat, stake, body["action"])
    append(session, loaded, action)
    advance(session, loaded, decision)


def checked_decision(loaded: LoadedRound, user_id: int, body: dict[str, Any]
                     ) -> tuple[RoundSeat, Action, int]:
    """The caller's seat, the decision as an engine action and its stake, once the
    round, the turn and the rules allow it (nothing changes here)."""
    seat = loaded.seat_of(user_id)
    if seat is None:
        raise not_found(f"round {loaded.record.id}")
    state = loaded.state
    if state.phase is not Phase.DECISIONS:
        raise Conflict(f"round {loaded.record.id} takes no decisions in the "
                       f"{state.phase.value} phase")
    if state.to_act != seat.seat:
        raise Conflict(f"it is not your turn: seat {state.to_act} acts next")
    action = action_for(seat.seat, body)
    try:
        state.verify(action)
    except ActionError as error:
        raise Refused(str(error)) from None
    return seat, action, state.stake_of(action)


def dealer_step(state: HandState) -> Action | None:
    """The dealer's next action (a reveal, then the settlement), or None when a player
    must decide or the round is complete."""
    if state.phase is Phase.REVEAL:
        return Reveal()
    if state.phase is Phase.SETTLE:
        return Settle()
    return None


def advance(session: Session, loaded: LoadedRound, decision: timedelta | None = None) -> None:
    """Run the dealer's part (reveals, settlement) until a player must decide or the round
    is complete; set the decision timer of a shared table."""
    state = loaded.state
    while (step := dealer_step(state)) is not None:
        append(session, loaded, step)
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
        seat.total = settlement.total
        seat.balance_after = move_seat_money(session.connection(), loaded, seat,
                                             ledger.RoundMoney(0, returned))
    loaded.record.completed_at = now()
    loaded.record.figures_pending = True  # the pit's figures: written off the money path


def fold_absent(session: Session, loaded: LoadedRound, decision: timedelta) -> None:
    """The decision timer ran out: the seat to act folds."""
    seat = loaded.state.to_act
    if seat is None:
        return
    append(session, loaded, Fold(seat))
    advance(session, loaded, decision)


def staked(loaded: LoadedRound) -> int:
    """What the round's seats staked in all."""
    return sum(seat.staked for seat in loaded.seats)
