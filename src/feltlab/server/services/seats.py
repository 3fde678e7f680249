"""Seats at shared tables: taking one and leaving it. Who sits where is read by
:func:`feltlab.server.services.tables.seated`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from feltlab.core.rules import load_rules
from feltlab.server.auth import Caller
from feltlab.server.errors import Conflict, Refused
from feltlab.server.models import TableSeat
from feltlab.server.services.context import Services
from feltlab.server.services.tables import seated, visible_table
from feltlab.server.views import table_json


def take(found: Services, caller: Caller, table_id: int, seat: int) -> dict[str, Any]:
    """Sit at a shared table; answers the table with who sits where now."""
    with found.transaction() as session:
        table = visible_table(session, table_id, caller)
        if not table.shared or table.status != "open":
            raise Conflict(f"table {table_id} is not an open shared table")
        if seat > load_rules(table.rules_id).seats:
            raise Refused(f"seat {seat} does not exist at table {table_id}")
        taken = session.scalars(select(TableSeat).where(TableSeat.table_id == table_id))
        for row in taken:
            if row.user_id == caller.user_id:
                raise Conflict(f"you already sit at seat {row.seat}")
            if row.seat == seat:
                raise Conflict(f"seat {seat} is taken")
        session.add(TableSeat(table_id=table_id, seat=seat, user_id=caller.user_id))
        session.flush()
        answer = table_json(table, seated(session, table_id))
    found.publish(table_id)
    return answer


def leave(found: Services, caller: Caller, table_id: int) -> dict[str, Any]:
    """Leave the caller's seat at the table; answers the table as it is now."""
    with found.transaction() as session:
        table = visible_table(session, table_id, caller)
        row = session.scalars(select(TableSeat).where(
            TableSeat.table_id == table_id, TableSeat.user_id == caller.user_id)).one_or_none()
        if row is None:
            raise Conflict(f"you have no seat at table {table_id}")
        session.delete(row)
        session.flush()
        answer = table_json(table, seated(session, table_id))
    found.publish(table_id)
    return answer
