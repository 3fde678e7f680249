"""Shared-table timers: every worker runs :func:`run_due` in a background thread
(:class:`Ticker`), dealing the rounds whose betting window closed and folding the seats
whose decision time ran out (:mod:`feltlab.server.services.deadlines`)."""

from __future__ import annotations

import logging
import threading

from feltlab.server.services.context import Services
from feltlab.server.services.deadlines import due_rounds, run_one

log = logging.getLogger("feltlab.server")


def run_due(found: Services) -> int:
    """Deal every round whose betting window closed; fold every seat whose time ran out.
    Returns how many rounds moved."""
    moved = 0
    for round_id in due_rounds(found):
        if run_one(found, round_id) is not None:  # its watchers shown the change
            moved += 1
    return moved


class Ticker:
    """A daemon thread running :func:`run_due` every ``interval`` seconds."""

    def __init__(self, found: Services, interval: float = 0.5) -> None:
        self.found, self.interval = found, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="feltlab-timers", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                run_due(self.found)
            except Exception:  # a timer must never stop the server; try again next tick
                log.exception("shared-table timers failed; retrying")
