"""The network under :mod:`feltlab.server.services.wallet_client`: HTTP/1.1 POSTs to one
operator's wallet over connections kept alive between calls.

It is the standard library's :mod:`http.client` with a small pool, because the call sits
on every stake's path: a POST costs about 115 us of CPU this way, 200-250 us through
urllib3 and 570 us through httpx (``benchmarks/bench_operator_money.py``). A kept
connection the wallet closed while idle is noticed before it is used again (its socket
reads as ready: the peer's end), as urllib3 does, so that a stake is never refused only
because the wallet's keep-alive timer ran out. Nothing is retried here: a call that
fails mid-way may have been applied, and only the caller knows what to do then.
"""

from __future__ import annotations

import http.client
import select
import ssl
import threading
from dataclasses import dataclass
from functools import cache
from typing import Final
from urllib.parse import urlsplit

from feltlab.server.signatures import HEADER

NetworkFailure: Final = (OSError, http.client.HTTPException)
"""What a call raises when nothing clear came back (a timeout is an :class:`OSError`:
:class:`TimeoutError`)."""


@dataclass(frozen=True)
class Reply:
    """What came back over the network: the status, the raw body, the signature header."""

    status: int
    body: bytes
    signature: str | None


@dataclass(frozen=True)
class _Target:
    https: bool
    host: str
    port: int
    path: str


@cache
def _target(url: str) -> _Target:
    parts = urlsplit(url)
    https = parts.scheme == "https"
    return _Target(https, parts.hostname or "", parts.port or (443 if https else 80),
                   parts.path or "/")


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


class KeptConnections:
    """Up to ``size`` idle connections kept for reuse, shared by the calling threads (the
    caller bounds how many calls run at once)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._idle: list[tuple[_Target, http.client.HTTPConnection]] = []
        self._lock = threading.Lock()

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> Reply:
        """POST ``body`` to ``url``; raises one of :data:`NetworkFailure` when no whole
        answer came back within ``timeout`` seconds for each step."""
        target = _target(url)
        connection = self._take(target, timeout)
        try:
            connection.request("POST", target.path, body=body, headers=headers)
            answer = connection.getresponse()
            data = answer.read()
        except BaseException:
            connection.close()
            raise
        if answer.will_close:
            connection.close()
        else:
            self._give_back(target, connection)
        return Reply(answer.status, data, answer.getheader(HEADER))

    def _take(self, target: _Target, timeout: float) -> http.client.HTTPConnection:
        with self._lock:
            for index in range(len(self._idle) - 1, -1, -1):
                kept_target, kept = self._idle[index]
                if kept_target == target:
                    del self._idle[index]
                    break
            else:
                kept = None
        if kept is not None and kept.sock is not None and not _closed_by_peer(kept):
            kept.sock.settimeout(timeout)
            return kept
        if kept is not None:
            kept.close()
        if target.https:
            return http.client.HTTPSConnection(target.host, target.port, timeout=timeout,
                                               context=_tls())
        return http.client.HTTPConnection(target.host, target.port, timeout=timeout)

    def _give_back(self, target: _Target, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            if len(self._idle) < self.size:
                self._idle.append((target, connection))
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for _, connection in idle:
            connection.close()


def _closed_by_peer(connection: http.client.HTTPConnection) -> bool:
    """Whether an idle kept connection's socket is readable: the wallet closed it (or
    sent what nobody asked for); either way it is not reused."""
    sock = connection.sock
    if sock is None:
        return True
    try:
        readable, _, _ = select.select([sock], [], [], 0)
    except (OSError, ValueError):
        return True
    return bool(readable)
