"""The toy game's exact math as the protocol asks for it: the PAR sheet by enumerating
every deal (52 player cards x 51 dealer cards), the optimal strategy, the advisor, the
strategy files and the capped returns.

A raise with a card of rank ``r`` (0 a deuce, 12 an ace) against the 51 unseen cards
wins on the ``4r`` lower cards, ties on the 3 others of its rank and loses on the
``4(12 - r)`` higher ones; its EV is ``(1 + m)(4r - 4(12 - r)) / 51`` antes (``m`` the
raise multiple) against -1 for the fold.

>>> rules = ToyRules.model_validate(EXAMPLE)
>>> optimal_raises(rules)[:4]
(False, False, False, True)
>>> analyze(rules, None).wager("ante").house_edge
Fraction(-29, 221)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Final

from feltlab.core.cards import (
    RANKS,
    Card,
    CardError,
    ensure_count,
    ensure_distinct,
    format_cards,
    full_deck,
    parse_cards,
)
from feltlab.core.family import AdviceInputs
from feltlab.core.model import (
    Advice,
    OptionValue,
    OutcomeLine,
    ParSheet,
    Progress,
    StrategyCard,
    WagerAnalysis,
)
from feltlab.core.settle import capped_shares

from .rules import EXAMPLE, ToyRules
from .settle import RANK_NAMES, a_rank, compare
from .strategy import ToyStrategy, parse_toy_strategy

DEALS: Final = 52 * 51
"""Every deal: the player's card, then the dealer's from the other 51."""
FOLD: Final = "fold"

__all__ = ["DEALS", "EXAMPLE", "advice_inputs", "advise", "analyze", "capped_returns",
           "evaluate_strategy", "hand_group", "optimal_raises", "parse_strategy",
           "strategy_card_plan"]


def deals() -> Iterator[tuple[Card, Card]]:
    """Every (player card, dealer card), each once."""
    deck = full_deck()
    for player in deck:
        for dealer in deck:
            if dealer != player:
                yield player, dealer


def raise_option(rules: ToyRules) -> str:
    """The advisor's name of the raise (``raise 1x``)."""
    return f"raise {rules.raise_multiple}x"


def raise_ev(rules: ToyRules, player: Card, unseen: Sequence[Card]) -> Fraction:
    """EV in antes of raising ``player`` when the dealer's card is any of ``unseen``."""
    wins_less_losses = sum(compare(player, dealer) for dealer in unseen)
    return Fraction((1 + rules.raise_multiple) * wins_less_losses, len(unseen))


def optimal_raises(rules: ToyRules) -> tuple[bool, ...]:
    """Whether the optimal strategy raises each rank (exact ties go to the raise)."""
    deck = full_deck()
    return tuple(raise_ev(rules, Card.of(rank, 0), [card for card in deck
                                                     if card != Card.of(rank, 0)]) >= -1
                 for rank in range(len(RANKS)))


def outcome_counts(raises: Callable[[int], bool]) -> Counter[str]:
    """Deals by outcome when the player raises the ranks ``raises`` says:
    ``fold``, ``win``, ``tie``, ``lose``."""
    counts: Counter[str] = Counter()
    for player, dealer in deals():
        if not raises(player.rank):
            counts[FOLD] += 1
        else:
            counts[("lose", "tie", "win")[compare(player, dealer) + 1]] += 1
    return counts


def main_wager(rules: ToyRules, raises: Callable[[int], bool], title: str) -> WagerAnalysis:
    """The Ante and Raise together, per unit of Ante, under a strategy by rank."""
    counts = outcome_counts(raises)
    both = 1 + rules.raise_multiple
    name = f"Raise {rules.raise_multiple}x"
    lines = (OutcomeLine("Fold", -1, counts[FOLD], 1),
             OutcomeLine(f"{name}, win", both, counts["win"], both),
             OutcomeLine(f"{name}, tie", 0, counts["tie"], both),
             OutcomeLine(f"{name}, lose", -both, counts["lose"], both))
    rates = {"raise_rate": Fraction(DEALS - counts[FOLD], DEALS)}
    return WagerAnalysis("ante", title, tuple(line for line in lines if line.count), DEALS,
                         rates, decisions=True)


def strategy_card_plan(rules: ToyRules) -> ToyStrategy:
    """The optimal strategy as a card: raise the lowest raising rank or better (raising
    is worth more with every rank, and an ace, never beaten, always raises)."""
    lowest = optimal_raises(rules).index(True)
    return ToyStrategy(name=f"{rules.name} strategy card", rules=rules.id,
                       raise_from=RANKS[lowest])


