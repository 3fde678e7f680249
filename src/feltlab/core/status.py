"""What a command is doing while the user waits, and how long each part took.

A command wraps each slow part in :func:`step` ("compiling the simulator", "preparing the
optimal strategy", "simulating"). A step that is still running after :data:`DELAY`
seconds shows itself on standard error: on a terminal as a Rich progress line (a bar
when the step knows its total, a spinner otherwise, with the time elapsed), elsewhere as
one plain line when it shows and one when it ends. Steps inside steps show the innermost
label. Every step's time is recorded (:func:`timings`), so a report can say how long the
one-time preparation took and what each time covers.

>>> reset()
>>> with step("adding") as adding:
...     adding(1, 2)
>>> [label for label, _ in timings()]
['adding']
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

DELAY: Final = 1.0
"""Seconds a step runs before it shows itself."""

@dataclass
class Step:
    """A running step: call it as ``step(done, total)`` to move its bar; its ``label`` may
    be changed (say, once it is known whether kernels were compiled or only loaded)."""

    label: str
    start: float = field(default_factory=time.perf_counter)
    done: int = 0
    total: int | None = None
    note: str = ""
    """Shown beside the label while it runs (say, "once, then cached")."""

    @property
    def shown(self) -> str:
        return f"{self.label} ({self.note})" if self.note else self.label

    def __call__(self, done: int, total: int) -> None:
        with _lock:
            self.done, self.total = done, total
            if _display is not None and _stack and _stack[-1] is self:
                _display.show(self)


class _Count(MofNCompleteColumn):
    """``done/total``, or nothing while the total is unknown (a spinner alone)."""

    def render(self, task: Task) -> Text:
        return Text("") if task.total is None else super().render(task)


class _Display:
    """The stderr view of the running steps (created once the first step has run long)."""

    def __init__(self) -> None:
        self.console = Console(stderr=True)
        self.live = self.console.is_terminal and _log is None
        self.shown: list[str] = []
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.showing: Step | None = None
        if self.live:
            self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"),
                                     BarColumn(), _Count(), TimeElapsedColumn(),
                                     console=self.console, transient=True)
            self.progress.start()

    def show(self, current: Step) -> None:
        if self.progress is not None:
            if self.task is None or current is not self.showing:  # Rich keeps an old total
                if self.task is not None:
                    self.progress.remove_task(self.task)
                self.task = self.progress.add_task(current.shown, total=current.total)
                self.showing = current
            self.progress.update(self.task, description=current.shown, total=current.total,
                                 completed=current.done)
        elif current.shown not in self.shown:
            self.shown.append(current.shown)
            _line(f"{current.shown}...")

    def finished(self, current: Step, seconds: float) -> None:
        """A step that was shown leaves one line saying how long it took."""
        if self.progress is not None:
            self.progress.console.print(f"[green]✓[/green] {current.label}: done in "
                                        f"{seconds:.1f} s", highlight=False)
        elif current.shown in self.shown:
            _line(f"{current.label}: done in {seconds:.1f} s")

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


_lock = threading.RLock()
_log: logging.Logger | None = None
_stack: list[Step] = []
_timings: list[tuple[str, float]] = []
_one_time: set[str] = set()
_display: _Display | None = None
_timer: threading.Timer | None = None


def report_to(log: logging.Logger | None) -> None:
    """Write the steps' lines as records of ``log`` rather than on stderr (a server whose
    log is JSON); None writes them on stderr again."""
    global _log
    _log = log


def _line(text: str) -> None:
    """One plain line about the work under way: a log record, or ``feltlab: TEXT``."""
    if _log is not None:
        _log.info(text)
    else:
        print(f"feltlab: {text}", file=sys.stderr, flush=True)


def _appear() -> None:
    global _display
    with _lock:
        if _stack and _display is None:
            _display = _Display()
            for running in _stack:
                _display.show(running)


@contextmanager
def step(label: str, total: int | None = None, note: str = "") -> Iterator[Step]:
    """Time the enclosed work under ``label``; show it on stderr if it runs long.

    Yields the :class:`Step` (call it as ``step(done, total)`` to move its bar)."""
    global _timer, _display
    current = Step(label, total=total, note=note)
    with _lock:
        _stack.append(current)
        if len(_stack) == 1:
            _timer = threading.Timer(DELAY, _appear)
            _timer.daemon = True
            _timer.start()
        elif _display is not None:
            _display.show(current)

    try:
        yield current
    finally:
        seconds = time.perf_counter() - current.start
        with _lock:
            _stack.remove(current)
            if not _stack:  # a step inside a step is part of the outer one's time
                _timings.append((current.label, seconds))
                if current.note:
                    _one_time.add(current.label)
            if _display is not None:
                _display.finished(current, seconds)
                if _stack:
                    _display.show(_stack[-1])
            if not _stack:
                if _timer is not None:
                    _timer.cancel()
                if _display is not None:
                    _display.close()
                    _display = None


COMPILING: Final = "the first run compiles it: a minute or so"


def compiled(loading: Step, dispatcher: Any, label: str) -> None:
    """Rename a kernel-loading step to ``label`` (a one-time step) when Numba had to
    compile the kernel rather than load it from its cache."""
    if dispatcher.stats.cache_misses:
        loading.label, loading.note = label, "first run only, then kept"
    else:
        loading.note = ""


def say(message: str) -> None:
    """One line on stderr about the work under way (above any progress line)."""
    with _lock:
        if _display is not None and _display.progress is not None:
            _display.progress.console.print(message, highlight=False)
        else:
            _line(message)


def notice(message: str) -> None:
    """Tell the user about something that was handled (a cache entry rebuilt...)."""
    say(message)


def timings() -> list[tuple[str, float]]:
    """Every finished outermost step of this process as (label, seconds), in order."""
    with _lock:
        return list(_timings)


def describe(timings: list[tuple[str, float]]) -> str:
    """The steps' times as one phrase.

    >>> describe([("compiling the simulator", 31.04), ("preparing the strategy", 0.2)])
    'compiling the simulator 31.0 s, preparing the strategy 0.20 s'
    """
    return ", ".join(f"{label} {seconds:.1f} s" if seconds >= 10 else
                     f"{label} {seconds:.2f} s" for label, seconds in timings)


def one_time(label: str) -> bool:
    """Whether the step was work done once and kept for later runs (it had a note)."""
    with _lock:
        return label in _one_time


def reset() -> None:
    """Forget the recorded timings (a command calls it before its work)."""
    with _lock:
        _timings.clear()
        _one_time.clear()
