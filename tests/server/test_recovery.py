"""Crash recovery: SIGKILL a real server at event boundaries and at random moments under
concurrent play; after each restart the books reconcile exactly and every round finishes."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from server.live_server import LiveServer
from server.recovery import BETS, CrashingServer, play_through, reconcile, sign_in

EVENTS_PER_ROUND = {"high-card-flush": 6, "high-card-flush-toledo": 6, "nh-flush-poker": 7,
                    "nine-card-flush": 7, "nh-holdem-stud": 10}
"""Events of the rounds :data:`BETS` plays with the biggest decision each time."""


def crash_everywhere(url: str, log: Path, rules: str, points: list[dict[str, int]]) -> None:
    """One round of ``rules`` per crash point, each crash at that point."""
    for point in points:
        crashing = CrashingServer(LiveServer(url, log), [point])
        crashing.start()
        try:
            headers = sign_in(crashing, "crash")
            play_through(crashing, headers, rules, f"{rules}-{point}")
            assert crashing.restarts == 1, f"no crash happened at {point}"
            assert reconcile(url) == 0
        finally:
            crashing.server.stop()


def test_crash_at_boundaries_quick(sqlite_url: str, tmp_path: Path) -> None:
    """The default suite's short version: inside the bet, inside the decision, and after
    a commit before the answer."""
    crash_everywhere(sqlite_url, tmp_path / "server.log", "high-card-flush",
                     [{"events": 2}, {"events": 5}, {"commits": 1}])


@pytest.mark.slow
@pytest.mark.parametrize("rules", list(BETS))
def test_crash_at_every_event_boundary(database_url: str, tmp_path: Path, rules: str) -> None:
    points = [{"events": k} for k in range(1, EVENTS_PER_ROUND[rules] + 1)]
    points += [{"commits": 1}, {"commits": 2}]
    crash_everywhere(database_url, tmp_path / "server.log", rules, points)


def random_kills(url: str, log: Path, players: int, rounds_each: int, kills: int,
                 workers: int) -> CrashingServer:
    crashing = CrashingServer(LiveServer(url, log, workers=workers), [])
    crashing.start()
    failures: list[BaseException] = []
    finished: list[dict[str, Any]] = []

    def player(index: int) -> None:
        try:
            headers = sign_in(crashing, f"p{index}-")
            games = list(BETS)
            for number in range(rounds_each):
                rules = games[(index + number) % len(games)]
                finished.append(play_through(crashing, headers, rules,
                                             f"p{index}-{number}"))
        except BaseException as error:  # reported by the main thread
            failures.append(error)

    threads = [threading.Thread(target=player, args=(index,)) for index in range(players)]
    for thread in threads:
        thread.start()
    chooser = random.Random(7)
    try:
        for _ in range(kills):
            time.sleep(chooser.uniform(0.5, 2.5))
            with crashing.lock:
                crashing.server.kill()
            crashing.recover()
        for thread in threads:
            thread.join(timeout=600)
    finally:
        crashing.server.stop()
    assert not failures, failures[0]
    assert len(finished) == players * rounds_each
    assert reconcile(url) == 0
    return crashing


def test_random_kills_under_concurrency_quick(sqlite_url: str, tmp_path: Path) -> None:
    crashing = random_kills(sqlite_url, tmp_path / "server.log", players=4, rounds_each=3,
                            kills=2, workers=1)
    assert crashing.restarts >= 2


@pytest.mark.slow
def test_random_kills_under_concurrency(database_url: str, tmp_path: Path) -> None:
    crashing = random_kills(database_url, tmp_path / "server.log", players=12,
                            rounds_each=8, kills=8, workers=2)
    assert crashing.restarts >= 8