def _card_lines(rules: ToyRules, plan: ToyStrategy) -> tuple[str, ...]:
    folded = [RANK_NAMES[rank] for rank in range(plan.lowest_raise)]
    lines = [f"Raise ({rules.raise_multiple}x the Ante) with {a_rank(plan.lowest_raise)} or "
             "better."]
    if folded:
        lines.append("Fold a " + ", ".join(folded[:-1]) + (" or " if len(folded) > 1 else "")
                     + folded[-1] + ".")
    return tuple(lines)


def analyze(rules: ToyRules, progress: Progress | None) -> ParSheet:
    """The PAR sheet: the Ante and Raise under the optimal strategy, its card and map."""
    report = progress or (lambda done, total: None)
    report(0, 1)
    raises = optimal_raises(rules)
    main = main_wager(rules, lambda rank: raises[rank], "Ante and Raise (optimal strategy), "
                      "per unit of Ante")
    plan = strategy_card_plan(rules)
    card = StrategyCard(_card_lines(rules, plan), evaluate_strategy(rules, plan).house_edge,
                        main.house_edge)
    strategy_map = tuple((a_rank(rank),
                          raise_option(rules) if raises[rank] else FOLD, Fraction(1, 13))
                         for rank in range(len(RANKS)))
    notes = (f"Exact: every deal of one card to the player and one to the dealer, 52 x 51 = "
             f"{DEALS:,}.",
             "Optimal strategy breaks exact EV ties toward the raise.")
    report(1, 1)
    return ParSheet(rules.id, rules.name, (main,), card, strategy_map, notes)


def advice_inputs(rules: ToyRules, cards: str, community: str | None, colour: str | None,
                  bets: str | None) -> AdviceInputs:
    if colour is not None:
        raise ValueError(f"--colour is for 9 Card Flush, not {rules.id}")
    if community or (bets or "").strip():
        raise ValueError(f"{rules.id} has no community cards and no street bets")
    player = parse_cards(cards)
    ensure_count(player, 1, "player")
    return AdviceInputs(player)


def advise(rules: ToyRules, inputs: AdviceInputs, dead: Sequence[Card],
           seen: Sequence[Card]) -> Advice:
    """Exact EV of the fold and the raise for one card; ``dead`` cards are out of the deck
    (other seats' cards), ``seen`` the dealer's card when it was seen."""
    ensure_count(inputs.player, 1, "player")
    player = inputs.player[0]
    if len(seen) > 1:
        raise CardError(f"dealer (cards seen): the dealer gets 1 card, got {len(seen)}")
    ensure_distinct([player, *dead, *seen])
    out = {player, *dead}
    unseen = list(seen) or [card for card in full_deck() if card not in out]
    if not unseen:
        raise CardError(f"dead: {len(dead)} dead cards leave no card for the dealer")
    raised = raise_ev(rules, player, unseen)
    options = (OptionValue(FOLD, Fraction(-1)), OptionValue(raise_option(rules), raised))
    best = raise_option(rules) if raised >= -1 else FOLD
    signs = Counter(compare(player, dealer) for dealer in unseen)
    details: dict[str, object] = {"lower": signs[1], "equal": signs[0], "higher": signs[-1]}
    if dead or seen:
        details |= {"dead": format_cards(dead), "seen": format_cards(seen)}
    return Advice(rules.id, format_cards([player]), options, best, details)


def parse_strategy(text: str, origin: str) -> ToyStrategy:
    return parse_toy_strategy(text)


def hand_group(rules: ToyRules, inputs: AdviceInputs) -> str:
    """The player's one card by its rank (``a queen``)."""
    return a_rank(inputs.player[0].rank)


def evaluate_strategy(rules: ToyRules, strategy: object) -> WagerAnalysis:
    if not isinstance(strategy, ToyStrategy):
        raise ValueError(f"a {type(strategy).__name__} is not a strategy for {rules.id}")
    return main_wager(rules, strategy.raises, "Ante and Raise (given strategy), per unit "
                      "of Ante")


def capped_returns(rules: ToyRules, bets: Mapping[str, int]) -> dict[str, Fraction]:
    """The Ante's house edge (with its Raise, per unit of Ante) under the optimal strategy
    once the aggregate payout cap applies, and ``total`` (the same: the Ante is the only
    initial wager)."""
    ante = bets["ante"]
    raised = rules.raise_amount(ante)
    results = {FOLD: {"ante": -ante}, "win": {"ante": ante, "raise": raised},
               "tie": {"ante": 0, "raise": 0}, "lose": {"ante": -ante, "raise": -raised}}
    raises = optimal_raises(rules)
    counts = outcome_counts(lambda rank: raises[rank])
    net = sum((count * sum(capped_shares(results[outcome], rules.max_aggregate_payout)
                           .values(), Fraction(0))
               for outcome, count in counts.items()), Fraction(0))
    edge = -net / (DEALS * ante)
    return {"ante": edge, "total": edge}
