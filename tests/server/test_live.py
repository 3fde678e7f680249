"""Live states passed between workers (feltlab.server.live, feltlab.server.notify,
feltlab.server.views.wire_text): another worker shows each watcher exactly what the
worker that made the change shows, no hidden card reaches anyone else, and an older
state of a table never shows last."""

from __future__ import annotations

import asyncio
import json
import socket
from dataclasses import replace
from functools import partial
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, make_url

from feltlab.core import jsontext
from feltlab.server.api import live_ws
from feltlab.server.auth import Caller
from feltlab.server.live import Hub
from feltlab.server.models import GameTable
from feltlab.server.notify import Announcer, Peers, peers_folder
from feltlab.server.revocations import SocketGuard
from feltlab.server.services.context import Services
from feltlab.server.views import (
    TableState,
    common_view,
    personal_view,
    state_from_wire,
    table_state,
    view_of,
    watcher_text,
    wire_text,
)
from server.conftest import practice_table, sign_up
from server.test_shared import bet, make_admin


def _dealt_table(client: TestClient) -> tuple[int, list[dict[str, str]], TableState]:
    """A shared table of two players, dealt, and the state the deal's own change built."""
    admin = make_admin(client)
    table_id = client.post("/api/v1/admin/tables", json={
        "rules": "high-card-flush", "betting_seconds": 30, "decision_seconds": 30},
        headers=admin).json()["id"]
    players = [sign_up(client), sign_up(client)]
    for seat, headers in enumerate(players, start=1):
        client.post(f"/api/v1/tables/{table_id}/seats", json={"seat": seat}, headers=headers)
    for headers in players:
        bet(client, table_id, headers)
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    state: TableState = found.snapshots[table_id]
    assert state.loaded is not None and state.phase == "decisions"
    return table_id, players, state


def test_a_state_sent_to_another_worker_shows_every_watcher_the_same(
        client: TestClient) -> None:
    """Each seat's player, and anyone else, is shown by the receiving worker exactly the
    message the sending worker shows them; an outsider's message has no hidden card."""
    table_id, players, state = _dealt_table(client)
    received = state_from_wire(wire_text(state), 5)
    assert received.stamp == 5 and received.order == state.order
    assert received.version == state.version and received.phase == state.phase
    assert state.loaded is not None
    watchers = [seat.user_id for seat in state.loaded.seats] + [10**9]  # seats 1, 2; nobody
    for user_id in watchers:
        assert watcher_text(received, user_id) == watcher_text(state, user_id)
    outsider = json.loads(watcher_text(received, 10**9))["round"]
    player = json.loads(watcher_text(received, watchers[0]))["round"]
    assert outsider["seat"] is None and outsider["cards"] == {} and player["cards"]["player"]
    for text in (watcher_text(received, 10**9), watcher_text(received, watchers[1])):
        assert player["cards"]["player"] not in text  # the first seat's hidden hand
    assert json.loads(watcher_text(received, watchers[0])) == client.get(
        f"/api/v1/tables/{table_id}", headers=players[0]).json()


def _watched(table_id: int) -> Hub:
    """A hub with a watcher of ``table_id`` (a queue that is never read)."""
    hub = Hub()
    hub._watchers[table_id].add((asyncio.new_event_loop(), asyncio.Queue()))
    return hub


def test_another_workers_state_is_shown_only_if_it_is_the_latest() -> None:
    """A state from another worker is installed only when its order is past every state
    seen here; an older or equal one is dropped without an announcement."""
    hub, shown = _watched(7), list[int]()
    hub.receive(7, (3, 4), shown.append)
    assert shown == [1] and hub.stamp(7) == 1
    hub.receive(7, (3, 2), shown.append)  # sent before the one shown, arrived after
    hub.receive(7, (3, 4), shown.append)
    assert shown == [1] and hub.stamp(7) == 1
    hub.receive(7, (4, 0), shown.append)  # a new round
    assert shown == [1, 2]


