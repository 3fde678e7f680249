"""The pit's reports for admins: the four groupings (JSON or CSV), the operators'
real-money figures, and the alerts."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import Response

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import AdminDep, ServicesDep
from feltlab.server.api.operator_responses import OperatorReport
from feltlab.server.api.responses import Alerts, Report
from feltlab.server.errors import NotFound
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import operator_reports, reports
from feltlab.server.services.reports import Span

router = APIRouter(prefix="/api/v1/admin", tags=["admin"], responses=refusals(403),
                   route_class=StrictJSONRoute)

Grouping = Annotated[str, Path(max_length=20)]
"""players, tables, days or rules: another is 404 (checked when the request runs;
``operators`` is a report of its own, :func:`read_operator_report`)."""
_DAY = {"pattern": r"^\d{4}-\d{2}-\d{2}$", "max_length": 10,
        "json_schema_extra": {"format": "date"}}
DayText = Annotated[str | None, Query(description="The last UTC day, YYYY-MM-DD (inclusive).",
                                      **_DAY)]
"""A day as the schema declares it (``format: date``), parsed when the request runs: a day
that does not exist (2026-13-01) is 422 naming the parameter."""
FromDay = Annotated[str | None, Query(alias="from", **_DAY,
                                      description="The first UTC day, YYYY-MM-DD (inclusive).")]
Currency = Annotated[Literal["cash", "practice"], Query()]
OperatorFilter = Annotated[str | None, Query(max_length=32, pattern=r"^[a-z0-9_-]{1,32}$",
                                             description="One operator's id (else all).")]


def span_of(start: str | None, end: str | None, currency: str) -> Span:
    """The span the query names: inclusive UTC days, and the currency."""
    return Span(reports.parse_day(start, "from"), reports.parse_day(end, "to"), currency)


def _csv(text: str, name: str) -> Response:
    return Response(text, media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{name}.csv"'})


@router.get("/reports/operators", response_model=OperatorReport,
            responses={200: {"content": {"text/csv": {}}}})
def read_operator_report(caller: AdminDep, found: ServicesDep, start: FromDay = None,
                         to: DayText = None, operator: OperatorFilter = None,
                         format: Literal["json", "csv"] = "json") -> Any:
    """The operators' real-money rounds by operator, currency and chip value: rounds,
    handle, win, hold, theoretical and expected win with the 95% band, in chips and in
    the currency's minor units; ``?format=csv`` gives the same as CSV. (Declared before
    ``/reports/{grouping}``, which would take its path.)"""
    answer = operator_reports.read_operator_report(found, span_of(start, to, "cash"),
                                                   operator)
    if format == "csv":
        return _csv(operator_reports.to_csv(answer), "feltlab-operators")
    return answer


@router.get("/reports/{grouping}", response_model=Report, response_model_exclude_unset=True,
            responses={200: {"content": {"text/csv": {}}}, **refusals(404)})
def read_report(grouping: Grouping, caller: AdminDep, found: ServicesDep,
                start: FromDay = None, to: DayText = None, currency: Currency = "cash",
                format: Literal["json", "csv"] = "json") -> Any:
    """Handle, win, hold, theoretical and expected win with the 95% band, by player,
    table, day or rule set over inclusive UTC days, with the totals, the last day's, and
    month- and year-to-date; ``?format=csv`` gives the same as CSV."""
    if grouping not in reports.GROUPINGS:
        raise NotFound(f"no report {grouping[:20]!r}: reports group by "
                       f"{', '.join(reports.GROUPINGS)}")
    answer = reports.read_report(found, grouping, span_of(start, to, currency))
    if format == "csv":
        return _csv(reports.to_csv(answer), f"feltlab-{grouping}")
    return answer


@router.get("/alerts", response_model=Alerts, response_model_exclude_unset=True)
def read_alerts(caller: AdminDep, found: ServicesDep, start: FromDay = None,
                to: DayText = None, currency: Currency = "cash") -> dict[str, Any]:
    """Table-days and players whose win falls outside its 95% band."""
    return reports.read_alerts(found, span_of(start, to, currency))
