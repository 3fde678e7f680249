"""Exact math of 9 Card Flush (``NineCardRules``): PAR sheet, optimal fold/play,
strategy card, advice and capped returns.

By colour symmetry the analysis is for red; black is the same. A deal is 3 community
cards (C(52,3) sets) and the player's 6 from the other 49 (C(49,6) sets): every wager
is counted over all 22,100 x 13,983,816 = 309,042,333,600 of them. Only the number of
hearts and of diamonds matters, so the deals are counted by multivariate
hypergeometric products: C(13, hearts) C(13, diamonds) C(26, black) for the community
and C(13 - h, x_h) C(13 - d, x_d) C(26 - b, x_b) for the player's six.

>>> from feltlab.core.cards import parse_cards
>>> from feltlab.core.rules import load_rules
>>> advise(load_rules("nine-card-flush"), parse_cards("Ah Kh 2s"), "red").best
'play'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Final, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, ValidationError

from feltlab.core.cards import (
    COLOUR_SUITS,
    Card,
    CardError,
    ensure_count,
    ensure_distinct,
    format_cards,
)
from feltlab.core.memo import RecordCodec, StrategyMemo, fields_key
from feltlab.core.model import (
    Advice,
    OptionValue,
    OutcomeLine,
    ParSheet,
    Progress,
    StrategyCard,
    StrategyRow,
    WagerAnalysis,
)
from feltlab.core.records import (
    Record,
    card_of_record,
    card_record,
    rows_of_record,
    rows_record,
    wager_of_record,
    wager_record,
)
from feltlab.core.rules import (
    PayTable,
    describe_validation_error,
    parse_toml,
    pays_for,
    validate_strict,
)
from feltlab.core.settle import WagerError, bonus_result, capped_shares
from feltlab.games.nine_card_flush.rules import NineCardRules
from feltlab.games.nine_card_flush.settle import all9_sign, check_colour

SUIT_SIZE = 13
OTHER_SIZE = 26  # the cards of the other colour
COMMUNITY = 3
PLAYER = 6
DEALS = math.comb(52, COMMUNITY) * math.comb(52 - COMMUNITY, PLAYER)


@dataclass(frozen=True)
class Deal:
    """A class of deals: community (first suit, second suit, other colour) and the
    player's six likewise, with how many deals it holds."""

    community: tuple[int, int, int]
    player: tuple[int, int, int]
    count: int

    @property
    def nine(self) -> int:
        return max(self.community[0] + self.player[0], self.community[1] + self.player[1])

    @property
    def six(self) -> int:
        return max(self.player[:2])

    @property
    def three(self) -> int:
        return max(self.community[:2])


def suit_splits(total: int, sizes: tuple[int, int, int]) -> Iterator[tuple[int, int, int]]:
    for first in range(min(total, sizes[0]) + 1):
        for second in range(min(total - first, sizes[1]) + 1):
            other = total - first - second
            if other <= sizes[2]:
                yield first, second, other


def split_ways(taken: tuple[int, int, int], sizes: tuple[int, int, int]) -> int:
    return math.prod(math.comb(size, count) for size, count in zip(sizes, taken, strict=True))


def community_classes() -> list[tuple[tuple[int, int, int], int]]:
    """(hearts, diamonds, black) of the community and how many 3-card sets have it."""
    sizes = (SUIT_SIZE, SUIT_SIZE, OTHER_SIZE)
    return [(split, split_ways(split, sizes)) for split in suit_splits(COMMUNITY, sizes)]


def player_classes(community: tuple[int, int, int]) -> list[Deal]:
    """Every class of the player's six given the community (counts add to C(49, 6))."""
    sizes = (SUIT_SIZE - community[0], SUIT_SIZE - community[1], OTHER_SIZE - community[2])
    return [Deal(community, split, split_ways(split, sizes))
            for split in suit_splits(PLAYER, sizes)]


def all_deals() -> list[Deal]:
    """Every class of the full deal, counts multiplied out (they add up to ``DEALS``)."""
    deals = []
    for community, ways in community_classes():
        deals += [Deal(community, deal.player, deal.count * ways)
                  for deal in player_classes(community)]
    return deals


def all9_signs(rules: NineCardRules) -> tuple[int, ...]:
    """All 9 result per unit (1 win, 0 push, -1 lose) by 9-card flush count, as
    :func:`feltlab.core.settle.settle_nine_card` decides it for a played hand.

    >>> from feltlab.core.rules import load_rules
    >>> all9_signs(load_rules("nine-card-flush"))
    (-1, -1, -1, 0, 1, 1, 1, 1, 1, 1)
    """
    return tuple(all9_sign(rules, count) for count in range(COMMUNITY + PLAYER + 1))


