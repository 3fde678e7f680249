"""Shared-table timers: every worker runs :func:`run_due` in a background thread
(:class:`Ticker`), dealing the rounds whose betting window closed and folding the seats
whose decision time ran out (:mod:`feltlab.server.services.deadlines`)."""

from __future__ import annotations

import logging
import threading
from typing import Final

from feltlab.server.services.context import Services
from feltlab.server.services.deadlines import due_rounds, run_one
from feltlab.server.services.operator_idle import settle_idle

log = logging.getLogger("feltlab.server")


def run_due(found: Services) -> int:
    """Deal every round whose betting window closed; fold every seat whose time ran out.
    Returns how many rounds moved."""
    moved = 0
    for round_id in due_rounds(found):
        if run_one(found, round_id) is not None:  # its watchers shown the change
            moved += 1
    return moved


IDLE_EVERY: Final = 60
"""Ticks between two looks for operators' rounds left idle (every 30 s)."""


class Ticker:
    """A daemon thread running :func:`run_due` every ``interval`` seconds, and every
    :data:`IDLE_EVERY` ticks :func:`~feltlab.server.services.operator_idle.settle_idle`."""

    def __init__(self, found: Services, interval: float = 0.5) -> None:
        self.found, self.interval = found, interval
        self.ticks = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="feltlab-timers", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.ticks += 1
            try:
                run_due(self.found)
                if self.ticks % IDLE_EVERY == 0:
                    settle_idle(self.found)
            except Exception:  # a timer must never stop the server; try again next tick
                log.exception("shared-table timers failed; retrying")
