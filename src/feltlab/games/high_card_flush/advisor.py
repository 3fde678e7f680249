"""The High Card Flush family's per-hand advisor: the exact EV of folding and of every
legal raise, over every dealer hand the unseen cards can make.

It counts the dealer's hands with the plain functions of :mod:`.dealer_counts` (the ones
:mod:`.counting` compiles for the analysis and protection kernels): one hand takes a
tenth of a millisecond in Python, and ``feltlab advise`` need not import Numba. A process
that imported those kernels already (a server, whose pit figures ask the advisor about
every decision settled, or an analysis) counts with the compiled counter once it is
loaded, which a background thread does on the first advice: the same counts (the tests
hold them equal), some 60 times sooner, and no advice ever waits for Numba.

>>> from feltlab.core.rules import load_rules
>>> from feltlab.core.cards import parse_cards
>>> advice = advise(load_rules("high-card-flush"), parse_cards("Th 8h 6h Js Ad Qd Jc"))
>>> advice.best, round(float(advice.options[1].ev), 6)
('raise 1x', -0.811515)
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from feltlab.core.cards import Card, CardError, ensure_count, ensure_distinct, format_cards
from feltlab.core.evaluators import best_flush
from feltlab.core.model import Advice, OptionValue
from feltlab.games.high_card_flush.dealer_counts import (
    BINOM,
    HAND_SIZE,
    Int64Array,
    dealer_counts_known,
)
from feltlab.games.high_card_flush.rules import FlushRules


def suit_masks(cards: Sequence[Card]) -> Int64Array:
    """The hand as four 13-bit rank masks, one per suit."""
    masks = np.zeros(4, dtype=np.int64)
    for card in cards:
        masks[card.suit] |= 1 << card.rank
    return masks


Counter = Callable[[Int64Array, Int64Array, Int64Array, int, Int64Array],
                   tuple[int, int, int, int, int]]
_KERNELS = "feltlab.games.high_card_flush.counting"
_loading = threading.Event()


def dealer_counter() -> Counter:
    """The compiled :func:`.dealer_counts.dealer_counts_known` where this process imported
    :mod:`.counting` already and its kernel is loaded, else the plain function: the
    kernel is then loaded (from Numba's cache, or compiled) in a background thread,
    never here, and :mod:`.counting` is never imported here."""
    compiled = sys.modules.get(_KERNELS)
    if compiled is None:
        return dealer_counts_known
    dispatcher = compiled.dealer_counts_known
    kernel: Counter = dispatcher
    if dispatcher.overloads:  # loaded (Numba's ``signatures`` would build a list)
        return kernel
    if not _loading.is_set():
        _loading.set()
        threading.Thread(target=_count_nothing, args=(kernel,), name="feltlab-flush-counter",
                         daemon=True).start()
    return dealer_counts_known


def _count_nothing(kernel: Counter) -> None:
    """One call with the advisor's argument types, which loads the kernel."""
    none = suit_masks(())
    kernel(none, none, none, 0, BINOM)


def advise(rules: FlushRules, cards: Sequence[Card], dead: Sequence[Card] = (),
           dealer: Sequence[Card] = ()) -> Advice:
    """Exact EV per ante (ante and raise) of folding and of every legal raise, over every
    dealer hand the unseen cards can make: ``dead`` cards are out of the deck (other
    seats' hands), ``dealer`` cards are the dealer's own, seen before the decision."""
    ensure_count(cards, HAND_SIZE, "player")
    if len(dealer) > HAND_SIZE:
        raise CardError(f"dealer: the dealer has {HAND_SIZE} cards, got {len(dealer)}")
    ensure_distinct([*cards, *dead, *dealer])
    if 52 - len(cards) - len(dead) < HAND_SIZE:
        raise CardError(f"dead: {len(dead)} dead cards leave too few for the dealer's hand")
    masks = suit_masks(cards)
    counts = dealer_counter()(masks, suit_masks([*cards, *dead]), suit_masks(dealer),
                              rules.qualifier.threshold, BINOM)
    not_qualified, worse, tie, better, total = (int(count) for count in counts)
    flush = best_flush(cards)
    options = [OptionValue("fold", Fraction(-1))]
    for size in range(1, rules.max_raise_multiple(flush.length) + 1):
        ev = Fraction(not_qualified + (worse - better) * (1 + size), total)
        options.append(OptionValue(f"raise {size}x", ev))
    best = max(reversed(options), key=lambda option: option.ev)  # ties: the larger wager
    details: dict[str, object] = {
        "flush": flush.describe(), "dealer_hands": total,
        "dealer_not_qualifying": not_qualified, "dealer_better": better, "tie": tie,
        "dealer_worse": worse}
    if dead or dealer:
        details |= {"dead": format_cards(dead), "dealer_seen": format_cards(dealer)}
    return Advice(rules.id, format_cards(cards), tuple(options), best.option, details)
