"""The wallet client's kept connections: reused while the wallet keeps them open, never
reused once the wallet has closed one while it sat idle (so that no stake is refused for
a keep-alive timer), and a call that gets no answer fails as a network failure."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from feltlab.server.services.wallet_http import KeptConnections, NetworkFailure


class _Wallet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    peers: ClassVar[set[int]] = set()
    hang_up = False

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        type(self).peers.add(self.client_address[1])
        body = b'{"balance":1}'
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        # like a keep-alive timer running out: closed without saying so first
        self.close_connection = type(self).hang_up

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def wallet() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Wallet)
    _Wallet.peers, _Wallet.hang_up = set(), False
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/wallet"
    server.shutdown()
    server.server_close()


def test_a_connection_is_kept_and_one_closed_while_idle_is_not_reused(wallet: str) -> None:
    pool = KeptConnections(4)
    for _ in range(3):
        assert pool.post(wallet + "/bet", b"{}", {}, 2).body == b'{"balance":1}'
    assert len(_Wallet.peers) == 1  # one connection, kept
    _Wallet.hang_up = True
    pool.post(wallet + "/bet", b"{}", {}, 2)  # the wallet closes it after answering
    _Wallet.hang_up = False
    deadline = time.monotonic() + 5  # the wallet's thread closes it at once; 5 s: a bound
    while not all(kept.closed_by_peer() for _, kept in pool._idle):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert pool.post(wallet + "/bet", b"{}", {}, 2).status == 200  # a new one, not a reset
    assert len(_Wallet.peers) == 2
    pool.close()


def test_no_wallet_is_a_network_failure() -> None:
    pool = KeptConnections(1)
    with pytest.raises(NetworkFailure):
        pool.post("http://127.0.0.1:9/bet", b"{}", {}, 0.5)


def _one_answer_server(answer: bytes) -> tuple[str, threading.Thread]:
    """A wallet that answers one request with ``answer``, raw, then hangs up."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        connection, _ = listener.accept()
        with connection, listener:
            connection.recv(65536)
            connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/wallet", thread


def test_a_chunked_answer_is_read_whole_and_its_signature_found() -> None:
    url, thread = _one_answer_server(
        b"HTTP/1.1 200 OK\r\nFeltlab-Signature: t=1,v1=ab\r\n"
        b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        b"5\r\n{\"bal\r\n8\r\nance\":7}\r\n0\r\n\r\n")
    pool = KeptConnections(1)
    reply = pool.post(url + "/bet", b"{}", {}, 2)
    assert (reply.status, reply.body, reply.signature) == (200, b'{"balance":7}', "t=1,v1=ab")
    assert pool._idle == []  # Connection: close is not kept
    thread.join()


@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n{\"balance\"",  # hung up mid-body
    b"",  # hung up before a word
    b"this is not HTTP\r\n\r\n",
])
def test_a_broken_answer_is_a_network_failure(answer: bytes) -> None:
    url, thread = _one_answer_server(answer)
    with pytest.raises(NetworkFailure):
        KeptConnections(1).post(url + "/bet", b"{}", {}, 2)
    thread.join()
