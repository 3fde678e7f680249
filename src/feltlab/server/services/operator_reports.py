"""The pit's figures of the operators' real-money rounds: rounds, handle, win (the house's
result), hold, theoretical and expected win with the 95% band, by operator, currency and
chip value, over inclusive UTC days.

They are the same settled seats' figures as every report's (``seat_figures``, written at
settlement from the exact edges: :mod:`feltlab.server.services.figures`), found through
the table's operator's session (``tables.operator_session_id`` → ``operator_sessions``).
A real-mode session's table plays in the operator's currency (an ISO code such as
``EUR``), so its rounds never mix into feltlab's own ``cash`` and ``practice`` reports; a
demo session's table plays ``practice``, and is no operator's money, so it is not here.

Figures are in chips, as in every report; the money ones are also given in the
currency's minor units (chips × the session's chip value, summed as exact integers).
Rows are split by chip value, so that the chips of a row are all worth the same. Rows in
different currencies are not added up: there are no totals.

The rows are summed from the seats themselves: the kept sums of days that are over
(``seat_figure_days``) are only kept for ``cash`` and ``practice``.
"""

from __future__ import annotations

from typing import Any, Final

from sqlalchemy import func, select

from feltlab.core.csvsafe import csv_text
from feltlab.server.figure_models import SeatFigure
from feltlab.server.models import GameTable, table_of
from feltlab.server.operator_models import OperatorSession
from feltlab.server.services.context import Services
from feltlab.server.services.reports import (
    CURRENCIES,
    FIGURE_COLUMNS,
    Span,
    Sums,
    figure_cells,
    figures_of,
)

_F, _TABLES, _SESSIONS = table_of(SeatFigure), table_of(GameTable), table_of(OperatorSession)
KEY_COLUMNS: Final = ("operator", "currency", "chip_value")
MINOR_COLUMNS: Final = ("handle_minor", "win_minor", "theo_win_minor", "expected_win_minor")
_SUMMED: Final = ("rounds", "seats", "handle", "win", "theo_win", "expected_win", "variance")


def _per_table(span: Span) -> Any:
    """The span's seats in any currency but feltlab's own, summed by table (the index by
    currency and day gives them in order)."""
    query = select(_F.c.table_id, _F.c.currency,
                   func.sum(_F.c.first_seat).label("rounds"), func.count().label("seats"),
                   func.sum(_F.c.handle).label("handle"), func.sum(_F.c.win).label("win"),
                   func.sum(_F.c.theo_win).label("theo_win"),
                   func.sum(_F.c.expected_win).label("expected_win"),
                   func.sum(_F.c.variance).label("variance")
                   ).where(_F.c.currency.not_in(CURRENCIES))
    if span.start is not None:
        query = query.where(_F.c.day >= span.start.isoformat())
    if span.end is not None:
        query = query.where(_F.c.day <= span.end.isoformat())
    return query.group_by(_F.c.table_id, _F.c.currency).subquery()


def operator_rows(found: Services, span: Span, operator: str | None = None
                  ) -> list[dict[str, Any]]:
    """The rows of :func:`read_operator_report`, by operator, currency and chip value."""
    tables = _per_table(span)
    chip = _SESSIONS.c.chip_value
    keys = (_SESSIONS.c.operator_id, _SESSIONS.c.currency, chip)
    query = (select(*keys, *(func.sum(tables.c[name]).label(name) for name in _SUMMED))
             .select_from(tables.join(_TABLES, _TABLES.c.id == tables.c.table_id)
                          .join(_SESSIONS, _SESSIONS.c.id == _TABLES.c.operator_session_id))
             .where(_SESSIONS.c.mode == "real", _SESSIONS.c.currency == tables.c.currency)
             .group_by(*keys).order_by(*keys))
    if operator is not None:
        query = query.where(_SESSIONS.c.operator_id == operator)
    found.recorder.flush()  # the rounds settled a moment ago have their figures
    with found.read_connection() as connection:
        rows = list(connection.execute(query))
    answer = []
    for row in rows:
        sums, value = Sums.of(row), int(row.chip_value)
        answer.append({"operator": row.operator_id, "currency": row.currency,
                       "chip_value": value, **figures_of(sums),
                       "handle_minor": sums.handle * value, "win_minor": sums.win * value,
                       "theo_win_minor": sums.theo_win * value,
                       "expected_win_minor": sums.expected_win * value})
    return answer


def read_operator_report(found: Services, span: Span, operator: str | None = None
                         ) -> dict[str, Any]:
    """The operators' real-money figures over ``span``'s days (its currency is not
    used: each row has its own), of ``operator`` only when given."""
    return {"from": span.start.isoformat() if span.start else None,
            "to": span.end.isoformat() if span.end else None, "operator": operator,
            "rows": operator_rows(found, span, operator)}


def to_csv(answer: dict[str, Any]) -> str:
    """The report as CSV (:func:`~feltlab.core.csvsafe.csv_text`): a header row, then one
    line a row (no totals: currencies do not add up)."""
    return csv_text([[*KEY_COLUMNS, *FIGURE_COLUMNS, *MINOR_COLUMNS],
                     *([*(row[key] for key in KEY_COLUMNS), *figure_cells(row),
                        *(row[name] for name in MINOR_COLUMNS)] for row in answer["rows"])])