@cache
def _play_ev(signs: tuple[int, ...], community: tuple[int, int, int]) -> Fraction:
    """EV per unit of All 9 of playing (All 9 and Play together) on this community."""
    total = sum(2 * signs[deal.nine] * deal.count for deal in player_classes(community))
    return Fraction(total, math.comb(52 - COMMUNITY, PLAYER))


def optimal_plays(rules: NineCardRules) -> dict[tuple[int, int, int], bool]:
    """Play (True) or fold per community class (hearts, diamonds, black); ties play."""
    signs = all9_signs(rules)
    return {community: _play_ev(signs, community) >= -1 for community, _ in community_classes()}


# Strategies as data ---------------------------------------------------------------------

NineFeature = Literal["colour_cards", "flush_cards"]


class NineStrategy(BaseModel):
    """Play when any entry of ``play_when`` is met: every feature at least its minimum.
    ``colour_cards``: community cards of the chosen colour; ``flush_cards``: most
    community cards in one suit of it. An empty list never plays.

    >>> parse_nine_strategy('play_when = [{colour_cards = 1}]').plays((1, 0, 2))
    True
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    game: Literal["nine-card-flush"] = "nine-card-flush"
    rules: str = ""
    play_when: tuple[dict[NineFeature, int], ...] = ()

    def plays(self, community: tuple[int, int, int]) -> bool:
        have = {"colour_cards": community[0] + community[1],
                "flush_cards": max(community[:2])}
        return any(all(have[name] >= least for name, least in condition.items())
                   for condition in self.play_when)


def parse_nine_strategy(text: str) -> NineStrategy:
    try:
        return validate_strict(NineStrategy, parse_toml(text, "the strategy"))
    except ValidationError as error:
        raise ValueError("invalid 9 Card Flush strategy: "
                         + describe_validation_error(error)) from error
    except ValueError as error:
        raise ValueError(f"invalid 9 Card Flush strategy: {error}") from error


def _all9_wager(rules: NineCardRules, plays: Callable[[tuple[int, int, int]], bool],
                title: str) -> WagerAnalysis:
    signs = all9_signs(rules)
    folded, results = 0, {1: 0, 0: 0, -1: 0}
    for deal in all_deals():
        if plays(deal.community):
            results[signs[deal.nine]] += deal.count
        else:
            folded += deal.count
    win_at, push_at = rules.all9_win_at, rules.all9_push_at
    push_text = (f"{push_at}" if push_at is not None and win_at - 1 == push_at else
                 f"{push_at}-{win_at - 1}")
    lines = [OutcomeLine(f"Play, {win_at}+ flush cards (win)", 2, results[1], 2),
             OutcomeLine(f"Play, {push_text} flush cards (push)", 0, results[0], 2),
             OutcomeLine("Play, lose", -2, results[-1], 2),
             OutcomeLine("Fold", -1, folded, 1)]
    lines = [line for line in lines if line.count]
    rates = {"play rate": Fraction(DEALS - folded, DEALS)}
    return WagerAnalysis("all9", title, tuple(lines), DEALS, rates, decisions=True)


def evaluate_strategy(rules: NineCardRules, strategy: NineStrategy) -> WagerAnalysis:
    """Exact return of All 9 and Play (per unit of All 9) when ``strategy`` is played.

    >>> from feltlab.core.rules import load_rules
    >>> evaluate_strategy(load_rules("nine-card-flush"), NineStrategy()).house_edge
    Fraction(1, 1)
    """
    return _all9_wager(rules, strategy.plays, "All 9 and Play (given strategy)")


def _count_wager(name: str, title: str, table: PayTable,
                 count_of: Callable[[Deal], int]) -> WagerAnalysis:
    by_count: dict[int, int] = {}
    for deal in all_deals():
        by_count[count_of(deal)] = by_count.get(count_of(deal), 0) + deal.count
    lines = []
    for count in sorted(by_count, reverse=True):
        pays = pays_for(table, count)
        key = None if pays is None else max(line for line in table if line <= count)
        lines.append(OutcomeLine(_plural(count, "flush card"), bonus_result(table, count, 1),
                                 by_count[count], key=key))
    return WagerAnalysis(name, title, tuple(lines), DEALS)


def bonus_wagers(rules: NineCardRules) -> tuple[WagerAnalysis, ...]:
    return (_count_wager("bonus9", "9 Card Bonus", rules.bonus9_pays, lambda d: d.nine),
            _count_wager("player6", "Player 6", rules.player6_pays, lambda d: d.six),
            _count_wager("first3", "First 3", rules.first3_pays, lambda d: d.three))


# Strategy card and map ------------------------------------------------------------------

def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _describe(condition: Mapping[NineFeature, int]) -> str:
    parts = [f"at least {_plural(least, 'community card')} of "
             + ("your colour" if name == "colour_cards" else "one suit of your colour")
             for name, least in condition.items()]
    return " and ".join(parts)


def _candidate_cards() -> list[NineStrategy]:
    """Simple rules first: always, one threshold, then two thresholds."""
    singles: list[dict[NineFeature, int]] = [
        {name: least} for name in ("colour_cards", "flush_cards") for least in (1, 2, 3)]
    cards = [NineStrategy(play_when=({},))]
    cards += [NineStrategy(play_when=(single,)) for single in singles]
    for first in singles:
        for second in singles:
            if list(first) < list(second):
                cards.append(NineStrategy(play_when=(first, second)))
                cards.append(NineStrategy(play_when=({**first, **second},)))
    return cards


def strategy_card(rules: NineCardRules, optimal: WagerAnalysis) -> tuple[NineStrategy,
                                                                         StrategyCard]:
    """The simplest candidate rule with the lowest exact house edge."""
    best: tuple[Fraction, NineStrategy] | None = None
    for candidate in _candidate_cards():
        edge = evaluate_strategy(rules, candidate).house_edge
        if best is None or edge < best[0]:
            best = (edge, candidate)
    assert best is not None
    edge, card = best
    conditions = [_describe(condition) or "always" for condition in card.play_when]
    lines = ("Play with " + "; or with ".join(conditions) + "; otherwise fold.",)
    return card, StrategyCard(lines, edge, optimal.house_edge)


def _community_label(community: tuple[int, int, int]) -> str:
    high, low = sorted(community[:2], reverse=True)
    if high == 0:
        return "no card of your colour"
    return f"{high} + {low} of your colour's two suits" if low else f"{high} of one suit"


def _strategy_map(rules: NineCardRules) -> list[tuple[str, str, Fraction]]:
    shares: dict[tuple[str, str], int] = {}
    plays = optimal_plays(rules)
    for community, ways in community_classes():
        key = (_community_label(community), "play" if plays[community] else "fold")
        shares[key] = shares.get(key, 0) + ways
    total = math.comb(52, COMMUNITY)
    return [(group, decision, Fraction(count, total))
            for (group, decision), count in sorted(shares.items())]


_STRATEGY_FIELDS: Final = ("all9_win_at", "all9_push_at")
_StrategyPart = tuple[WagerAnalysis, StrategyCard, tuple[StrategyRow, ...]]


def _part_record(part: _StrategyPart) -> Record:
    main, card, strategy_map = part
    return {"main": wager_record(main), "card": card_record(card),
            "map": rows_record(strategy_map)}


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
        main = _all9_wager(rules, lambda community: plays[community],
                           "All 9 and Play (optimal strategy)")
        _, card = strategy_card(rules, main)
        return main, card, tuple(_strategy_map(rules))

    return _strategy_parts.get_or_build(fields_key(rules, _STRATEGY_FIELDS), build)


def analyze(rules: NineCardRules, progress: Progress | None = None) -> ParSheet:
    """The exact PAR sheet: All 9 with Play under the optimal decision, the three
    optional wagers, the strategy card and the strategy map."""
    report = progress or (lambda done, total: None)
    report(0, 2)
    main, card, strategy_map = _strategy_part(rules)
    report(1, 2)
    notes = ("Every wager counted over the full deal: C(52,3) community x C(49,6) player "
             f"cards = {DEALS:,}; red analysed, black is the same by symmetry.",
             "All 9 figures are per unit of All 9 and include the Play wager; exact ties "
             "between fold and play go to play.")
    offered = tuple(wager for wager in bonus_wagers(rules) if wager.name in rules.limits)
    sheet = ParSheet(rules.id, rules.name, (main, *offered), card, strategy_map, notes)
    report(2, 2)
    return sheet


# Decision tables and advice -------------------------------------------------------------

def play_table(rules: NineCardRules) -> npt.NDArray[np.int8]:
    """Optimal decision as a 4 x 4 array: ``[cards of the colour's first suit, cards of its
    second suit]`` in the community (the rest are of the other colour) -> 1 play, 0 fold.
    Entries whose two counts add up to more than 3 are 0 (they cannot happen).

    >>> from feltlab.core.rules import load_rules
    >>> play_table(load_rules("nine-card-flush"))[0, 0]
    np.int8(0)
    """
    table = np.zeros((4, 4), dtype=np.int8)
    for (first, second, _), play in optimal_plays(rules).items():
        table[first, second] = int(play)
    return table


def _community_split(community: Sequence[Card], colour: str) -> tuple[int, int, int]:
    first, second = COLOUR_SUITS[colour]
    counts = [sum(1 for card in community if card.suit == suit) for suit in (first, second)]
    return counts[0], counts[1], len(community) - sum(counts)


def _colour_split(cards: Sequence[Card], colour: str) -> tuple[int, int, int]:
    """(first suit, second suit, other colour) counts of the chosen colour."""
    first, second = COLOUR_SUITS[colour]
    return (sum(1 for card in cards if card.suit == first),
            sum(1 for card in cards if card.suit == second),
            sum(1 for card in cards if card.suit not in (first, second)))


def play_ev_known(rules: NineCardRules, community: tuple[int, int, int],
                  out: tuple[int, int, int], seen: tuple[int, int, int]) -> Fraction:
    """EV per unit of All 9 of playing when, besides the community split, the cards
    split as ``out`` are out of the deck and the player's own cards split as ``seen``
    are already known (colour splits as :func:`_colour_split`)."""
    signs = all9_signs(rules)
    sizes = tuple(full - c - o - s for full, c, o, s in zip(
        (SUIT_SIZE, SUIT_SIZE, OTHER_SIZE), community, out, seen, strict=True))
    first, second, other = sizes
    still = PLAYER - sum(seen)
    total = 0
    for split in suit_splits(still, (first, second, other)):
        nine = max(community[0] + seen[0] + split[0], community[1] + seen[1] + split[1])
        total += 2 * signs[nine] * split_ways(split, (first, second, other))
    return Fraction(total, math.comb(first + second + other, still))


def advise(rules: NineCardRules, community: Sequence[Card], colour: str,
           dead: Sequence[Card] = (), seen: Sequence[Card] = ()) -> Advice:
    """Exact EV per unit of All 9 of folding and of playing on these community cards;
    ``dead`` cards are out of the deck and ``seen`` are cards of the player's own six
    glimpsed before the decision (by default neither: the six are unknown)."""
    chosen = check_colour(colour)
    ensure_count(community, COMMUNITY, "community")
    if len(seen) > PLAYER:
        raise CardError(f"dealer (cards seen): the player gets {PLAYER} cards, got {len(seen)}")
    ensure_distinct([*community, *dead, *seen])
    if 52 - COMMUNITY - len(dead) - len(seen) < PLAYER - len(seen):
        raise CardError(f"dead: {len(dead)} dead cards leave too few for the player's six")
    split = _community_split(community, chosen)
    if dead or seen:
        play = play_ev_known(rules, split, _colour_split(dead, chosen),
                             _colour_split(seen, chosen))
    else:
        play = _play_ev(all9_signs(rules), split)
    options = (OptionValue("fold", Fraction(-1)), OptionValue("play", play))
    best = "play" if play >= -1 else "fold"
    details: dict[str, object] = {"colour": chosen, "community": format_cards(community),
                                  "colour_cards": split[0] + split[1],
                                  "flush_cards": max(split[:2])}
    if dead or seen:
        details |= {"dead": format_cards(dead), "seen": format_cards(seen)}
    return Advice(rules.id, format_cards(community), options, best, details)


# Capped returns -------------------------------------------------------------------------

def capped_returns(rules: NineCardRules, bets: Mapping[str, int]) -> dict[str, Fraction]:
    """House edge per unit of each wager bet (``all9`` with its Play, per unit of All 9,
    under the optimal uncapped decision) once ``rules.max_aggregate_payout`` caps a hand's
    winnings, plus ``total``: the expected loss per unit of all the wagers placed. A
    capped hand's excess is taken from the winning wagers in proportion to their wins.

    >>> from feltlab.core.rules import load_rules
    >>> edges = capped_returns(load_rules("nine-card-flush"), {"all9": 10, "first3": 5})
    >>> sorted(edges)
    ['all9', 'first3', 'total']
    """
    stakes = {name: amount for name, amount in bets.items() if amount}
    for name in stakes:
        if name not in rules.limits:
            raise WagerError(f"unknown wager {name!r} for {rules.id}")
    if stakes.get("all9", 0) <= 0:
        raise WagerError("capped_returns needs an all9 wager above 0")
    plays, signs = optimal_plays(rules), all9_signs(rules)
    tables = {"bonus9": rules.bonus9_pays, "player6": rules.player6_pays,
              "first3": rules.first3_pays}
    sums = dict.fromkeys(stakes, Fraction(0))
    for deal in all_deals():
        counts = {"bonus9": deal.nine, "player6": deal.six, "first3": deal.three}
        all9 = stakes["all9"]
        results = {"all9": 2 * signs[deal.nine] * all9 if plays[deal.community] else -all9}
        for name, amount in stakes.items():
            if name != "all9":
                results[name] = bonus_result(tables[name], counts[name], amount)
        for name, value in capped_shares(results, rules.max_aggregate_payout).items():
            sums[name] += value * deal.count
    edges = {name: -sums[name] / (DEALS * stakes[name]) for name in stakes}
    edges["total"] = -sum(sums.values(), Fraction(0)) / (DEALS * sum(stakes.values()))
    return edges


