"""A small in-process memo for the part of an exact analysis that the optimal strategy
decides, so that an edit which leaves the strategy alone (a bonus pay table, a limit, the
name) re-computes only the cheap rest: the variant designer answers such edits in tens of
milliseconds.

The memo is keyed by the rule-set fields that part reads (:func:`fields_key`), so two rule
sets that agree on them share one entry; it keeps the most recently used entries only.
Given a kind and a :class:`PartCodec`, it also keeps each part in the derived-data cache
(:mod:`feltlab.core.cache`): a process that has not built it (a new worker, a designer's
process of its own) reads it there rather than solving the strategy again. Within
:func:`solving_afresh` (the designer's warming) parts are built, not read, so that what
building needs (compiled solvers, their tables) is loaded for the edits that move the
strategy.

>>> memo: StrategyMemo[int] = StrategyMemo(2)
>>> memo.get_or_build("a", lambda: 1), memo.get_or_build("a", lambda: 2)
(1, 1)
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from feltlab.core import cache
from feltlab.core.rules import Rules

T = TypeVar("T")
Arrays = Mapping[str, npt.NDArray[Any]]


def fields_key(rules: Rules, fields: Iterable[str]) -> str:
    """The named fields of ``rules`` as canonical JSON: equal exactly when those fields are.

    >>> from feltlab.core.rules import load_rules
    >>> fields_key(load_rules("nh-flush-poker"), ["qualifier"])
    '{"qualifier":{"min_high_card":"9","min_length":3}}'
    """
    chosen = rules.model_dump(mode="json", include=set(fields))
    return json.dumps(chosen, sort_keys=True, separators=(",", ":"))


_afresh = threading.local()


@contextmanager
def solving_afresh() -> Iterator[None]:
    """In this thread, within the block, every memo builds its values (and keeps them)
    rather than taking them from memory or the derived-data cache."""
    _afresh.on = True
    try:
        yield
    finally:
        _afresh.on = False


def _building_afresh() -> bool:
    return bool(getattr(_afresh, "on", False))


class PartCodec(Protocol[T]):
    """A memo's values as a derived-data cache entry's arrays, and back."""

    def encode(self, value: T) -> Arrays: ...

    def decode(self, arrays: Arrays) -> T: ...


@dataclass(frozen=True)
class RecordCodec(Generic[T]):
    """A value kept as one JSON record (:mod:`feltlab.core.records` writes the model's)."""

    to_record: Callable[[T], object]
    from_record: Callable[[Any], T]

    def encode(self, value: T) -> Arrays:
        return {"record": np.array(json.dumps(self.to_record(value), separators=(",", ":")))}

    def decode(self, arrays: Arrays) -> T:
        return self.from_record(json.loads(str(arrays["record"][()])))


class StrategyMemo(Generic[T]):
    """Values built from a key, the ``size`` most recently used kept; with ``kind`` and
    ``codec``, each also kept in the derived-data cache. Thread-safe: one build at a
    time, so a second thread asking for a key being built waits and shares it (the
    server's warming and a first request ask for the same)."""

    def __init__(self, size: int = 32, kind: str | None = None,
                 codec: PartCodec[T] | None = None) -> None:
        self.size = size
        self.kind, self.codec = kind, codec
        self._entries: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()
        self._building = threading.Lock()

    def _get(self, key: str) -> tuple[bool, T | None]:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return True, self._entries[key]
        return False, None

    def get_or_build(self, key: str, build: Callable[[], T]) -> T:
        afresh = _building_afresh()
        found, value = self._get(key)
        if found and not afresh:
            return value  # type: ignore[return-value]
        with self._building:
            found, value = self._get(key)
            if found and not afresh:
                return value  # type: ignore[return-value]
            built = self._read_or_build(key, build)
            with self._lock:
                self._entries[key] = built
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
            return built

    def _read_or_build(self, key: str, build: Callable[[], T]) -> T:
        if self.kind is None or self.codec is None:
            return build()
        found = None if _building_afresh() else cache.load(self.kind, key)
        if found is not None:
            try:
                return self.codec.decode(found)
            except (KeyError, TypeError, ValueError):
                pass  # an entry of another shape: built again and rewritten
        built = build()
        cache.store(self.kind, key, self.codec.encode(built))
        return built

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
