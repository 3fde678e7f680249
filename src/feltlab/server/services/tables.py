"""Tables: finding and locking them, who sits where, and opening, listing and closing
them (private practice tables against the house, shared tables opened by admins)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from feltlab.analysis.figures import warm
from feltlab.core.rules import Rules, RulesError, is_known, load_rules, open_ids
from feltlab.server.auth import Caller
from feltlab.server.clock import now
from feltlab.server.errors import NotFound, Refused, not_found
from feltlab.server.fairness import commitment, new_server_seed, next_seed
from feltlab.server.models import GameTable, Round, TableSeat, User, table_of
from feltlab.server.services import audit
from feltlab.server.services.publish_checks import exposure_problem
from feltlab.server.views import table_json

if TYPE_CHECKING:  # annotations only: the services' context imports these modules
    from feltlab.server.services.context import Services

_SEATS, _USERS = table_of(TableSeat), table_of(User)
_SEATED = (select(_SEATS.c.seat, _USERS.c.username)
           .join(_USERS, _USERS.c.id == _SEATS.c.user_id)
           .where(_SEATS.c.table_id == bindparam("table_id")).order_by(_SEATS.c.seat))
_ROUNDS = table_of(Round)
_NEWEST_SEED = (select(_ROUNDS.c.server_seed, _ROUNDS.c.phase)
                .where(_ROUNDS.c.table_id == bindparam("table_id"))
                .order_by(_ROUNDS.c.id.desc()).limit(1))


def next_commitment(session: Session, table: GameTable) -> str | None:
    """The commitment of a private table's next seed, derived from its seed key and its
    newest round's seed (shown to its owner alone); None for a shared table, or one
    from before seed keys. A round waiting for its stake (an operator's wallet refused
    it, or has not answered) deals the next bet with its own seed."""
    if table.shared or not table.seed_key:
        return None
    newest = session.execute(_NEWEST_SEED, {"table_id": table.id}).first()
    if newest is not None and newest.phase == "wagers":
        return commitment(newest.server_seed)
    return commitment(next_seed(table.seed_key, None if newest is None
                                else newest.server_seed))


def visible_table(session: Session, table_id: int, caller: Caller) -> GameTable:
    """A shared table, or the caller's own private one; any other is not found."""
    table = session.get(GameTable, table_id)
    if table is None or (not table.shared and table.owner_id != caller.user_id):
        raise not_found(f"table {table_id}")
    return table


def seated(session: Session, table_id: int) -> list[tuple[int, str]]:
    """Who sits where at a shared table: (seat, username) in seat order."""
    return [(seat, name) for seat, name in
            session.connection().execute(_SEATED, {"table_id": table_id})]


def table_rules(rules_id: str, exposure_limit: int) -> Rules:
    """The rule set a table is opened with: a built-in one, or a published one not
    withdrawn (through the registry), that can pay one seat no more than
    ``exposure_limit`` on one round; its exact edges, which settlement reads, start
    computing in the background now."""
    known = open_ids()
    if rules_id not in known:
        if is_known(rules_id):
            raise Refused(f"the rule set {rules_id[:64]!r} is withdrawn: it opens no new table")
        raise NotFound(f"there is no rule set {rules_id[:64]!r}; rule sets are "
                       f"{', '.join(known)}")
    try:
        rules = load_rules(rules_id)
    except RulesError as error:
        raise Refused(str(error)) from None
    problem = exposure_problem(rules, exposure_limit)
    if problem is not None:
        raise Refused(f"the rule set {rules.id!r} opens no new table: {problem}; publish a "
                      "design within the limit")
    warm(rules)
    return rules


def open_private(found: Services, caller: Caller, rules_id: str, practice: bool
                 ) -> dict[str, Any]:
    """A private table against the house, ready at once (practice, or cash)."""
    rules = table_rules(rules_id, found.exposure_limit)
    with found.transaction() as session:
        table = GameTable(rules_id=rules.id, fingerprint=rules.fingerprint,
                          currency="practice" if practice else "cash", shared=False,
                          owner_id=caller.user_id, status="open", created_at=now(),
                          seed_key=new_server_seed())
        session.add(table)
        session.flush()
        return table_json(table, next_commitment=next_commitment(session, table))


def open_shared(found: Services, admin: Caller, rules_id: str, currency: str, name: str,
                betting_seconds: int, decision_seconds: int) -> dict[str, Any]:
    """A shared table: players sit, bet in the betting window, decide in turn."""
    rules = table_rules(rules_id, found.exposure_limit)
    with found.transaction() as session:
        table = GameTable(rules_id=rules.id, fingerprint=rules.fingerprint,
                          currency=currency, shared=True, owner_id=None, status="open",
                          name=name, betting_seconds=betting_seconds,
                          decision_seconds=decision_seconds, created_at=now())
        session.add(table)
        session.flush()
        audit.record(session, admin.username, "table_opened", table=table.id,
                     rules=rules.id, currency=currency, name=name)
        return table_json(table, [])


def close_shared(found: Services, admin: Caller, table_id: int) -> dict[str, Any]:
    """Close a shared table to new bets (a round under way is played to the end)."""
    with found.transaction() as session:
        table = session.get(GameTable, table_id)
        if table is None or not table.shared:
            raise not_found(f"shared table {table_id}")
        table.status = "closed"
        audit.record(session, admin.username, "table_closed", table=table_id)
        answer = table_json(table, seated(session, table_id))
    found.publish(table_id)
    return answer


def list_for(found: Services, caller: Caller) -> list[dict[str, Any]]:
    """The shared tables open now and the caller's own tables, newest first."""
    with found.read() as session:
        tables = session.scalars(select(GameTable).where(
            ((GameTable.shared.is_(True)) & (GameTable.status == "open"))
            | (GameTable.owner_id == caller.user_id)).order_by(GameTable.id.desc()).limit(100))
        return [table_json(table, seated(session, table.id) if table.shared else None,
                           next_commitment(session, table))
                for table in tables]