def test_a_table_nobody_watches_keeps_no_state_but_its_order() -> None:
    """Another worker's state of a table nobody watches here is not kept; the change still
    makes any older state stale, and a state older than it is never shown later."""
    hub, shown = Hub(), list[int]()
    hub.receive(7, (3, 5), shown.append)
    assert shown == [] and hub.stamp(7) == 1
    hub._watchers[7].add((asyncio.new_event_loop(), asyncio.Queue()))
    hub.receive(7, (3, 4), shown.append)  # sent earlier, told late
    assert shown == []
    hub.receive(7, (3, 6), shown.append)
    assert shown == [2]


def test_a_change_of_unknown_state_holds_back_other_workers_states_until_read() -> None:
    """After a change announced without its state (a seat taken), no state from another
    worker is shown (it may predate that change) until a read made after it is shown."""
    hub, shown = _watched(7), list[int]()
    hub.receive(7, (3, 4), shown.append)
    hub.publish(7)  # a seat taken: stamp 2, state unknown here
    hub.receive(7, (3, 5), shown.append)
    assert shown == [1] and hub.stamp(7) == 3  # announced: the watchers read the table
    hub.read(7, 1, (3, 4))  # a read begun before the unknown change: still unknown
    hub.receive(7, (3, 6), shown.append)
    assert shown == [1]
    hub.read(7, 4, (3, 6))  # a read begun after it
    hub.receive(7, (3, 6), shown.append)  # what the read saw already
    hub.receive(7, (3, 7), shown.append)
    assert shown == [1, 5]


def test_own_change_shown_past_older_states_told_late() -> None:
    """A change's own state is shown even if another worker's older state was announced
    while it held the table; not if a change of unknown state was."""
    hub, shown = _watched(7), list[int]()
    seen = hub.stamp(7)
    hub.receive(7, (3, 4), lambda stamp: None)  # committed before this change took the table
    hub.publish(7, seen, shown.append, (3, 5))
    assert shown == [2]
    seen = hub.stamp(7)
    hub.publish(7)  # unknown
    hub.publish(7, seen, shown.append, (3, 6))
    assert shown == [2]


def test_a_notify_with_the_state_stands_for_the_bare_one_sent_with_it(
        client: TestClient) -> None:
    """A transaction's bare NOTIFY and its NOTIFY with the state, heard together, make one
    announcement showing the state; this worker's own are ignored."""
    table_id, _, state = _dealt_table(client)
    announcer = Announcer(create_engine("sqlite://"), _watched(table_id))
    shown: list[tuple[int, TableState, int]] = []
    announcer.shown = lambda table, received, stamp: shown.append((table, received, stamp))
    wire = wire_text(state)
    announcer._heard([f"{table_id}:other", f"{table_id}:other:{wire}",
                      f"{table_id}:{announcer.origin}:{wire}"])
    assert [(table, stamp) for table, _, stamp in shown] == [(table_id, 1)]
    assert announcer.hub.stamp(table_id) == 1
    announcer._heard([f"{table_id + 1}:other"])  # a bare one alone: read the table again
    assert announcer.hub.stamp(table_id + 1) == 1 and len(shown) == 1


def test_a_table_is_followed_from_its_first_watcher_to_its_last() -> None:
    """The hub tells ``followed`` when a table gets its first watcher here and when it
    loses its last (on PostgreSQL the worker LISTENs to exactly those tables)."""
    hub, told = Hub(), list[tuple[int, bool]]()
    hub.followed = lambda table_id, wanted: told.append((table_id, wanted))

    async def watchers() -> None:
        first, second = hub.watch(3), hub.watch(3)
        other = hub.watch(4)
        hub.unwatch(3, first)
        hub.unwatch(3, first)  # twice: nothing more
        hub.unwatch(3, second)
        hub.unwatch(4, other)

    asyncio.run(watchers())
    assert told == [(3, True), (4, True), (3, False), (4, False)]


