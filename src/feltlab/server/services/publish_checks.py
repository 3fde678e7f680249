"""What a rule set must pass to be published, and to open a table.

* Its exposure (:mod:`feltlab.core.exposure`: the most one round can pay one seat at its
  maximum wagers, before the aggregate cap) is within the house exposure limit
  (``FELTLAB_HOUSE_EXPOSURE_LIMIT``). Nothing overrides this; a table opening checks it
  again, so that a rule set published before the limit, or under a higher one, opens no
  table while it is above it.
* No wager it offers favours the player (a negative exact house edge: the main wager's
  under its optimal strategy, each side bet's), unless the admin publishing it says so
  with ``allow_player_edge``; the audit log records that they did.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from feltlab.analysis.figures import wager_math
from feltlab.core.exposure import Exposure, exposure
from feltlab.core.rules import Rules
from feltlab.server.errors import Refused
from feltlab.server.settings import HOUSE_EXPOSURE_LIMIT


def exposure_problem(rules: Rules, limit: int) -> str | None:
    """Why the rule set may pay one seat too much on one round, or ``None``."""
    found = exposure(rules)
    if found.total <= limit:
        return None
    return (f"{rules.id} can pay one seat {found.total:,} units on one round at its maximum "
            f"wagers ({found.describe()}), above the house exposure limit of {limit:,} "
            f"({HOUSE_EXPOSURE_LIMIT})")


def house_edges(rules: Rules) -> dict[str, Fraction]:
    """The exact house edge of each wager the rule set offers (from its PAR sheet, kept
    per fingerprint: the main wager's under the optimal strategy); for a game without
    exact math, the upper 95% bound of its Monte Carlo estimate (a wager refused only when
    even that bound favours the player)."""
    try:
        found = wager_math(rules)
        edges = found.upper95 if found.estimated else found.edges
    except ValueError as error:  # a question the design's math cannot answer
        raise Refused(str(error).splitlines()[0][:500]) from None
    return {name: edges[name] for name in rules.limits if name in edges}


def player_favoured(edges: dict[str, Fraction]) -> dict[str, Fraction]:
    """The wagers whose house edge is negative, with their edges."""
    return {name: edge for name, edge in edges.items() if edge < 0}


def _percent(edge: Fraction) -> str:
    return f"{float(edge):.4%}"


@dataclass(frozen=True)
class PublishChecks:
    """What publishing a rule set would find: each offered wager's house edge and the
    rule set's exposure against the limit."""

    rules: Rules
    edges: dict[str, Fraction]
    exposure: Exposure
    limit: int

    @property
    def player_favoured(self) -> dict[str, Fraction]:
        return player_favoured(self.edges)

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules.id, "fingerprint": self.rules.fingerprint,
                "house_edges": {name: float(edge) for name, edge in self.edges.items()},
                "player_favoured": list(self.player_favoured),
                "exposure": self.exposure.total, "exposure_limit": self.limit,
                "exposure_detail": self.exposure.describe()}


def checks(rules: Rules, limit: int) -> PublishChecks:
    """The checks of a rule set, refusing nothing."""
    return PublishChecks(rules, house_edges(rules), exposure(rules), limit)


def require_publishable(rules: Rules, limit: int, allow_player_edge: bool
                        ) -> dict[str, Fraction]:
    """Refuse a rule set over the exposure limit, or favouring the player without
    ``allow_player_edge``; answer the player-favoured wagers allowed (empty: none)."""
    problem = exposure_problem(rules, limit)
    if problem is not None:
        raise Refused(f"not published: {problem}")
    favoured = player_favoured(house_edges(rules))
    if favoured and not allow_player_edge:
        edges = ", ".join(f"{name} {_percent(edge)}" for name, edge in favoured.items())
        raise Refused(f"not published: {rules.id} favours the player, with a negative house "
                      f"edge on {edges}; send \"allow_player_edge\": true to publish it "
                      "anyway")
    return favoured
