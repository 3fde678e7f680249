"""What the operator's console shows beside the reports: every shared table with who sits
where and its open round, and the rule sets in play with their exact edges."""

from __future__ import annotations

from typing import Any

from sqlalchemy import case, func, select

from feltlab.analysis.figures import wager_math
from feltlab.core.rules import load_rules
from feltlab.server.models import GameTable, Round
from feltlab.server.services.context import Services
from feltlab.server.services.tables import seated
from feltlab.server.views import table_json


def tables(found: Services) -> list[dict[str, Any]]:
    """The shared tables (open first, newest first) with their seats and open round."""
    with found.read() as session:
        shared = session.scalars(select(GameTable).where(GameTable.shared.is_(True))
                                 .order_by(GameTable.status.desc(), GameTable.id.desc())
                                 .limit(200)).all()
        open_rounds = {int(table_id): int(round_id) for table_id, round_id in session.execute(
            select(Round.table_id, func.min(Round.id)).where(
                Round.phase != "complete", Round.table_id.in_([t.id for t in shared]))
            .group_by(Round.table_id))}
        return [{**table_json(table, seated(session, table.id)),
                 "open_round": open_rounds.get(table.id)} for table in shared]


def rule_sets(found: Services) -> list[dict[str, Any]]:
    """The rule sets of every table ever opened, with each wager's exact house edge from
    the PAR sheet (computed once per fingerprint)."""
    with found.read() as session:
        used = session.execute(select(GameTable.rules_id, func.count(),
                                      func.count(case((GameTable.status == "open", 1))))
                               .group_by(GameTable.rules_id).order_by(GameTable.rules_id)
                               ).all()
    answer = []
    for rules_id, count, open_count in used:
        rules = load_rules(rules_id)
        edges = wager_math(rules).edges
        answer.append({"rules": rules.id, "name": rules.name, "fingerprint": rules.fingerprint,
                       "tables": int(count), "open_tables": int(open_count or 0),
                       "edges": {name: float(edge) for name, edge in edges.items()}})
    return answer
