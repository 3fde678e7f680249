"""Live states passed between workers (feltlab.server.live, feltlab.server.notify,
feltlab.server.views.wire_text): another worker shows each watcher exactly what the
worker that made the change shows, no hidden card reaches anyone else, and an older
state of a table never shows last."""

from __future__ import annotations

import asyncio
import json

from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from feltlab.server.live import Hub
from feltlab.server.notify import Announcer
from feltlab.server.services.context import Services
from feltlab.server.views import TableState, state_from_wire, watcher_text, wire_text
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
