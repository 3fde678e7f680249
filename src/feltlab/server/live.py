"""Live updates: a table's watchers hear that something changed and are shown its new
state. In one process the hub passes the word directly; across workers it goes by
datagram (SQLite) or LISTEN/NOTIFY (PostgreSQL), with the change's own state when it
fits (see :mod:`feltlab.server.notify`).

The hub keeps the ordering guarantee: an older state of a table never shows last. A
state is installed for a new announcement only when it is known to be the latest: one
built by the change itself while it held the table, if nothing was announced meanwhile;
one another worker sent, if its order (round and events) is past every state seen here
and no change whose state is unknown here (a seat taken or left, a table closed) is
waiting to be read. Otherwise the watchers read the table again."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import defaultdict
from collections.abc import Callable

from feltlab.server.revocations import Guards

Order = tuple[int, int]
"""A state's place among its table's changes (:attr:`feltlab.server.views.TableState.order`)."""


class Hub:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watchers: dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[int]]]] = (
            defaultdict(set))
        self._stamps: dict[int, int] = defaultdict(int)
        self._published_at: dict[int, float] = {}
        self._orders: dict[int, Order] = {}
        """The greatest order of any state of the table installed or read here."""
        self._unknown_at: dict[int, int] = {}
        """The stamp of the table's latest announcement without a state, until a state
        read after it is installed."""
        self.followed: Callable[[int, bool], None] | None = None
        """Told when a table gets its first watcher here (True) and loses its last
        (False): on PostgreSQL the worker hears only the tables its watchers follow."""
        self.guards = Guards()
        """The watchers' tokens, which a revocation makes them read again."""

    def stamp(self, table_id: int) -> int:
        """How many announcements the table has had in this process."""
        with self._lock:
            return self._stamps[table_id]

    def watched(self, table_id: int) -> bool:
        """Whether the table has a watcher in this process."""
        with self._lock:
            return bool(self._watchers.get(table_id))

    def published_at(self, table_id: int) -> float:
        """When (``time.monotonic``) the table was last announced here; 0 if never."""
        with self._lock:
            return self._published_at.get(table_id, 0.0)

    def watch(self, table_id: int) -> asyncio.Queue[int]:
        queue: asyncio.Queue[int] = asyncio.Queue(maxsize=100)
        with self._lock:
            first = not self._watchers[table_id]
            self._watchers[table_id].add((asyncio.get_running_loop(), queue))
        if first and self.followed is not None:
            self.followed(table_id, True)
        return queue

    def unwatch(self, table_id: int, queue: asyncio.Queue[int]) -> None:
        with self._lock:
            had = bool(self._watchers[table_id])
            self._watchers[table_id] = {item for item in self._watchers[table_id]
                                        if item[1] is not queue}
            last = had and not self._watchers[table_id]
        if last and self.followed is not None:
            self.followed(table_id, False)

    def publish(self, table_id: int, seen: int | None = None,
                install: Callable[[int], None] | None = None,
                order: Order | None = None) -> None:
        """Tell the table's watchers in this process (callable from any thread). With
        ``install``, a fresh state of the table built by the change's own transaction is
        installed for the new stamp, but only if the table's stamp is still ``seen`` (what
        it was while the change held the table): after any other announcement, the
        watchers read the table again instead, so an older state never shows last.
        ``order`` is that state's (:data:`Order`)."""
        with self._lock:
            earlier = self._stamps[table_id]
            self._stamps[table_id] += 1
            stamp = self._stamps[table_id]
            if install is not None and self._latest(table_id, seen, earlier, order):
                install(stamp)
                self._known(table_id, order)
                self._unknown_at.pop(table_id, None)
            else:
                self._unknown_at[table_id] = stamp
            watchers = self._announced(table_id)
        _tell(watchers, table_id)

    def _latest(self, table_id: int, seen: int | None, earlier: int, order: Order | None
                ) -> bool:
        """Whether a state built while the table's stamp was ``seen`` is its latest: nothing
        announced since, or only states of a lower order (another worker's changes made
        before this one took the table, told late) and no change of unknown state."""
        if seen is None:
            return False
        if earlier == seen:
            return True
        unknown = self._unknown_at.get(table_id)
        return (order is not None and (unknown is None or unknown <= seen)
                and order > self._orders.get(table_id, (-1, -1)))

    def receive(self, table_id: int, order: Order, install: Callable[[int], None]) -> None:
        """Another worker's change with its state (of ``order``): shown if it is the latest
        state known here; an older one was seen already (nothing to do); while a change
        with no state is unread, the watchers read the table again. A table nobody here
        watches keeps no state (its first watcher reads it)."""
        with self._lock:
            if not self._watchers.get(table_id):  # nobody here to show it: keep no state
                self._stamps[table_id] += 1
                self._known(table_id, order)
                return
            if table_id not in self._unknown_at:
                if order <= self._orders.get(table_id, (-1, -1)):
                    return
                self._stamps[table_id] += 1
                install(self._stamps[table_id])
                self._orders[table_id] = order
            else:
                self._stamps[table_id] += 1
                self._unknown_at[table_id] = self._stamps[table_id]
            watchers = self._announced(table_id)
        _tell(watchers, table_id)

    def read(self, table_id: int, stamp: int, order: Order) -> None:
        """A state of the table read from the database for ``stamp`` (the stamp before the
        read began) was installed: announcements without a state up to it are now known."""
        with self._lock:
            unknown = self._unknown_at.get(table_id)
            if unknown is not None and stamp >= unknown:
                del self._unknown_at[table_id]
            self._known(table_id, order)

    def _known(self, table_id: int, order: Order | None) -> None:
        if order is not None and order > self._orders.get(table_id, (-1, -1)):
            self._orders[table_id] = order

    def _announced(self, table_id: int) -> list[tuple[asyncio.AbstractEventLoop,
                                                       asyncio.Queue[int]]]:
        self._published_at[table_id] = time.monotonic()
        return list(self._watchers.get(table_id, ()))


def _tell(watchers: list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[int]]],
          table_id: int) -> None:
    """Wake each watcher's loop once for all its watchers of the table (a call handed to
    another thread's loop writes to its wakeup pipe)."""
    queues: dict[asyncio.AbstractEventLoop, list[asyncio.Queue[int]]] = {}
    for loop, queue in watchers:
        queues.setdefault(loop, []).append(queue)
    for loop, theirs in queues.items():
        loop.call_soon_threadsafe(_offer, theirs, table_id)


def _offer(queues: list[asyncio.Queue[int]], table_id: int) -> None:
    for queue in queues:
        if not queue.full():
            queue.put_nowait(table_id)
