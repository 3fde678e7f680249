"""Fault injection for the recovery tests: with ``FELTLAB_CRASH_AFTER_EVENTS=N`` the
process kills itself (SIGKILL) right after appending its N-th round event, inside the
transaction; with ``FELTLAB_CRASH_AFTER_COMMITS=N`` right after its N-th committed
money-moving request's transaction (an operator's held stake's too), before the answer is
sent; with ``FELTLAB_CRASH_AFTER_WALLET_CALLS=N`` right after its N-th answer from an
operator's wallet to a bet, before the answer is recorded. The application sets the
limits from its settings (:attr:`~feltlab.server.settings.Settings.crash_after_events`,
``crash_after_commits`` and ``crash_after_wallet_calls``, :func:`configure`); unset
(always, in production), these are no-ops."""

from __future__ import annotations

import os
import signal
import threading

_lock = threading.Lock()
_counts = {"events": 0, "commits": 0, "wallet_calls": 0}
_limits = {"events": 0, "commits": 0, "wallet_calls": 0}


def configure(events: int, commits: int, wallet_calls: int = 0) -> None:
    """Crash after this process's ``events``-th round event, its ``commits``-th money
    commit, or its ``wallet_calls``-th answered bet call (0: never)."""
    with _lock:
        _limits.update(events=events, commits=commits, wallet_calls=wallet_calls)


def _tick(kind: str) -> None:
    if not _limits[kind]:
        return
    with _lock:
        _counts[kind] += 1
        if _counts[kind] == _limits[kind]:
            os.kill(os.getpid(), signal.SIGKILL)


def event_appended() -> None:
    _tick("events")


def request_committed() -> None:
    _tick("commits")


def wallet_answered() -> None:
    _tick("wallet_calls")
