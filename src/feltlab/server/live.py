"""Live updates: a table's watchers hear that something changed and fetch what they may
see. In one process the hub passes the word directly; across workers on PostgreSQL it
goes through LISTEN/NOTIFY (see :mod:`feltlab.server.notify`)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import defaultdict
from collections.abc import Callable


class Hub:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watchers: dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[int]]]] = (
            defaultdict(set))
        self._stamps: dict[int, int] = defaultdict(int)
        self._published_at: dict[int, float] = {}

    def stamp(self, table_id: int) -> int:
        """How many announcements the table has had in this process."""
        with self._lock:
            return self._stamps[table_id]

    def published_at(self, table_id: int) -> float:
        """When (``time.monotonic``) the table was last announced here; 0 if never."""
        with self._lock:
            return self._published_at.get(table_id, 0.0)

    def watch(self, table_id: int) -> asyncio.Queue[int]:
        queue: asyncio.Queue[int] = asyncio.Queue(maxsize=100)
        with self._lock:
            self._watchers[table_id].add((asyncio.get_running_loop(), queue))
        return queue

    def unwatch(self, table_id: int, queue: asyncio.Queue[int]) -> None:
        with self._lock:
            self._watchers[table_id] = {item for item in self._watchers[table_id]
                                        if item[1] is not queue}

    def publish(self, table_id: int, seen: int | None = None,
                install: Callable[[int], None] | None = None) -> None:
        """Tell the table's watchers in this process (callable from any thread). With
        ``install``, a fresh state of the table built by the change's own transaction is
        installed for the new stamp, but only if the table's stamp is still ``seen`` (what
        it was while the change held the table): after any other announcement, the
        watchers read the table again instead, so an older state never shows last."""
        with self._lock:
            unchanged = self._stamps[table_id] == seen
            self._stamps[table_id] += 1
            if install is not None and unchanged:
                install(self._stamps[table_id])
            self._published_at[table_id] = time.monotonic()
            watchers = list(self._watchers.get(table_id, ()))
        for loop, queue in watchers:
            loop.call_soon_threadsafe(_offer, queue, table_id)


def _offer(queue: asyncio.Queue[int], table_id: int) -> None:
    if not queue.full():
        queue.put_nowait(table_id)
