"""Shared helpers: run ``feltlab payout`` through the real CLI and check its answers."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt
import pytest
from typer.testing import CliRunner

from feltlab.cli import app
from feltlab.core import kernels
from feltlab.core.cards import Card, format_cards, full_deck, parse_cards
from feltlab.core.evaluators import best_flush, colour_flush_count, longest_straight_flush

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class CliOutcome:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


def run_cli(args: list[str], stdin: str | None = None) -> CliOutcome:
    """Invoke ``feltlab ARGS`` in-process with ``stdin``; stdout and stderr kept apart."""
    result = CliRunner().invoke(app, args, input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return CliOutcome(result.exit_code, result.stdout, result.stderr)


def payout(document: object) -> CliOutcome:
    """``feltlab payout`` with ``document`` as JSON on standard input."""
    return run_cli(["payout"], json.dumps(document))


def settled(document: object) -> Any:
    """The settlement printed for a valid request (fails the test on any error)."""
    outcome = payout(document)
    assert outcome.exit_code == 0, outcome.stderr
    assert outcome.stderr == ""
    return outcome.json()


def assert_refused(outcome: CliOutcome, *fragments: str) -> str:
    """Exit status 2, nothing on stdout, one ``error:`` line on stderr naming ``fragments``."""
    assert outcome.exit_code == 2, (outcome.stdout, outcome.stderr)
    assert outcome.stdout == ""
    assert "Traceback" not in outcome.stderr
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1, outcome.stderr
    line = lines[0]
    assert line.startswith("error: "), line
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not in {line!r}"
    return line


def hand(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def load_data(name: str) -> Any:
    return json.loads((DATA / name).read_text("utf-8"))


# --- differential tests: kernels against the reference evaluators ---------------------

Hands = list[tuple[Card, ...]]
Reference = Callable[[tuple[Card, ...]], int]
Kernel = Callable[[npt.NDArray[np.uint8]], npt.NDArray[np.integer]]


def as_array(hands: Sequence[Sequence[Card]]) -> npt.NDArray[np.uint8]:
    return np.array([[card.index for card in hand] for hand in hands], dtype=np.uint8)


def reference(function: Reference, hands: Hands) -> npt.NDArray[np.int64]:
    return np.fromiter((function(hand) for hand in hands), dtype=np.int64, count=len(hands))


def assert_same(fast: npt.NDArray[np.integer], slow: npt.NDArray[np.int64], hands: Hands,
                what: str) -> None:
    different = np.flatnonzero(fast.astype(np.int64) != slow)
    if different.size:
        first = int(different[0])
        pytest.fail(f"{what}: {different.size} hands differ, first {format_cards(hands[first])}"
                    f": kernel {int(fast[first])}, reference {int(slow[first])}")


def random_hands(size: int, count: int, seed: int) -> Hands:
    """``count`` hands of ``size`` distinct cards from the full deck, seeded."""
    order = np.argsort(np.random.default_rng(seed).random((count, 52)), axis=1)[:, :size]
    deck = full_deck()
    return [tuple(deck[index] for index in row) for row in order.tolist()]


def flush_value(cards: tuple[Card, ...]) -> int:
    return best_flush(cards).value


def red_count(cards: tuple[Card, ...]) -> int:
    return colour_flush_count(cards, "red")


def black_count(cards: tuple[Card, ...]) -> int:
    return colour_flush_count(cards, "black")


def _red_kernel(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.int8]:
    return kernels.colour_flush_counts(hands, "red")


def _black_kernel(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.int8]:
    return kernels.colour_flush_counts(hands, "black")


SEVEN_CARD_CHECKS: list[tuple[str, Reference, Kernel]] = [
    ("flush value", flush_value, kernels.flush_values),
    ("straight flush length", longest_straight_flush, kernels.straight_flush_lengths),
    ("red flush cards", red_count, _red_kernel),
    ("black flush cards", black_count, _black_kernel),
]
CHECK_IDS = [check[0] for check in SEVEN_CARD_CHECKS]


@nb.njit(cache=True)
def seven_card_hands_from(first: int, out: npt.NDArray[np.uint8]) -> int:
    """Fill ``out`` with every 7-card hand whose lowest card is ``first``; return the count."""
    row = 0
    for b in range(first + 1, 52):
        for c in range(b + 1, 52):
            for d in range(c + 1, 52):
                for e in range(d + 1, 52):
                    for f in range(e + 1, 52):
                        for g in range(f + 1, 52):
                            out[row, 0] = first
                            out[row, 1] = b
                            out[row, 2] = c
                            out[row, 3] = d
                            out[row, 4] = e
                            out[row, 5] = f
                            out[row, 6] = g
                            row += 1
    return row
