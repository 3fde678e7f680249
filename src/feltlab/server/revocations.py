"""Live sockets that must look at their token again: a logout or an operator session's
end (one token), an admin's lock (every token of the account), the token's expiry.

A revocation is told like a table's change (:mod:`feltlab.server.notify`): at once to
this worker's :class:`Guards`, then to every other worker (a datagram on SQLite, a NOTIFY
on PostgreSQL's revocation channel, which every worker LISTENs to). Each socket's
:class:`SocketGuard` is flagged, and the socket sends no further view before it has read
its token again: refused, it closes (:mod:`feltlab.server.api.live_ws`). Its own timer
flags it at the token's expiry, since watching a table does not count as using the
token."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from feltlab.server.clock import now

WIRE_PREFIX: Final = "revoked:"
"""How a revocation's datagram or NOTIFY payload begins (a table's begins with its id)."""
REMEMBERED_SECONDS: Final = 300.0
"""How long a revocation is remembered for the sockets still signing in when it came."""
EXPIRY_MARGIN_SECONDS: Final = 0.05
"""A token is looked at this long after its expiry, so that it is past by every clock."""

Kind = Literal["token", "user"]
_KINDS: Final[dict[str, Kind]] = {"t": "token", "u": "user"}


@dataclass(frozen=True)
class Revoked:
    """Whose live sockets look at their token again: one token's, or every socket of
    one account (``user``)."""

    kind: Kind
    id: int

    def wire(self) -> str:
        """As sent to the other workers.

        >>> Revoked("user", 7).wire(), Revoked.from_wire("revoked:t12")
        ('revoked:u7', Revoked(kind='token', id=12))
        """
        return f"{WIRE_PREFIX}{self.kind[0]}{self.id}"

    @staticmethod
    def from_wire(text: str) -> Revoked | None:
        """The revocation a payload carries, or None if it carries none."""
        body = text.removeprefix(WIRE_PREFIX)
        if body == text or len(body) < 2 or not body[1:].isdigit():
            return None
        kind = _KINDS.get(body[0])
        return None if kind is None else Revoked(kind, int(body[1:]))


class SocketGuard:
    """One live socket's watch on its token, on the socket's event loop: :attr:`flagged`
    once it must read the token again (a revocation, or the token's expiry); ``wake``
    then runs on the loop, to rouse the socket if it is waiting."""

    def __init__(self, token_id: int, user_id: int, wake: Callable[[], None]) -> None:
        self.token_id, self.user_id, self.wake = token_id, user_id, wake
        self.loop = asyncio.get_running_loop()
        self.flagged = False
        self._timer: asyncio.TimerHandle | None = None

    def flag(self) -> None:
        """Flag the socket: at once on its own loop's thread, else from its loop."""
        try:
            here = asyncio.get_running_loop() is self.loop
        except RuntimeError:
            here = False
        if here:
            self._flag()
        else:
            self.loop.call_soon_threadsafe(self._flag)

    def _flag(self) -> None:
        self.flagged = True
        self.wake()

    def expires(self, at: datetime | None) -> None:
        """Flag the socket when its token expires, at ``at`` (None: never)."""
        self.stop()
        if at is not None:
            seconds = max((at - now()).total_seconds(), 0.0) + EXPIRY_MARGIN_SECONDS
            self._timer = self.loop.call_later(seconds, self._flag)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class Guards:
    """This worker's live sockets, by token and by account (callable from any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._guards: dict[Revoked, set[SocketGuard]] = {}
        self._recent: dict[Revoked, float] = {}
        """When (``time.monotonic``) each revocation of the last minutes came."""

    def add(self, guard: SocketGuard, checked_at: float) -> None:
        """Watch ``guard``'s token and account from now on. Its token was read at
        ``checked_at`` (``time.monotonic``, before the read began): a revocation that
        came since is not in what it read, so the socket is flagged at once."""
        keys = (Revoked("token", guard.token_id), Revoked("user", guard.user_id))
        with self._lock:
            for key in keys:
                self._guards.setdefault(key, set()).add(guard)
            missed = any(self._recent.get(key, -1.0) >= checked_at for key in keys)
        if missed:
            guard.flag()

    def remove(self, guard: SocketGuard) -> None:
        guard.stop()
        with self._lock:
            for key in (Revoked("token", guard.token_id), Revoked("user", guard.user_id)):
                guards = self._guards.get(key)
                if guards is not None:
                    guards.discard(guard)
                    if not guards:
                        del self._guards[key]

    def revoke(self, revoked: Revoked) -> None:
        """Flag every socket ``revoked`` names."""
        moment = time.monotonic()
        with self._lock:
            self._recent = {key: at for key, at in self._recent.items()
                            if at > moment - REMEMBERED_SECONDS}
            self._recent[revoked] = moment
            guards = list(self._guards.get(revoked, ()))
        for guard in guards:
            guard.flag()

    def revoke_all(self) -> None:
        """Flag every socket: revocations may have been missed (the worker's listener
        reconnected)."""
        with self._lock:
            guards = {guard for each in self._guards.values() for guard in each}
        for guard in guards:
            guard.flag()
