"""The network under :mod:`feltlab.server.services.wallet_client`: HTTP/1.1 POSTs to one
operator's wallet over connections kept alive between calls.

A request is written as bytes on a socket and its answer parsed by :mod:`httptools`
(llhttp, the parser uvicorn serves with), because the call sits on every stake's path:
a POST costs about 15 us of client CPU this way, 85-115 us through :mod:`http.client` (whose
header parsing goes through the ``email`` package), 200-250 us through urllib3 and
570 us through httpx (``benchmarks/bench_operator_money.py``). A kept connection the
wallet closed while idle is noticed before it is used again (its socket reads as ready:
the peer's end), as urllib3 does, so that a stake is never refused only because the
wallet's keep-alive timer ran out. Nothing is retried here: a call that fails mid-way
may have been applied, and only the caller knows what to do then.
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
from dataclasses import dataclass
from functools import cache
from typing import Final
from urllib.parse import urlsplit

import httptools

from feltlab.server.signatures import HEADER

NetworkFailure: Final = (OSError, httptools.HttpParserError)
"""What a call raises when nothing clear came back (a timeout is an :class:`OSError`:
:class:`TimeoutError`; a wallet that hangs up mid-answer, :class:`ConnectionError`)."""

_SIGNATURE: Final = HEADER.lower().encode("ascii")
_READ_SIZE: Final = 65536


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
    request_line: bytes
    """``POST <path> HTTP/1.1`` and the ``Host`` header, the same for every call."""


@cache
def _target(url: str) -> _Target:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"a wallet URL is http(s)://host[:port]/path, got {url!r}")
    https = parts.scheme == "https"
    port = parts.port or (443 if https else 80)
    path = parts.path or "/"
    host = parts.netloc.rpartition("@")[2]  # as written: an IPv6 literal keeps its brackets
    line = f"POST {path} HTTP/1.1\r\nHost: {host}\r\n".encode("ascii")
    return _Target(https, parts.hostname, port, path, line)


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


class _Answer:
    """One answer read as it comes: the parser and its callbacks."""

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.body: list[bytes] = []
        self.signature: str | None = None
        self.complete = False
        self.keep_alive = False

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() == _SIGNATURE:
            self.signature = value.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        # asked here: once the parser has moved past the message it answers False
        self.keep_alive = self.parser.should_keep_alive()
        self.complete = True


class _Connection:
    """One socket to a wallet, used by one call at a time."""

    def __init__(self, target: _Target, timeout: float) -> None:
        sock = socket.create_connection((target.host, target.port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if target.https:
            sock = _tls().wrap_socket(sock, server_hostname=target.host)
        self.sock = sock

    def exchange(self, request: bytes, timeout: float) -> tuple[Reply, bool]:
        """Send ``request`` and read one whole answer: the reply, and whether the
        connection may be used again."""
        self.sock.settimeout(timeout)
        self.sock.sendall(request)
        answer = _Answer()
        while not answer.complete:
            data = self.sock.recv(_READ_SIZE)
            if not data:
                raise ConnectionError("the wallet closed the connection before a whole answer")
            answer.parser.feed_data(data)
        reply = Reply(answer.parser.get_status_code(), b"".join(answer.body),
                      answer.signature)
        return reply, answer.keep_alive

    def closed_by_peer(self) -> bool:
        """Whether the idle socket is readable: the wallet closed it (or sent what nobody
        asked for); either way it is not reused."""
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(readable)

    def close(self) -> None:
        self.sock.close()


def _request(target: _Target, body: bytes, headers: dict[str, str]) -> bytes:
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    return b"".join((target.request_line, head.encode("latin-1"),
                     b"Content-Length: %d\r\n\r\n" % len(body), body))


class KeptConnections:
    """Up to ``size`` idle connections kept for reuse, shared by the calling threads (the
    caller bounds how many calls run at once)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._idle: list[tuple[_Target, _Connection]] = []
        self._lock = threading.Lock()

    def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> Reply:
        """POST ``body`` to ``url``; raises one of :data:`NetworkFailure` when no whole
        answer came back within ``timeout`` seconds for each step."""
        target = _target(url)
        request = _request(target, body, headers)
        connection = self._take(target, timeout)
        try:
            reply, reusable = connection.exchange(request, timeout)
        except BaseException:
            connection.close()
            raise
        if reusable:
            self._give_back(target, connection)
        else:
            connection.close()
        return reply

    def _take(self, target: _Target, timeout: float) -> _Connection:
        with self._lock:
            for index in range(len(self._idle) - 1, -1, -1):
                kept_target, kept = self._idle[index]
                if kept_target == target:
                    del self._idle[index]
                    break
            else:
                kept = None
        if kept is not None:
            if not kept.closed_by_peer():
                return kept
            kept.close()
        return _Connection(target, timeout)

    def _give_back(self, target: _Target, connection: _Connection) -> None:
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
