"""A player's rating, as a pit rates players and then some: hands an hour, average bet
and theoretical win, as table-management systems give them, and what the player's
decisions cost per 100 hands with the three decision patterns that cost most, each from
the advisor's exact EV of every decision the player made (stored at settlement).

A rating's hours run from a player's first to last round of a session; a gap of more than
30 minutes between rounds starts a new session.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import Connection, select

from feltlab.core.family import wager_title
from feltlab.core.rules import load_rules
from feltlab.server.clock import aware
from feltlab.server.figure_models import SeatFigure
from feltlab.server.models import table_of
from feltlab.server.services.reports import Span

SESSION_GAP: Final = timedelta(minutes=30)
TOP_PATTERNS: Final = 3
_F = table_of(SeatFigure)


def session_hours(times: list[datetime]) -> float:
    """Hours played: each session's first to last round, sessions split by gaps over
    30 minutes (``times`` in order).

    >>> from datetime import datetime
    >>> at = [datetime(2026, 1, 1, 10, m) for m in (0, 20, 40)] + [datetime(2026, 1, 1, 12)]
    >>> session_hours(at)
    0.6666666666666666
    """
    hours = 0.0
    start = previous = None
    for moment in times:
        if previous is None or moment - previous > SESSION_GAP:
            if start is not None and previous is not None:
                hours += (previous - start).total_seconds() / 3600
            start = moment
        previous = moment
    if start is not None and previous is not None:
        hours += (previous - start).total_seconds() / 3600
    return hours


def rating(connection: Connection, user_id: int, span: Span) -> dict[str, Any]:
    """The player's rating over ``span``."""
    query = (select(_F.c.settled_at, _F.c.handle, _F.c.theo_win, _F.c.expected_win,
                    _F.c.main_stake, _F.c.rules_id, _F.c.costs)
             .where(_F.c.user_id == user_id, _F.c.currency == span.currency))
    if span.start is not None:
        query = query.where(_F.c.day >= span.start.isoformat())
    if span.end is not None:
        query = query.where(_F.c.day <= span.end.isoformat())
    rows = connection.execute(query.order_by(_F.c.settled_at, _F.c.id)).all()
    hands = len(rows)
    hours = session_hours([aware(row.settled_at) for row in rows])
    handle = sum(int(row.handle) for row in rows)
    theo = sum(float(row.theo_win) for row in rows)
    given_away = 0.0
    patterns: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for row in rows:
        for pattern, cost in json.loads(row.costs):
            given_away += float(cost) * int(row.main_stake)
            if cost > 0:
                found = patterns[(row.rules_id, pattern)]
                found[0] += 1
                found[1] += float(cost)
                found[2] += float(cost) * int(row.main_stake)
    costliest = sorted(patterns.items(), key=lambda item: -item[1][2])[:TOP_PATTERNS]
    return {"user_id": user_id, "hands": hands, "hours": hours,
            "hands_per_hour": hands / hours if hours > 0 else None,
            "average_bet": handle / hands if hands else None, "handle": handle,
            "theo_win": theo, "given_away": given_away,
            "decision_cost_per_100": 100 * given_away / hands if hands else None,
            "costliest": [_pattern(rules_id, pattern, int(count), per_unit, money)
                          for (rules_id, pattern), (count, per_unit, money) in costliest]}


def _pattern(rules_id: str, pattern: str, count: int, per_unit: float, money: float
             ) -> dict[str, Any]:
    unit = wager_title(load_rules(rules_id).main_wager)
    each = per_unit / count
    return {"rules": rules_id, "pattern": pattern, "times": count, "each": each,
            "total": money,
            "text": f"{pattern} ({rules_id}): {each:.2f} × the {unit} each, "
                    f"{count} time{'s' if count != 1 else ''}"}