def test_a_table_heard_again_is_read_again() -> None:
    """What changed at a table while the worker did not hear it is unknown: when the
    listener starts (or stops) hearing it, its kept state is no longer taken as current,
    and its watchers read it again."""
    announcer = Announcer(create_engine("sqlite://"), _watched(7))
    before = announcer.hub.stamp(7)
    announcer._started([7], [])
    assert announcer.hub.stamp(7) == before + 1
    assert announcer.ready(7).done()  # SQLite: every worker is told of every change


def test_a_private_change_nobody_watches_builds_no_state(client: TestClient) -> None:
    """A private table's change with no watcher here (and no other worker to send it to)
    builds no live state; the stamp moves all the same, so the next watcher reads the
    table, and is shown the round as the player left it."""
    player = sign_up(client)
    table_id = practice_table(client, player, "high-card-flush")
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    assert not found.shows(table_id)
    view = client.post(f"/api/v1/tables/{table_id}/rounds", json={"wagers": {"ante": 5}},
                       headers=player).json()
    assert table_id not in found.snapshots and found.hub.stamp(table_id) == 1
    with client.websocket_connect(f"/api/v1/tables/{table_id}/live", headers=player) as live:
        assert live.receive_json()["round"]["id"] == view["id"]
        assert found.shows(table_id)
        view = client.post(f"/api/v1/rounds/{view['id']}/actions", json={"action": "fold"},
                           headers=player).json()
        assert found.snapshots[table_id].phase == "complete"
        assert live.receive_json()["round"]["phase"] == "complete"


def test_a_changes_answer_is_made_of_what_its_watchers_are_shown(client: TestClient) -> None:
    """A money request's answer (:func:`view_of` given the :func:`table_state` built from
    the same round and names) reuses the state's parts: the same bytes as a view built
    afresh, and each player's is the round of their live message."""
    table_id, _, state = _dealt_table(client)
    loaded = state.loaded
    assert loaded is not None
    found: Services = client.app.state.services  # type: ignore[attr-defined]
    sitting = [(each["seat"], each["player"]) for each in state.view["seated"]]
    with found.read() as session:
        table = session.get(GameTable, table_id)
        assert table is not None
        built = table_state(table, sitting, loaded, state.names)
    assert built.version == state.version
    for user_id in [seat.user_id for seat in loaded.seats] + [10**9]:
        afresh = {**common_view(loaded), **personal_view(loaded, user_id, state.names)}
        answer = view_of(loaded, user_id, state.names, built)
        assert jsontext.dumps(answer) == jsontext.dumps(afresh)
        assert json.loads(watcher_text(built, user_id))["round"] == answer
        assert view_of(loaded, user_id, dict(state.names), built) == afresh  # names: afresh
    assert jsontext.dumps(view_of(loaded, 10**9, state.names, built)) == jsontext.dumps(
        {**common_view(loaded), **personal_view(loaded, 10**9, state.names)})


def test_one_wakeup_a_loop_tells_each_of_its_watchers() -> None:
    """An announcement reaches every watcher of the table, one call handed to each
    watcher's loop."""
    async def watchers() -> list[int]:
        hub = Hub()
        queues = [hub.watch(7), hub.watch(7)]
        other = hub.watch(8)
        hub.publish(7)
        await asyncio.sleep(0)
        return [queue.qsize() for queue in [*queues, other]]

    assert asyncio.run(watchers()) == [1, 1, 0]


