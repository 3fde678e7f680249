"""The qualifier cells of the High Card Flush family: every player hand counted once
against every dealer hand, into ``cells[value, run, category, quantity]``.

How it is computed (see :mod:`feltlab.games.high_card_flush.counting`): every player hand is
enumerated up to a permutation of the suits (6,009,159 classes whose weights add up to
C(52,7) = 133,784,560), and for each the dealer hands are *counted*, not dealt: with the
player's cards removed, the number of the C(45,7) = 45,379,620 dealer hands whose flush
is below a threshold is one coefficient of a product of four small per-suit
polynomials. Three thresholds per hand (the qualifier, the player's value, the value
plus one) give the dealer hands that do not qualify, are beaten, tie, or win.

Hands are accumulated into cells by (flush value, longest straight-flush run, decision
category), which is all that the PAR sheet, any flush-based strategy, the strategy card
and the capped returns need. The cells depend only on the qualifier, so they are
computed once per qualifier and process (and kept on disk). Only the dealer hands that
do not qualify depend on the qualifier: the dealer hands below and tied with each class
are counted once for every qualifier (:mod:`.qualifier_pass`), so a qualifier never
counted before takes one quick pass (a tenth of a second or so) rather than a new
enumeration.
"""

from __future__ import annotations

import threading
from contextlib import suppress
from functools import cache
from typing import Final

import numba as nb
import numpy as np
import numpy.typing as npt

import feltlab.core.cache as derived
from feltlab.core.kernels import RUN_LENGTH
from feltlab.core.model import Progress
from feltlab.core.status import COMPILING, compiled, notice, step
from feltlab.games.high_card_flush import counting as fk
from feltlab.games.high_card_flush import qualifier_pass as qp
from feltlab.games.high_card_flush.rules import FlushRules

Int64Array = npt.NDArray[np.int64]

BATCHES: Final = 12
CHUNKS_PER_THREAD: Final = 4
LENGTHS: Final = range(2, fk.HAND_SIZE + 1)
VALUE_LENGTHS: Final = fk.VALUES >> fk.RANK_BITS

KEPT_QUALIFIERS: Final = 8
"""Qualifiers whose cells (5.6 MB each) stay in memory; others are read again from the
derived-data cache when asked for."""
_cells_by_qualifier: dict[int, Int64Array] = {}
_cells_lock = threading.RLock()


def of_length(length: int) -> npt.NDArray[np.bool_]:
    """Which entries of :data:`.counting.VALUES` are flushes of this length."""
    chosen: npt.NDArray[np.bool_] = np.equal(VALUE_LENGTHS, length)
    return chosen


# The enumeration ---------------------------------------------------------------------------

@cache
def player_classes() -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint8]]:
    """:func:`.counting.player_classes`, enumerated once a process."""
    return fk.player_classes()


def compute_cells(qualify: int, progress: Progress | None = None) -> Int64Array:
    """Count every player hand once: ``cells[value, run, category, quantity]``.

    ``value`` indexes :data:`.counting.VALUES`, ``run`` is the longest straight-flush
    run, ``category`` one of the kernel's decision categories, and the quantities are
    player hands and deals by dealer outcome (see :mod:`.counting`). What does not
    depend on the qualifier is counted once (:func:`class_counts`); the qualifier's own
    pass is a few look-ups per hand class (:mod:`.qualifier_pass`), and equals
    :func:`reference_cells` exactly.
    """
    classes, weights = player_classes()
    below, tie = class_counts()
    acc = fk.new_accumulator(max(1, nb.get_num_threads()))  # even work: a chunk a thread
    length = qualify >> fk.RANK_BITS
    masks_below = np.ascontiguousarray(fk.qualifier_polynomials(qualify)[:, length])
    with step("counting every deal for the qualifier", note=derived.kept()):
        qp.accumulate_qualifier(classes, weights, below, tie, qualify, masks_below,
                                _subset_table(), fk.VALUE_INDEX, RUN_LENGTH, acc)
    if progress is not None:
        progress(1, 1)
    cells: Int64Array = acc.sum(axis=0)
    return cells


@cache
def _subset_table() -> Int64Array:
    return qp.subset_coefficients()


_class_counts_kept: list[tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]] = []
_class_counts_lock = threading.Lock()
_class_counts_prefetched = threading.Event()
CLASS_COUNTS: Final = ("flush-class-counts", "every player hand class")
"""The derived-data cache entry (kind, key) of :func:`class_counts`."""


