"""An independent settler, written from RULES.md alone, for differential tests.

It shares nothing with ``feltlab.core.settle`` or ``feltlab.core.evaluators``: cards are (rank,
suit) pairs read here, every hand is evaluated by the plainest method (sorting,
counting, trying every run), and a rule set is read only for its numbers. It settles
valid hands only; refusing bad input is the real settler's job.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

RANK_TEXT = "23456789TJQKA"
SUIT_TEXT = "shdc"
COLOURS = {"red": "hd", "black": "sc"}
Cards = list[tuple[int, str]]


def read(text: str | list[str]) -> Cards:
    """``"Ah 10d"`` as [(12, 'h'), (8, 'd')] (ranks 0 = deuce .. 12 = ace)."""
    cards = []
    if isinstance(text, list):
        text = " ".join(text)
    for token in text.replace(",", " ").split():
        rank_text, suit = token[:-1].upper(), token[-1].lower()
        cards.append((RANK_TEXT.index("T" if rank_text == "10" else rank_text), suit))
    return cards


def flush_key(cards: Cards) -> tuple[int, list[int]]:
    """(length, ranks high to low) of the best suit: more cards, then higher ranks."""
    return max((len(ranks), sorted(ranks, reverse=True)) for ranks in (
        [rank for rank, suit in cards if suit == each] for each in SUIT_TEXT))


def straight_flush_run(cards: Cards) -> int:
    best = 0
    for suit in SUIT_TEXT:
        ranks = {rank for rank, s in cards if s == suit}
        if 12 in ranks:
            ranks.add(-1)  # the ace plays low as well
        for start in range(-1, 13):
            length = 0
            while start + length in ranks:
                length += 1
            best = max(best, length)
    return best


def colour_count(cards: Cards, colour: str) -> int:
    return max(sum(1 for _, s in cards if s == suit) for suit in COLOURS[colour])


def poker_class(cards: Cards) -> str:
    ranks = sorted((rank for rank, _ in cards), reverse=True)
    counts = sorted(Counter(ranks).values(), reverse=True)
    flush = len({suit for _, suit in cards}) == 1
    distinct = sorted(set(ranks))
    straight = len(distinct) == 5 and (distinct[4] - distinct[0] == 4
                                       or distinct == [0, 1, 2, 3, 12])
    if straight and flush:
        return "royal_flush" if distinct == [8, 9, 10, 11, 12] else "straight_flush"
    if counts[0] == 4:
        return "four_of_a_kind"
    if counts[:2] == [3, 2]:
        return "full_house"
    if flush:
        return "flush"
    if straight:
        return "straight"
    if counts[0] == 3:
        return "three_of_a_kind"
    if counts[:2] == [2, 2]:
        return "two_pair"
    if counts[0] == 2:
        pair = next(rank for rank, n in Counter(ranks).items() if n == 2)
        return "high_pair" if pair >= 9 else "mid_pair" if pair >= 4 else "low_pair"
    return "high_card"


def three_card_class(cards: Cards) -> str:
    ranks = sorted(rank for rank, _ in cards)
    flush = len({suit for _, suit in cards}) == 1
    straight = len(set(ranks)) == 3 and (ranks[2] - ranks[0] == 2 or ranks == [0, 1, 12])
    if straight and flush:
        return "straight_flush"
    if len(set(ranks)) == 1:
        return "three_of_a_kind"
    if straight:
        return "straight"
    if flush:
        return "flush"
    if len(set(ranks)) == 2:
        return "pair"
    return "high_card"


def count_pays(table: Mapping[int, int], count: int) -> int | None:
    reached = [line for line in table if line <= count]
    return table[max(reached)] if reached else None


def net(pays: int | str | None, stake: int) -> int:
    if pays is None:
        return -stake
    return 0 if pays == "push" else int(pays) * stake


def capped(results: Mapping[str, int], cap: int | None) -> int:
    won = sum(value for value in results.values() if value > 0)
    lost = sum(value for value in results.values() if value < 0)
    return (min(won, cap) if cap is not None else won) + lost


def settle(rules: Any, request: Mapping[str, Any]) -> dict[str, Any]:
    """``{"results", "total"}`` for a valid payout request under ``rules``."""
    stakes = {name: amount for name, amount in request["wagers"].items() if amount}
    if rules.game == "high-card-flush":
        results = _flush(rules, stakes, request)
    elif rules.game == "nine-card-flush":
        results = _nine(rules, stakes, request)
    else:
        results = _stud(rules, stakes, request)
    return {"results": results, "total": capped(results, rules.max_aggregate_payout)}


def _flush(rules: Any, stakes: dict[str, int], request: Mapping[str, Any]) -> dict[str, int]:
    player, dealer = read(request["player"]), read(request["dealer"])
    raised = request.get("raise") or 0
    ante = stakes["ante"]
    mine, theirs = flush_key(player), flush_key(dealer)
    length, ranks = theirs
    threshold = RANK_TEXT.index(rules.qualifier.min_high_card)
    qualifies = length > rules.qualifier.min_length or (
        length == rules.qualifier.min_length and ranks[0] >= threshold)
    results: dict[str, int] = {}
    if not raised:
        results["ante"] = -ante
    elif not qualifies:
        results["ante"], results["raise"] = ante, 0
    else:
        sign = (mine > theirs) - (mine < theirs)
        results["ante"], results["raise"] = sign * ante, sign * raised
    counts = {"flush": mine[0], "straight_flush": straight_flush_run(player)}
    tables = {"flush": rules.flush_pays, "straight_flush": rules.straight_flush_pays}
    for name in ("flush", "straight_flush"):
        if name in stakes:
            if not raised and not rules.settled_on_fold[name]:
                results[name] = -stakes[name]
            else:
                results[name] = net(count_pays(tables[name], counts[name]), stakes[name])
    return results


def _nine(rules: Any, stakes: dict[str, int], request: Mapping[str, Any]) -> dict[str, int]:
    community, player = read(request["community"]), read(request["player"])
    colour = request["colour"]
    nine = colour_count(community + player, colour)
    all9 = stakes["all9"]
    results: dict[str, int] = {}
    if not request["play"]:
        results["all9"] = -all9
    else:
        sign = 1 if nine >= rules.all9_win_at else (
            0 if rules.all9_push_at is not None and nine >= rules.all9_push_at else -1)
        results["all9"] = results["play"] = sign * all9
    counts = {"bonus9": nine, "player6": colour_count(player, colour),
              "first3": colour_count(community, colour)}
    tables = {"bonus9": rules.bonus9_pays, "player6": rules.player6_pays,
              "first3": rules.first3_pays}
    for name in ("bonus9", "player6", "first3"):
        if name in stakes:
            results[name] = net(count_pays(tables[name], counts[name]), stakes[name])
    return results


def _stud(rules: Any, stakes: dict[str, int], request: Mapping[str, Any]) -> dict[str, int]:
    player, community = read(request["player"]), read(request["community"])
    streets: Sequence[int] = request.get("streets", [])
    hand = poker_class(player + community)
    folded = len(streets) < 3
    results: dict[str, int] = {}
    results["ante"] = -stakes["ante"] if folded else net(rules.pays.get(hand), stakes["ante"])
    for name, amount in zip(("street3", "street4", "street5"), streets, strict=False):
        results[name] = -amount if folded else net(rules.pays.get(hand), amount)
    if "bonus3" in stakes:
        results["bonus3"] = net(rules.bonus3_pays.get(three_card_class(community)),
                                stakes["bonus3"])
    return results

