"""The High Card Flush family's advisor counts with the plain functions that the kernels
are compiled from: the same counts as the compiled kernel, and one hand's advice in a
fresh process imports no Numba; a process that loaded the kernels already counts with
them, to the same advice."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from feltlab.core.cards import full_deck
from feltlab.core.rules import load_rules
from feltlab.games.high_card_flush import advisor
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush import dealer_counts as plain
from feltlab.games.high_card_flush.advisor import suit_masks
from feltlab.games.high_card_flush.rules import FlushRules


def test_the_plain_counts_are_the_kernels() -> None:
    rules = load_rules("high-card-flush-toledo")
    assert isinstance(rules, FlushRules)
    deck, rng = full_deck(), np.random.default_rng(35)
    for index in range(300):
        picked = [deck[int(i)] for i in rng.choice(52, 7 + index % 5 + index % 3, replace=False)]
        player, dead, seen = picked[:7], picked[7:7 + index % 5], picked[7 + index % 5:]
        masks = suit_masks(player)
        out, known = suit_masks([*player, *dead]), suit_masks(seen)
        for qualify in (rules.qualifier.threshold, 3 << 13 | 1 << 5, 2 << 13):
            compiled = fk.dealer_counts_known(masks, out, known, qualify, fk.BINOM)
            counted = plain.dealer_counts_known(masks, out, known, qualify, plain.BINOM)
            assert [int(count) for count in counted] == [int(count) for count in compiled]


def test_a_process_with_the_kernels_advises_with_them(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    none = suit_masks(())
    fk.dealer_counts_known(none, none, none, 0, fk.BINOM)  # loaded, as the thread does
    assert advisor.dealer_counter() is fk.dealer_counts_known
    deck, rng = full_deck(), np.random.default_rng(36)
    samples = [[deck[int(i)] for i in rng.choice(52, 9, replace=False)] for _ in range(200)]
    compiled = [advisor.advise(rules, cards[:7], cards[7:8], cards[8:]) for cards in samples]
    monkeypatch.delitem(sys.modules, fk.__name__)
    assert advisor.dealer_counter() is plain.dealer_counts_known
    assert [advisor.advise(rules, cards[:7], cards[7:8], cards[8:]) for cards in samples
            ] == compiled


FRESH_PROCESS = """
import json, sys
from feltlab.analysis import advise
from feltlab.core.cards import parse_cards
from feltlab.core.rules import load_rules
advice = advise(load_rules("high-card-flush"), parse_cards("Ah Kh Qh Jh 9h 2s 3d"),
                dead=parse_cards("2h 3h"))
print(json.dumps({"numba": "numba" in sys.modules, "advice": advice.to_json()}))
"""


def test_a_fresh_process_advises_without_numba() -> None:
    run = subprocess.run([sys.executable, "-c", FRESH_PROCESS], capture_output=True,
                         text=True, check=True, timeout=300)
    fresh = json.loads(run.stdout)
    assert fresh["numba"] is False
    assert fresh["advice"]["best"] == "raise 2x"
    assert fresh["advice"]["dealer_hands"] == 32224114  # C(43, 7): 9 cards out