def class_counts() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Per player class, the dealer hands below its value and tied with it (the same for
    every qualifier): from this process, else the derived-data cache, else counted."""
    with _class_counts_lock:
        if not _class_counts_kept:
            def build() -> dict[str, npt.NDArray[np.int32]]:
                with step("counting every deal by the player's own hand",
                          note=derived.kept()):
                    below, tie = qp.class_counts(player_classes()[0])
                return {"below": below, "tie": tie}

            found = derived.load_or_build(*CLASS_COUNTS, build, notice)
            below, tie = found["below"], found["tie"]
            size = len(player_classes()[0])
            if below.shape != (size,) or tie.shape != (size,) or below.dtype != np.int32 \
                    or tie.dtype != np.int32:
                built = build()
                below, tie = built["below"], built["tie"]
            _class_counts_kept.append((below, tie))
        return _class_counts_kept[0]


def _prefetch_class_counts() -> None:
    """Once per process, when the per-class counts are kept on disk, read them (and the
    player classes) in a background thread, so that a qualifier never counted before,
    asked for later (the designer's next edit), finds them in memory: its count is then
    one quick pass. The server's warming reads a rule set's cells first, so this runs
    there; in a command it is a read that the command does not wait for."""
    if _class_counts_prefetched.is_set():
        return
    _class_counts_prefetched.set()
    if _class_counts_kept or not derived.enabled() or \
            not derived.entry_path(*CLASS_COUNTS).is_file():
        return

    def read() -> None:
        with suppress(Exception):  # best effort: a new qualifier reads them anyway
            class_counts()

    threading.Thread(target=read, name="feltlab-flush-class-counts", daemon=True).start()


def reference_cells(qualify: int, progress: Progress | None = None) -> Int64Array:
    """:func:`compute_cells` the first way: every class's three dealer counts from its
    polynomials (the reference the tests hold the quick pass to)."""
    classes, weights = player_classes()
    acc = fk.new_accumulator(max(1, nb.get_num_threads()) * CHUNKS_PER_THREAD)
    load_counter(acc)
    qualifier_polys = fk.qualifier_polynomials(qualify)
    total = len(classes)
    with step("counting every deal", note=derived.kept(), total=total) as counting:
        for batch in range(BATCHES):
            start, stop = total * batch // BATCHES, total * (batch + 1) // BATCHES
            fk.accumulate(classes, weights, start, stop, qualify, qualifier_polys, fk.BINOM,
                          fk.VALUE_INDEX, RUN_LENGTH, acc)
            counting(stop, total)
            if progress is not None:
                progress(stop, total)
    cells: Int64Array = acc.sum(axis=0)
    return cells


def load_counter(acc: Int64Array) -> None:
    """Load the compiled counting kernel (compile it the first time), timed apart."""
    classes, weights = player_classes()
    with step("loading the compiled exact analysis", note=COMPILING) as loading:
        fk.accumulate(classes, weights, 0, 0, 0, fk.qualifier_polynomials(0), fk.BINOM,
                      fk.VALUE_INDEX, RUN_LENGTH, acc)  # an empty range: counts nothing
        compiled(loading, fk.accumulate, "compiling the exact analysis")


# The cells of a rule set -------------------------------------------------------------------

def qualifier_cells(rules: FlushRules, progress: Progress | None = None) -> Int64Array:
    """The cells for the rule set's qualifier: from this process, else from the
    derived-data cache (:mod:`feltlab.core.cache`; they depend on the qualifier alone), else
    enumerated."""
    qualify = rules.qualifier.threshold
    with _cells_lock:  # one thread reads or counts a qualifier's cells; others wait
        cells = _cells_by_qualifier.pop(qualify, None)
        if cells is None:
            def build() -> dict[str, Int64Array]:
                return {"cells": compute_cells(qualify, progress)}

            found = derived.load_or_build("flush-cells", f"qualifier {qualify}", build, notice)
            cells = found["cells"]
            if cells.shape != cell_shape() or cells.dtype != np.int64:
                cells = build()["cells"]
        _cells_by_qualifier[qualify] = cells  # the most recently used last
        while len(_cells_by_qualifier) > KEPT_QUALIFIERS:
            del _cells_by_qualifier[next(iter(_cells_by_qualifier))]
    _prefetch_class_counts()
    if progress is not None:
        progress(1, 1)
    return cells


def cell_shape() -> tuple[int, ...]:
    return (len(fk.VALUES), fk.HAND_SIZE + 1, fk.CATEGORIES, fk.QUANTITIES)


def clear_cache() -> None:
    """Forget the cells counted so far in this process."""
    _cells_by_qualifier.clear()
