"""Live updates across workers and hosts.

The worker that made a change tells its own hub at once. On PostgreSQL it then
announces the change with a NOTIFY on the table's own channel (the table's id and the
worker's own mark, so it ignores its own), and the listener thread of every worker with
a watcher of that table passes it to its hub: a worker LISTENs only on the tables its
watchers follow, from before a new watcher's first read (:class:`Following`). On SQLite
(one host, perhaps several workers) it sends the table's id as a datagram to every other
worker's socket in a folder named after the database file (:class:`Peers`),
so a change reaches every worker's watchers within milliseconds. A change made with its
table's new state sends that state too, encoded as every watcher is shown it
(:func:`feltlab.server.views.wire_text`), so the other workers show it without reading
the table again (a NOTIFY only if it fits PostgreSQL's 8000 bytes). As a
safety net for writers outside the workers, each worker also looks once a second for
round events and seats that nobody announced (:meth:`Announcer._watch`).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

from sqlalchemy import URL, Engine

from feltlab.server.live import Hub
from feltlab.server.revocations import Revoked
from feltlab.server.services import changes
from feltlab.server.services.changes import NOTIFY_BYTES, Following, with_state
from feltlab.server.services.statements import notifies
from feltlab.server.views import TableState, state_from_wire

log = logging.getLogger("feltlab.server")

WATCH_SECONDS = 1.0
"""How often a SQLite worker looks for changes nobody announced."""
PEERS_LISTED_SECONDS = 1.0
"""How often a SQLite worker lists the other workers' sockets again."""
SEND_WAIT_SECONDS = 0.25
"""How long telling a busy peer may wait for room in its queue."""
DATAGRAM_BYTES = 60_000
"""The largest datagram sent to a peer (below the kernel's socket buffer): a larger state
is not sent, only the table's id."""

Shown = Callable[[int, TableState, int], None]
"""Shows a state another worker sent: the table, its state, the stamp it is shown at."""


def peers_folder(url: URL) -> Path | None:
    """The folder of a SQLite database's worker sockets (short: a socket path is at most
    107 bytes), or None for an in-memory database or another kind of database."""
    database = url.database
    if url.get_backend_name() != "sqlite" or not database or database == ":memory:":
        return None
    digest = hashlib.sha256(str(Path(database).expanduser().resolve()).encode()).hexdigest()
    return Path(tempfile.gettempdir()) / f"feltlab-live-{digest[:16]}"


def forget_dead_peers(folder: Path) -> None:
    """Remove the sockets in ``folder`` that no worker is bound to any more: a worker
    killed (SIGKILL, a power cut) cannot remove its own, and one is left per crash."""
    if not folder.is_dir():
        return
    for peer in folder.glob("*.sock"):
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        try:
            probe.connect(str(peer))  # sends nothing: refused when nobody is bound
        except (ConnectionRefusedError, FileNotFoundError):
            with contextlib.suppress(OSError):
                peer.unlink()
        except OSError:
            pass  # not ours to judge (permissions): left as it is
        finally:
            probe.close()


