"""The steps of a round's lifecycle that both kinds of table share, driven through
:class:`feltlab.core.engine.HandState`: the rule set a table plays, a bet's wager
actions, a shared round's client seeds mixed at the deal, a decision checked by the
engine, the dealer's next step, and a seat's money moved with the house.

The requests themselves are :mod:`feltlab.server.services.private_rounds` and
:mod:`feltlab.server.services.shared_rounds`: each one database transaction, in which the
events appended, the stakes debited and the payouts credited are committed together or
not at all. The server deals and settles only through the engine (and so through
:mod:`feltlab.core.settle`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection
from sqlalchemy.orm import Session

from feltlab.core.engine import (
    Action,
    ActionError,
    Bet,
    ChooseColour,
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
)
from feltlab.server.models import Round, RoundSeat, User
from feltlab.server.services import ledger, round_money
from feltlab.server.services.limits import check_stake, refuse_if_barred
from feltlab.server.services.round_log import LoadedRound, cached_deck


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


def _house_wallet(connection: Connection, record: Round) -> int:
    """The id of the house's wallet that takes the other side of the round's money (its
    currency's, for the round's table's shard)."""
    return ledger.house_wallet_id(connection, ledger.house_name(
        record.currency, ledger.house_shard(record.table_id)))


def move_seat_money(connection: Connection, loaded: LoadedRound, seat: RoundSeat,
                    money: round_money.RoundMoney) -> int:
    """Move a seat's stake and payout with the house's wallet for the round's table (see
    :func:`feltlab.server.services.round_money.move_round_money`); refuses a stake its balance
    does not cover. Answers the player's balance afterwards."""
    record = loaded.record
    if not money.stake and not money.payout:
        return ledger.player_balance(connection, seat.user_id, record.currency)
    house = _house_wallet(connection, record)
    after = round_money.move_round_money(connection, seat.user_id, record.currency, house, money,
                                    record.id, f"round {record.id} seat {seat.seat}")
    if after is None:
        have = ledger.player_balance(connection, seat.user_id, record.currency)
        raise Conflict(f"the {record.currency} balance of {have} is less than the "
                       f"{money.stake} this needs")
    return after


def pay_seats(connection: Connection, loaded: LoadedRound, seats: list[RoundSeat]
              ) -> None:
    """Pay out ``seats`` of the settled round at once, in the order given (their net
    results set on them), with the house's wallet for the round's table; each seat's
    balance afterwards is set on it."""
    record = loaded.record
    house = _house_wallet(connection, record)
    payouts = []
    for seat in seats:
        if seat.total is None:
            raise RuntimeError(f"round {record.id} seat {seat.seat} is not settled")
        payouts.append(ledger.Payout(seat.user_id, seat.staked + seat.total,
                                     f"round {record.id} seat {seat.seat}"))
    after = ledger.pay_out(connection, record.currency, house, record.id, payouts)
    for seat in seats:
        seat.balance_after = after[seat.user_id]


def check_stake_on(connection: Connection, user: User, table_id: int, currency: str,
                   stake: int) -> None:
    """The player's limits on a stake (:mod:`feltlab.server.services.limits`): at practice,
    the account's bar as the request's first read found it (no query); at cash, the
    player's wallet locked first, then the daily loss limit's one query, so that stakes
    made at once at other tables are counted one after another."""
    if currency != "cash":
        refuse_if_barred(bool(user.locked), user.excluded_until, now())
        return
    session = Session(bind=connection)
    ledger.balance(session, user.id, currency, lock=True, shard=ledger.house_shard(table_id))
    check_stake(session, user.id, currency, stake)


def run_actions(state: HandState, actions: list[Action]) -> None:
    """Apply ``actions``, then the dealer's part up to the next decision or the end."""
    try:
        for action in actions:
            state.apply(action)
        while (step := dealer_step(state)) is not None:
            state.apply(step)
    except ActionError as error:
        raise Refused(str(error)) from None


def mix_client_seeds(loaded: LoadedRound) -> None:
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


def staked(loaded: LoadedRound) -> int:
    """What the round's seats staked in all."""
    return sum(seat.staked for seat in loaded.seats)
