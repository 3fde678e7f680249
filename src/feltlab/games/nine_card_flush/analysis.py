"""Exact math of 9 Card Flush (``NineCardRules``): the PAR sheet, assembled here from the
modules that each do one job:

- :mod:`.deals`: every deal (3 community cards, the player's 6) counted by suit class,
  red analysed (black is the same by symmetry);
- :mod:`.decisions`: the optimal fold or play per community class, as a table, and the
  advice on one hand;
- :mod:`.wagers`: All 9 with its Play under a decision, any strategy's return, the
  three optional wagers and the capped returns;
- :mod:`.strategy_card`: the strategy card and the strategy map;
- :mod:`.strategy`: strategies as data (the strategy file's format).

What the All 9 thresholds decide (All 9 under the optimal decision, the card, the map)
is kept per those fields (in this process and in the derived-data cache): an edit of an
optional wager's pay table re-counts only that wager.
"""

from __future__ import annotations

from typing import Final

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
from feltlab.games.nine_card_flush.deals import DEALS
from feltlab.games.nine_card_flush.decisions import optimal_plays
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.strategy_card import strategy_card, strategy_map
from feltlab.games.nine_card_flush.wagers import all9_wager, bonus_wagers

_STRATEGY_FIELDS: Final = ("all9_win_at", "all9_push_at")
_StrategyPart = tuple[WagerAnalysis, StrategyCard, tuple[StrategyRow, ...]]


def _part_record(part: _StrategyPart) -> Record:
    main, card, rows = part
    return {"main": wager_record(main), "card": card_record(card), "map": rows_record(rows)}


def _part_of_record(record: Record) -> _StrategyPart:
    card = card_of_record(record["card"])
    assert card is not None
    return wager_of_record(record["main"]), card, rows_of_record(record["map"])


_strategy_parts: StrategyMemo[_StrategyPart] = StrategyMemo(
    kind="nine-strategy-part", codec=RecordCodec(_part_record, _part_of_record))


def _strategy_part(rules: NineCardRules) -> _StrategyPart:
    """All 9 under the optimal decision, the strategy card and the strategy map: what
    the All 9 thresholds decide (the same for any bonus pays, limits or name)."""
    def build() -> _StrategyPart:
        plays = optimal_plays(rules)
        main = all9_wager(rules, lambda community: plays[community],
                          "All 9 and Play (optimal strategy)")
        _, card = strategy_card(rules, main)
        return main, card, tuple(strategy_map(rules))

    return _strategy_parts.get_or_build(fields_key(rules, _STRATEGY_FIELDS), build)


def analyze(rules: NineCardRules, progress: Progress | None = None) -> ParSheet:
    """The exact PAR sheet: All 9 with Play under the optimal decision, the three
    optional wagers, the strategy card and the strategy map."""
    report = progress or (lambda done, total: None)
    report(0, 2)
    main, card, rows = _strategy_part(rules)
    report(1, 2)
    notes = ("Every wager counted over the full deal: C(52,3) community x C(49,6) player "
             f"cards = {DEALS:,}; red analysed, black is the same by symmetry.",
             "All 9 figures are per unit of All 9 and include the Play wager; exact ties "
             "between fold and play go to play.")
    offered = tuple(wager for wager in bonus_wagers(rules) if wager.name in rules.limits)
    sheet = ParSheet(rules.id, rules.name, (main, *offered), card, rows, notes)
    report(2, 2)
    return sheet