class Peers:
    """The workers on one SQLite database, one datagram socket each."""

    def __init__(self, folder: Path, hub: Hub, shown: Shown | None = None) -> None:
        self.folder, self.hub, self.shown = folder, hub, shown
        forget_dead_peers(folder)
        folder.mkdir(mode=0o700, exist_ok=True)
        self.path = folder / f"{os.getpid()}-{secrets.token_hex(4)}.sock"
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._socket.bind(str(self.path))
        self._sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        # a peer's queue holds few datagrams (net.unix.max_dgram_qlen, often 10): when it is
        # full, wait a moment for its thread to drain it rather than drop the update (its
        # watchers would see the change only at their safety net's next look)
        self._sender.settimeout(SEND_WAIT_SECONDS)
        self._send_lock = threading.Lock()
        self._known: list[Path] = []
        self._listed_at = -PEERS_LISTED_SECONDS

    def _others(self) -> list[Path]:
        """The other workers' sockets, listed again at most once per
        :data:`PEERS_LISTED_SECONDS` (a new worker hears from this one after that)."""
        moment = time.monotonic()
        if moment - self._listed_at >= PEERS_LISTED_SECONDS:
            self._known = [peer for peer in self.folder.glob("*.sock") if peer != self.path]
            self._listed_at = moment
        return self._known

    def any_others(self) -> bool:
        """Whether another worker runs on this database."""
        with self._send_lock:
            return bool(self._others())

    def send(self, table_id: int, wire: Callable[[], str] | None = None) -> None:
        """Tell every other worker, with the table's new state as ``wire()`` encodes it
        (only when there is another worker to tell)."""
        self._send(lambda: with_state(str(table_id), None if wire is None else wire(),
                                      DATAGRAM_BYTES))

    def send_revoked(self, revoked: Revoked) -> None:
        """Tell every other worker of a revocation."""
        self._send(revoked.wire)

    def _send(self, payload_of: Callable[[], str]) -> None:
        """Send ``payload_of()`` to every other worker (made only if there is one); a
        socket whose worker died is removed."""
        with self._send_lock:
            others = self._others()
        if not others:
            return
        payload = payload_of().encode()
        with self._send_lock:
            for peer in others:
                try:
                    self._sender.sendto(payload, str(peer))
                except (ConnectionRefusedError, FileNotFoundError):
                    with contextlib.suppress(OSError):
                        peer.unlink()
                    self._listed_at = -PEERS_LISTED_SECONDS
                except OSError:  # still full: that worker's safety net catches up
                    log.warning("live update to %s dropped", peer.name)

    def receive(self, stop: threading.Event) -> None:
        self._socket.settimeout(1.0)
        while not stop.is_set():
            try:
                payload = self._socket.recv(DATAGRAM_BYTES + 64)
            except TimeoutError:
                continue
            except OSError:
                return
            text = payload.decode(errors="replace")
            revoked = Revoked.from_wire(text)
            if revoked is not None:
                self.hub.guards.revoke(revoked)
                continue
            table, _, wire = text.partition(":")
            if table.isdigit():
                told(self.hub, self.shown, int(table), wire or None)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()
        self._socket.close()
        self._sender.close()


def told(hub: Hub, shown: Shown | None, table_id: int, wire: str | None) -> None:
    """Pass another worker's change of the table to ``hub``: with its state if it sent one
    (shown through ``shown``), else as a change the watchers read again."""
    if wire is None or shown is None:
        hub.publish(table_id)
        return
    try:
        state = state_from_wire(wire, -1)
    except (ValueError, KeyError, TypeError):
        log.warning("a live update's state could not be read; reading the table again")
        hub.publish(table_id)
        return
    hub.receive(table_id, state.order, lambda stamp: shown(table_id, state, stamp))


