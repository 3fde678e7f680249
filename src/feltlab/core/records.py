"""The exact-math model as JSON records, exact (fractions as text), so that what an optimal
strategy decides can be kept in the derived-data cache (:mod:`feltlab.core.cache`) and
read back equal, by any process.

>>> import json
>>> wager = WagerAnalysis("ante", "Ante", (OutcomeLine("win", Fraction(3, 2), 2, 2, "w"),
...                                       OutcomeLine("lose", -1, 3)), 5,
...                       {"raise": Fraction(1, 3)}, decisions=True)
>>> wager_of_record(json.loads(json.dumps(wager_record(wager)))) == wager
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from feltlab.core.model import OutcomeLine, StrategyCard, StrategyRow, WagerAnalysis

Record = dict[str, Any]


def _number(value: Fraction | int) -> str | int:
    """An ``int`` stays a JSON number; a :class:`Fraction` is written as its text."""
    return str(value) if isinstance(value, Fraction) else value


def _number_of(value: str | int) -> Fraction | int:
    return Fraction(value) if isinstance(value, str) else value


def wager_record(wager: WagerAnalysis) -> Record:
    return {"name": wager.name, "title": wager.title, "total": wager.total,
            "decisions": wager.decisions,
            "rates": {name: str(rate) for name, rate in wager.rates.items()},
            "lines": [[line.label, _number(line.net), line.count, _number(line.wagered),
                       line.key] for line in wager.lines]}


def wager_of_record(record: Mapping[str, Any]) -> WagerAnalysis:
    lines = tuple(OutcomeLine(label, _number_of(net), count, _number_of(wagered), key)
                  for label, net, count, wagered, key in record["lines"])
    return WagerAnalysis(record["name"], record["title"], lines, record["total"],
                         {name: Fraction(rate) for name, rate in record["rates"].items()},
                         record["decisions"])


def card_record(card: StrategyCard | None) -> Record | None:
    if card is None:
        return None
    return {"lines": list(card.lines), "house_edge": str(card.house_edge),
            "optimal_house_edge": str(card.optimal_house_edge)}


def card_of_record(record: Mapping[str, Any] | None) -> StrategyCard | None:
    if record is None:
        return None
    return StrategyCard(tuple(record["lines"]), Fraction(record["house_edge"]),
                        Fraction(record["optimal_house_edge"]))


def rows_record(rows: Sequence[StrategyRow]) -> list[list[str]]:
    return [[hands, decision, str(share)] for hands, decision, share in rows]


def rows_of_record(record: Sequence[Sequence[str]]) -> tuple[StrategyRow, ...]:
    return tuple((hands, decision, Fraction(share)) for hands, decision, share in record)
