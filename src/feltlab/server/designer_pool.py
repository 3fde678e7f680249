"""The designer's pool of processes, from the server's side (a process's own side is
:mod:`feltlab.server.designer_process`): designs are computed there, at the lowest
priority, never in a request's thread, and a request waits for its answer in the event
loop, looking every :data:`TICK` seconds whether its client is still there.

A process computes one design at a time and keeps what it loaded for the next. A design
whose client left, or that runs past the time budget, is stopped by killing its process
(a computation cannot be interrupted otherwise), and a new process takes its place at
once. The pool starts processes when designs need them, up to its size (the deployment's
limit on designs at once: this worker may hold every slot); a ``feltlab serve`` worker
starts one at start-up, which warms the designer (:func:`DesignerPool.start`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Final, TypeVar

import anyio

from feltlab.core.registry import builtin_ids
from feltlab.server.designer_process import BOOT, Message
from feltlab.server.errors import Abandoned, Refused, TooMany
from feltlab.server.services.designer import Design
from feltlab.server.services.designer_slots import BUSY, RETRY_AFTER

T = TypeVar("T")

TICK: Final = 0.25
"""Seconds between two looks at whether a design's client is still there."""
CLIENT_LEFT: Final = "the client left before the answer; its design was stopped"


class ProcessEnded(RuntimeError):
    """A designer's process ended without answering (killed from outside, or crashed)."""


class _OverBudget(Exception):
    pass


@dataclass(frozen=True)
class Warmth:
    """Whether the pool's processes have warmed the designer: ``warming`` lists the
    built-in rule sets they are still loading, ``seconds`` how long it took."""

    warm: bool
    warming: tuple[str, ...]
    seconds: float