def test_a_quiet_watcher_looks_again_only_after_the_poll_interval(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The safety net's timer puts a look in a watcher's queue once it has waited
    ``POLL_SECONDS`` for an announcement, not before, and not while it is not waiting."""
    monkeypatch.setattr(live_ws, "POLL_SECONDS", 0.05)

    async def watcher() -> tuple[int, int, float]:
        queue: asyncio.Queue[int] = asyncio.Queue()
        quiet = live_ws._Quiet(queue)
        loop = asyncio.get_running_loop()
        quiet.waiting()
        await asyncio.sleep(0.03)
        quiet.since = None  # an announcement came: no look due
        queue.put_nowait(7)
        await asyncio.sleep(0.03)
        first = queue.qsize()
        queue.get_nowait()
        started = loop.time()
        quiet.waiting()  # the timer set by the first wait moves on to this one's end
        looked = await queue.get()
        waited = loop.time() - started
        quiet.stop()
        return first, looked, waited

    first, looked, waited = asyncio.run(watcher())
    assert first == 1 and looked == live_ws._LOOK and waited >= 0.05


class _Socket:
    """A watcher's socket that keeps what it is sent, and goes after ``until`` texts."""

    def __init__(self, until: int) -> None:
        self.sent: list[str] = []
        self.until = until

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        if len(self.sent) == self.until:
            raise RuntimeError("gone")


def _bare_state(round_id: int, phase: str, text: str) -> TableState:
    """A shared table's state as another worker sends it, every watcher's message
    ``text``."""
    return TableState(-1, None, True, {}, None, {}, ("open", (), round_id, 1),
                      encoded={("seat", None): text}, seat_numbers={}, phase=phase)


def test_a_watcher_is_shown_the_end_of_its_round_before_the_next() -> None:
    """Announcements that come together make one view, but the end of the round the
    watcher was shown unfinished is never skipped, whatever came after it."""
    class Found:
        def __init__(self) -> None:
            self.hub = Hub()
            self.snapshots: dict[int, TableState] = {}
            self.settled: dict[int, TableState] = {}
            self.live_locks: dict[object, asyncio.Lock] = {}

        def keep(self, table_id: int, state: TableState, stamp: int) -> None:
            Services.keep(self, table_id, replace(state, stamp=stamp))  # type: ignore[arg-type]

    async def watch(changes: list[TableState], until: int) -> list[str]:
        found = Found()
        queue = found.hub.watch(7)
        first = replace(_bare_state(1, "decisions", "round 1, deciding"), stamp=0)
        found.snapshots[7] = first
        for change in changes:  # announced before the watcher's sender runs
            found.hub.publish(7, found.hub.stamp(7), partial(found.keep, 7, change),
                              change.order)
        socket = _Socket(until)
        caller = Caller(1, "watcher", "player", 1)
        unflagged = live_ws._Vouch(found, "token", SocketGuard(1, 1, lambda: None))  # type: ignore[arg-type]
        await asyncio.wait_for(live_ws._send_views(
            socket, found, 7, caller, queue, first, unflagged), 5)  # type: ignore[arg-type]
        return socket.sent

    ended = _bare_state(1, "complete", "round 1, ended")
    betting = _bare_state(2, "wagers", "round 2, betting")
    dealt = _bare_state(2, "decisions", "round 2, deciding")
    assert asyncio.run(watch([ended, betting, dealt], 3)) == [
        "round 1, deciding", "round 1, ended", "round 2, deciding"]
    assert asyncio.run(watch([ended], 2)) == ["round 1, deciding", "round 1, ended"]


def test_a_killed_workers_socket_is_removed_by_the_next_start(tmp_path: Path) -> None:
    """A worker killed with SIGKILL leaves its live-update socket behind: the next worker
    on the database removes it, and keeps every socket a live worker is bound to."""
    folder = peers_folder(make_url(f"sqlite:///{tmp_path / 'feltlab.sqlite3'}"))
    assert folder is not None and folder.name.startswith("feltlab-live-")
    assert peers_folder(make_url("postgresql://feltlab@localhost/feltlab")) is None
    folder.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dead.bind(str(folder / "1-dead.sock"))
    dead.close()  # as a killed process leaves it: the file stays, nobody is bound
    alive = Peers(folder, Hub())
    try:
        assert not (folder / "1-dead.sock").exists()
        newcomer = Peers(folder, Hub())
        assert sorted(folder.glob("*.sock")) == sorted([alive.path, newcomer.path])
        newcomer.close()
    finally:
        alive.close()
        folder.rmdir()