class Announcer:
    def __init__(self, engine: Engine, hub: Hub, reader: Engine | None = None) -> None:
        self.engine, self.hub, self.reader = engine, hub, reader
        self.postgresql = notifies(engine)  # PostgreSQL's NOTIFY, else datagrams (SQLite)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.peers: Peers | None = None
        self.origin = secrets.token_hex(8)  # this worker, in its NOTIFY payloads
        self.shown: Shown | None = None  # shows another worker's state in this one
        self.following: Following | None = None
        if self.postgresql:
            self.following = Following()
            hub.followed = self.following.want

    def sends_states(self) -> bool:
        """Whether a private table's change is sent to other workers with its state: on
        SQLite, when there are other workers (on PostgreSQL its first read's NOTIFY says
        only that it changed)."""
        return self.peers is not None and self.peers.any_others()

    def ready(self, table_id: int) -> Future[None]:
        """Done once this worker hears the table's changes made elsewhere (at once on
        SQLite, where every worker is told of every change)."""
        if self.following is None:
            done: Future[None] = Future()
            done.set_result(None)
            return done
        return self.following.ready(table_id)

    def publish(self, table_id: int, seen: int | None = None,
                install: Callable[[int], None] | None = None, notified: bool = False,
                state: TableState | None = None, wire: Callable[[], str] | None = None
                ) -> None:
        """Tell this worker's watchers at once (see :meth:`Hub.publish` for ``seen`` and
        ``install``; ``state`` the change's), then every other worker, with the state as
        ``wire()`` encodes it (on PostgreSQL, unless the change's own transaction
        ``notified`` them already)."""
        self.hub.publish(table_id, seen, install, None if state is None else state.order)
        if notified and self.postgresql:
            return
        if not self.postgresql:
            if self.peers is not None:
                self.peers.send(table_id, wire)
            return
        try:
            changes.notify(self.engine, table_id,
                           with_state(f"{table_id}:{self.origin}",
                                      None if wire is None else wire(), NOTIFY_BYTES))
        except Exception:  # the other workers' safety-net re-read still brings the change
            log.warning("NOTIFY failed; other workers' watchers will see the change on "
                        "their next read")

    def revoke(self, revoked: Revoked) -> None:
        """Flag the live sockets ``revoked`` names: this worker's at once, then every
        other worker's (on PostgreSQL through the revocation channel they all hear)."""
        self.hub.guards.revoke(revoked)
        if not self.postgresql:
            if self.peers is not None:
                self.peers.send_revoked(revoked)
            return
        prefix, _, body = revoked.wire().partition(":")
        try:
            changes.notify_revoked(self.engine, f"{prefix}:{self.origin}:{body}")
        except Exception:  # each socket still reads its token again when it expires
            log.warning("NOTIFY of a revocation failed; other workers' live sockets of "
                        "it close when the token expires")

    def _heard(self, payloads: list[str]) -> None:
        """NOTIFYs from the workers, as they came together: ``TABLE:ORIGIN``, perhaps with
        ``:STATE``; this worker's own were told already. A change's transaction may send
        both its bare mark (from its first statement) and its state: the state stands
        for both."""
        heard = [(table, origin, wire) for table, origin, wire in
                 (_parts(payload) for payload in payloads) if origin != self.origin]
        for table, _, wire in heard:
            revoked = Revoked.from_wire(f"{table}:{wire}")
            if revoked is not None:
                self.hub.guards.revoke(revoked)
        with_states = {(table, origin) for table, origin, wire in heard if wire}
        for table, origin, wire in heard:
            if table.isdigit() and (wire or (table, origin) not in with_states):
                told(self.hub, self.shown, int(table), wire or None)

    def start(self) -> None:
        if self.postgresql:
            self._spawn(self._listen)
            return
        folder = peers_folder(self.engine.url)
        if folder is not None:
            try:
                self.peers = Peers(folder, self.hub, self.shown)
            except OSError as error:
                log.warning("no live-update socket (%s); other workers' changes arrive "
                            "through the database check", error)
        if self.peers is not None:
            self._spawn(self._receive)
        self._spawn(self._watch)

    def _receive(self) -> None:
        if self.peers is not None:
            self.peers.receive(self._stop)

    def _spawn(self, target: Callable[[], None]) -> None:
        thread = threading.Thread(target=target, name="feltlab-live", daemon=True)
        thread.start()
        self._threads.append(thread)

    def _watch(self) -> None:
        engine = self.reader or self.engine
        last_event = last_seat = -1
        while not self._stop.wait(WATCH_SECONDS):
            try:
                tables, last_event, last_seat = changes.changed_tables(engine, last_event,
                                                                       last_seat)
            except Exception:
                log.warning("watching for changes failed; retrying")
                continue
            quiet_since = time.monotonic() - 2 * WATCH_SECONDS
            for table_id in tables:
                if self.hub.published_at(table_id) < quiet_since:  # nobody announced it
                    self.hub.publish(table_id)

    def stop(self) -> None:
        self._stop.set()
        if self.peers is not None:
            self.peers.close()
            with contextlib.suppress(OSError):  # the last worker out removes the folder
                self.peers.folder.rmdir()

    def _listen(self) -> None:
        assert self.following is not None
        while not self._stop.is_set():
            try:
                changes.listen(self.engine, self._stop, self._heard, self.following,
                               self._started, self.hub.guards.revoke_all)
            except Exception:
                log.warning("LISTEN connection lost; reconnecting")
                self._stop.wait(1.0)

    def _started(self, listened: list[int], stopped: list[int]) -> None:
        """What changed at these tables while this worker did not hear them is unknown
        here: their watchers (a new one among them) read them again, and a state kept of
        a table no longer heard is not taken for its latest."""
        for table_id in [*listened, *stopped]:
            self.hub.publish(table_id)


def _parts(payload: str) -> tuple[str, str, str]:
    table, _, rest = payload.partition(":")
    origin, _, wire = rest.partition(":")
    return table, origin, wire
