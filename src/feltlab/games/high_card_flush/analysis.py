"""Exact math of the High Card Flush family (any :class:`~feltlab.core.rules.FlushRules`):
the PAR sheet, assembled here from the modules that each do one job:

- :mod:`.cells`: every player hand counted against every dealer hand (dealer hands
  counted by suit polynomials, never dealt) into cells by flush value, straight-flush
  run and decision category, once per qualifier (kept in memory and on disk);
- :mod:`.decisions`: the optimal raise per cell (and as a table a simulator plays),
  and a flush-based strategy's;
- :mod:`.wagers`: each wager's return from the cells under those decisions: the main
  game, both bonuses, any strategy's return (:func:`.wagers.evaluate_strategy`) and the
  capped returns (:func:`.wagers.capped_returns`);
- :mod:`.strategy_card`: the strategy card and the strategy map.

What the optimal strategy decides (the main game, the card, the map) depends only on
the qualifier and the raise sizes, so it is kept per those fields (in this process and
in the derived-data cache): an edit of a bonus pay table re-counts only the bonuses.

The per-hand advisor is :mod:`.advisor` (re-exported here).

>>> from feltlab.core.rules import load_rules
>>> from feltlab.core.cards import parse_cards
>>> advice = advise(load_rules("high-card-flush"), parse_cards("Th 8h 6h Js Ad Qd Jc"))
>>> advice.best, round(float(advice.options[1].ev), 6)
('raise 1x', -0.811515)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from feltlab.core.memo import RecordCodec, StrategyMemo, fields_key
from feltlab.core.model import ParSheet, Progress, StrategyCard, StrategyRow, WagerAnalysis
from feltlab.core.records import (
    Record,
    card_of_record,
    card_record,
    rows_of_record,
    rows_record,
    wager_of_record,
    wager_record,
)
from feltlab.games.high_card_flush.advisor import advise as advise
from feltlab.games.high_card_flush.cells import clear_cache as clear_cells
from feltlab.games.high_card_flush.cells import qualifier_cells
from feltlab.games.high_card_flush.decisions import optimal_decisions, strategy_decisions
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.high_card_flush.strategy_card import (
    card_threshold,
    strategy_map,
    threshold_card,
)
from feltlab.games.high_card_flush.wagers import bonus_wager, main_wager

Int64Array = npt.NDArray[np.int64]


@dataclass(frozen=True)
class _StrategyPart:
    """What the optimal strategy decides: the same for every rule set with the same
    qualifier and raise sizes, whatever its pays, limits or name."""

    decisions: Int64Array
    main: WagerAnalysis
    card: StrategyCard
    strategy_map: tuple[StrategyRow, ...]


def _part_record(part: _StrategyPart) -> Record:
    return {"decisions": part.decisions.tolist(), "main": wager_record(part.main),
            "card": card_record(part.card), "map": rows_record(part.strategy_map)}


def _part_of_record(record: Record) -> _StrategyPart:
    card = card_of_record(record["card"])
    assert card is not None
    return _StrategyPart(np.array(record["decisions"], dtype=np.int64),
                         wager_of_record(record["main"]), card,
                         rows_of_record(record["map"]))


_STRATEGY_FIELDS: Final = ("qualifier", "raise_multiples", "hand_size")
_strategy_parts: StrategyMemo[_StrategyPart] = StrategyMemo(
    kind="flush-strategy-part", codec=RecordCodec(_part_record, _part_of_record))


def _strategy_part(rules: FlushRules, progress: Progress | None) -> _StrategyPart:
    def build() -> _StrategyPart:
        cells = qualifier_cells(rules, progress)
        optimal = optimal_decisions(rules)
        main = main_wager(cells, optimal,
                          "Ante and Raise (optimal strategy), per unit of Ante")
        card_strategy, card_lines = threshold_card(rules, cells)
        card_wager = main_wager(cells, strategy_decisions(rules, card_strategy),
                                "strategy card")
        card = StrategyCard(card_lines, card_wager.house_edge, main.house_edge)
        return _StrategyPart(optimal, main, card,
                             strategy_map(cells, optimal, card_threshold(card_strategy)))

    return _strategy_parts.get_or_build(fields_key(rules, _STRATEGY_FIELDS), build)


def analyze(rules: FlushRules, progress: Progress | None = None) -> ParSheet:
    """The exact PAR sheet: main game under optimal play and both bonus wagers."""
    part = _strategy_part(rules, progress)
    cells, optimal = qualifier_cells(rules, progress), part.decisions
    main, card = part.main, part.card
    notes = [
        "Exact: every player hand (up to suit permutation) against all C(45,7) dealer hands.",
        "Optimal strategy breaks exact EV ties toward the larger wager.",
    ]
    if not rules.settled_on_fold["flush"]:
        notes.append("A fold loses the Flush bonus: it is analysed with the player following "
                     "the optimal main-game strategy (a folded hand loses the bonus).")
    if not rules.settled_on_fold["straight_flush"]:
        notes.append("A fold loses the Straight Flush bonus: it is analysed with the player "
                     "following the optimal main-game strategy.")
    if rules.max_aggregate_payout is not None:
        notes.append(f"Figures ignore the ${rules.max_aggregate_payout:,} aggregate payout "
                     "cap; see capped_returns for its effect at given bet sizes.")
    return ParSheet(
        rules_id=rules.id,
        rules_name=rules.name,
        wagers=(main, bonus_wager(rules, cells, optimal, "flush"),
                bonus_wager(rules, cells, optimal, "straight_flush")),
        strategy_card=card,
        strategy_map=part.strategy_map,
        notes=tuple(notes),
    )


def clear_cache() -> None:
    """Forget the enumerations done so far (for honest timings)."""
    clear_cells()
    _strategy_parts.clear()