class _Process:
    """One process of the pool, a new interpreter (the server's threads are not forked
    with it, and nothing of the server's program is run again): a pipe for designs down,
    one for messages up, and a thread that listens to the second."""

    def __init__(self, warm: bool) -> None:
        theirs_in, ours_out = os.pipe()
        ours_in, theirs_out = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-c", BOOT, json.dumps(sys.path), str(theirs_in),
                 str(theirs_out), "1" if warm else "0"],
                pass_fds=(theirs_in, theirs_out), stdin=subprocess.DEVNULL)
        except BaseException:
            for descriptor in (ours_in, ours_out):
                os.close(descriptor)
            raise
        finally:
            os.close(theirs_in)
            os.close(theirs_out)
        self._down = Connection(ours_out, readable=False)
        self._up = Connection(ours_in, writable=False)
        self.ready: Future[None] = Future()
        self.answer: Future[Message] | None = None
        self.warmth = Warmth(not warm, tuple(builtin_ids()) if warm else (), 0.0)
        self.ended = False
        threading.Thread(target=self._listen, name="designer-listen", daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def send(self, design: Design) -> Future[Message]:
        self.answer = Future()
        self._down.send(design)
        return self.answer

    def kill(self) -> None:
        self.ended = True
        with contextlib.suppress(OSError, ValueError):
            self.process.kill()

    def _listen(self) -> None:
        try:
            while True:
                self._heard(self._up.recv())
        except (EOFError, OSError):
            pass
        finally:
            self.ended = True
            self._down.close()  # a process still alive reads the end of its designs
            code = self.process.wait()
            self._up.close()
            ended = ProcessEnded(f"the designer's process ended (exit code {code})")
            for future in (self.ready, self.answer):
                if future is not None:
                    with contextlib.suppress(InvalidStateError):  # settled, or given up
                        future.set_exception(ended)

    def _heard(self, message: Message) -> None:
        kind = message[0]
        if kind == "warmth":
            _, left, seconds = message
            assert isinstance(left, list) and isinstance(seconds, float)
            self.warmth = Warmth(not left, tuple(map(str, left)), seconds)
            return
        with contextlib.suppress(InvalidStateError):  # an answer given up on
            if kind == "ready":
                self.ready.set_result(None)
            elif self.answer is not None:
                self.answer.set_result(message)


class DesignerPool:
    """Up to ``size`` processes computing designs (with ``warm``, each warms the designer
    when it starts)."""

    def __init__(self, size: int, warm: bool) -> None:
        self.size, self.warm = size, warm
        self._idle: list[_Process] = []
        self._busy: set[_Process] = set()
        self._lock = threading.Lock()
        self._closed = False

    def start(self) -> None:
        """Start a process now, if there is none, so that it is warm before the first
        design comes (a ``feltlab serve`` worker's start-up)."""
        with self._lock:
            if not self._idle and not self._busy and not self._closed:
                self._idle.append(_Process(self.warm))

    def warmth(self) -> Warmth:
        """Whether the designer is warm in the pool's processes (it is, with none yet)."""
        with self._lock:
            processes = [*self._idle, *self._busy]
        found = [process.warmth for process in processes if not process.ended]
        warming = tuple(dict.fromkeys(rules_id for each in found for rules_id in each.warming))
        return Warmth(all(each.warm for each in found), warming,
                      max((each.seconds for each in found), default=0.0))

    def pids(self) -> tuple[int, ...]:
        """The process ids of the pool's live processes."""
        with self._lock:
            processes = [*self._busy, *self._idle]
        return tuple(process.pid for process in processes if not process.ended)

    def computing(self) -> tuple[int, ...]:
        """The process ids of the pool's processes computing a design now."""
        with self._lock:
            return tuple(process.pid for process in self._busy if not process.ended
                         and process.answer is not None and not process.answer.done())

    async def compute(self, design: Design, budget: float,
                      gone: Callable[[], Awaitable[bool]]) -> dict[str, Any]:
        """``design``'s answer from a process of the pool, waited for in the event loop.
        Stopped (its process killed) when ``gone()`` says its client left (answered
        :class:`~feltlab.server.errors.Abandoned`) or when it has computed for ``budget``
        seconds (refused, 422, with the command line that computes it); 429 if every
        process is busy. The budget starts once a process is ready for it."""
        process = await anyio.to_thread.run_sync(self._take)
        if process is None:
            raise TooMany(BUSY, RETRY_AFTER)
        answered = False
        try:
            await _wait(process.ready, None, gone)
            message = await _wait(process.send(design), budget, gone)
            answered = True
        except _OverBudget:
            raise Refused(f"this design needs more than the {budget:g} s of computing the "
                          f"server gives one; {design.command()}") from None
        finally:
            self._give_back(process, answered)
        kind, value = message
        if kind == "answer":
            assert isinstance(value, dict)
            return value
        if kind == "refused":
            assert isinstance(value, Exception)
            raise value
        raise RuntimeError(f"the designer failed on a {design.kind} design:\n{value}")

    def _take(self) -> _Process | None:
        with self._lock:
            while self._idle:
                process = self._idle.pop()
                if not process.ended:
                    self._busy.add(process)
                    return process
            if len(self._busy) >= self.size or self._closed:
                return None
            process = _Process(self.warm)
            self._busy.add(process)
            return process

    def _give_back(self, process: _Process, answered: bool) -> None:
        with self._lock:
            self._busy.discard(process)
            if answered and not process.ended and not self._closed:
                self._idle.append(process)
                return
        process.kill()  # whatever it was computing is not wanted; its place is refilled
        threading.Thread(target=self.start, name="designer-replace", daemon=True).start()

    def close(self) -> None:
        """Stop every process (the server is shutting down)."""
        with self._lock:
            self._closed = True
            processes = [*self._idle, *self._busy]
            self._idle.clear()
        for process in processes:
            process.kill()
        for process in processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.process.wait(5)


async def _wait(future: Future[T], budget: float | None,
                gone: Callable[[], Awaitable[bool]]) -> T:
    """``future``'s result, looking every :data:`TICK` whether the client is gone
    (:class:`~feltlab.server.errors.Abandoned`) and, with a ``budget``, whether the time
    is up (:class:`_OverBudget`)."""
    loop = asyncio.get_running_loop()
    waiting = asyncio.wrap_future(future)
    deadline = None if budget is None else loop.time() + budget
    try:
        while True:
            left = TICK if deadline is None else min(TICK, deadline - loop.time())
            if left <= 0:
                raise _OverBudget
            done, _ = await asyncio.wait({waiting}, timeout=left)
            if done:
                return waiting.result()
            if await gone():
                raise Abandoned(CLIENT_LEFT)
    finally:
        if not waiting.done():
            waiting.cancel()
