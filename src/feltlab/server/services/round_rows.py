"""A shared round's seats and who sits at its table, read as two columns of the
statement that reads the round (one JSON array each) instead of two statements of their
own: a shared money request runs two statements fewer.

The first read carries them on SQLite; on PostgreSQL the round is read again once the
table's lock is held (:func:`feltlab.server.services.shared_rounds._after_the_lock`), and
that read carries them. A row without these columns has them read by statements of their
own (:func:`seats_of` and :func:`sitting_of` answer None).
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import ColumnElement, case, func, select

from feltlab.core import jsontext
from feltlab.server.models import RoundSeat, TableSeat, User, table_of

_SEATS, _SITTING, _USERS = table_of(RoundSeat), table_of(TableSeat), table_of(User)
SEAT_NAMES: Final = tuple(column.name for column in _SEATS.c)
_ABSENT: Final = object()


def _array(dialect: str, *columns: Any) -> Any:
    if dialect == "postgresql":
        return func.json_agg(func.json_build_array(*columns))
    return func.json_group_array(func.json_array(*columns))


def seats_and_sitting(dialect: str, round_id: ColumnElement[Any],
                      table_id: ColumnElement[Any],
                      shared: ColumnElement[bool] | None = None
                      ) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """The columns ``seats_json`` (round ``round_id``'s seats, each the values of
    :data:`SEAT_NAMES`) and ``sitting_json`` (table ``table_id``'s seats taken: seat,
    user id, username) for ``dialect``; with ``shared``, only where it is true (a private
    table's read makes neither)."""
    seats: ColumnElement[Any] = (
        select(_array(dialect, *(_SEATS.c[name] for name in SEAT_NAMES)))
        .where(_SEATS.c.round_id == round_id).correlate_except(_SEATS).scalar_subquery())
    sitting: ColumnElement[Any] = (
        select(_array(dialect, _SITTING.c.seat, _SITTING.c.user_id, _USERS.c.username))
        .select_from(_SITTING.join(_USERS, _USERS.c.id == _SITTING.c.user_id))
        .where(_SITTING.c.table_id == table_id).correlate_except(_SITTING, _USERS)
        .scalar_subquery())
    if shared is not None:
        seats, sitting = case((shared, seats)), case((shared, sitting))
    return seats.label("seats_json"), sitting.label("sitting_json")


def _rows(row: Any, name: str) -> list[list[Any]] | None:
    value: Any = getattr(row, name, _ABSENT)
    if value is _ABSENT:
        return None
    if value is None:  # no row to aggregate
        return []
    found: list[list[Any]] = value if isinstance(value, list) else jsontext.loads(value)
    return found  # (PostgreSQL's driver reads JSON itself)


def seats_of(row: Any) -> list[dict[str, Any]] | None:
    """The round's seats the row carries (their columns by name, in seat order), or None
    for a row read without them."""
    values = _rows(row, "seats_json")
    if values is None:
        return None
    return sorted((dict(zip(SEAT_NAMES, seat, strict=True)) for seat in values),
                  key=lambda seat: int(seat["seat"]))


def sitting_of(row: Any) -> list[tuple[int, int, str]] | None:
    """Who sits at the table, as the row carries it: (seat, user id, username) in seat
    order, or None for a row read without it."""
    values = _rows(row, "sitting_json")
    if values is None:
        return None
    return sorted((int(seat), int(user_id), str(name)) for seat, user_id, name in values)
