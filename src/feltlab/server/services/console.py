"""What the operator's console shows beside the reports: every shared table with who sits
where and its open round, and the rule sets in play with their exact edges, flagged when
a wager favours the player or when they are over the house exposure limit."""

from __future__ import annotations

from typing import Any

from sqlalchemy import case, func, select

from feltlab.analysis.figures import wager_math
from feltlab.core import registry
from feltlab.core.rules import load_rules
from feltlab.server.models import GameTable, Round
from feltlab.server.services.context import Services
from feltlab.server.services.publish_checks import (
    exposure_problem,
    house_edges,
    player_favoured,
)
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
    """The rule sets of every table ever opened and the published ones not withdrawn, with
    each wager's exact house edge from the PAR sheet (computed once per fingerprint), the
    wagers favouring the player, and whether the rule set is over the house exposure limit
    (it opens no table)."""
    with found.read() as session:
        used = {rules_id: (int(count), int(open_count or 0)) for rules_id, count, open_count
                in session.execute(select(GameTable.rules_id, func.count(),
                                          func.count(case((GameTable.status == "open", 1))))
                                   .group_by(GameTable.rules_id))}
    for rules_id in registry.open_published_ids():
        used.setdefault(rules_id, (0, 0))
    answer = []
    for rules_id, (count, open_count) in sorted(used.items()):
        rules = load_rules(rules_id)
        edges = wager_math(rules).edges
        answer.append({"rules": rules.id, "name": rules.name, "fingerprint": rules.fingerprint,
                       "tables": count, "open_tables": open_count,
                       "edges": {name: float(edge) for name, edge in edges.items()},
                       "player_favoured": list(player_favoured(house_edges(rules))),
                       "over_exposure_limit": exposure_problem(
                           rules, found.exposure_limit) is not None})
    return answer
