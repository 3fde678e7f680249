"""Prometheus text metrics: request latency, rounds and wagers, totalled over every worker
process of the server on this host.

Each worker keeps its own counters in memory and writes them, at most once a second and
when asked for ``/metrics``, to ``WORKER.json`` in a folder named after the database
(:func:`metrics_folder`); ``/metrics`` from any worker adds up every worker's file. A
worker that stopped leaves its file, so its counts stay in the totals; ``feltlab serve``
empties the folder when it starts, so the totals count from the server's start. Several
hosts on one PostgreSQL each report their own host's totals.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import tempfile
import threading
import time
from bisect import bisect_left
from collections import defaultdict, deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from feltlab.core.cache import write_atomically

LATENCY_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SAVE_SECONDS: Final = 1.0


def _labels(**labels: str) -> str:
    inner = ",".join(f'{name}="{value}"' for name, value in sorted(labels.items()))
    return "{" + inner + "}" if inner else ""


def metrics_folder(database_url: str) -> Path:
    """Where the workers of the server on ``database_url`` keep their counters."""
    digest = hashlib.sha256(database_url.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"feltlab-metrics-{digest}"


def clear_folder(folder: Path) -> None:
    """Forget the counters of earlier runs (``feltlab serve`` does this at start)."""
    for stale in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            stale.unlink()


class Metrics:
    """Counters and a latency histogram, written out in the Prometheus text format. With
    a ``folder``, the counters are shared with the other workers through it."""

    def __init__(self, folder: Path | None = None) -> None:
        self._lock = threading.Lock()
        self.rounds: dict[str, int] = defaultdict(int)
        self.wagered: dict[str, int] = defaultdict(int)
        self.requests: dict[tuple[str, str, int], int] = defaultdict(int)
        self.latency_counts: dict[str, list[int]] = {}
        self.latency_sum: dict[str, float] = defaultdict(float)
        self.folder = folder
        self._file = (None if folder is None else
                      folder / f"{os.getpid()}-{secrets.token_hex(4)}.json")
        self._saved_at = 0.0
        self._arrived: deque[tuple[str, str, int, float]] = deque()

    def round_completed(self, rules_id: str, staked: int) -> None:
        with self._lock:
            self.rounds[rules_id] += 1
            self.wagered[rules_id] += staked
        self._save_now_and_then()

    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        """Count a request: appended to a queue (``deque.append`` is atomic), so the
        request path takes no lock; the counters take it in when they are read."""
        self._arrived.append((method, route, status, seconds))
        if time.monotonic() - self._saved_at >= SAVE_SECONDS:
            self._save_now_and_then()

    def _take_in(self) -> None:
        """Move the queued requests into the counters (the caller holds the lock)."""
        while self._arrived:
            method, route, status, seconds = self._arrived.popleft()
            self.requests[(method, route, status)] += 1
            counts = self.latency_counts.setdefault(route, [0] * (len(LATENCY_BUCKETS) + 1))
            counts[bisect_left(LATENCY_BUCKETS, seconds)] += 1
            self.latency_sum[route] += seconds

    # --- sharing with the other workers ------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            self._take_in()
            return {"rounds": dict(self.rounds), "wagered": dict(self.wagered),
                    "requests": [[*key, value] for key, value in self.requests.items()],
                    "latency_counts": {key: list(value)
                                       for key, value in self.latency_counts.items()},
                    "latency_sum": dict(self.latency_sum)}

    def _save_now_and_then(self) -> None:
        if self._file is not None and time.monotonic() - self._saved_at >= SAVE_SECONDS:
            self.save()

    def save(self) -> None:
        """Write this worker's counters to its file (atomically)."""
        if self._file is None or self.folder is None:
            return
        self._saved_at = time.monotonic()
        try:
            self.folder.mkdir(mode=0o700, exist_ok=True)
            write_atomically(self._file, json.dumps(self.snapshot()).encode(), durable=False)
        except OSError:  # the totals miss this worker until the next save
            pass

    def totals(self) -> Metrics:
        """Every worker's counters added up (this worker's from memory)."""
        total = Metrics()
        total.add(self.snapshot())
        if self.folder is None:
            return total
        self.save()
        for path in self.folder.glob("*.json"):
            if path == self._file:
                continue
            with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
                total.add(json.loads(path.read_text()))
        return total

    def add(self, counts: dict[str, Any]) -> None:
        for key, value in counts["rounds"].items():
            self.rounds[key] += int(value)
        for key, value in counts["wagered"].items():
            self.wagered[key] += int(value)
        for method, route, status, value in counts["requests"]:
            self.requests[(method, route, int(status))] += int(value)
        for route, values in counts["latency_counts"].items():
            mine = self.latency_counts.setdefault(route, [0] * (len(LATENCY_BUCKETS) + 1))
            for index, value in enumerate(values[:len(mine)]):
                mine[index] += int(value)
        for route, value in counts["latency_sum"].items():
            self.latency_sum[route] += float(value)

    # --- the Prometheus text -------------------------------------------------------------

    def render(self, healthy: bool,
               alerts: Mapping[tuple[str, str], int] | None = None,
               ledger: tuple[float, int] | None = None) -> str:
        """The totals of every worker of this server on this host, the reports' alerts
        now (``alerts``: by kind and currency, counted from the database) and the last
        ledger check (``ledger``: its time in Unix seconds and its problems)."""
        total = self.totals()
        scope = "by every worker of this server on this host since it started"
        lines = ["# HELP feltlab_up 1 when the database answers.", "# TYPE feltlab_up gauge",
                 f"feltlab_up {int(healthy)}",
                 f"# HELP feltlab_rounds_total Rounds completed {scope}.",
                 "# TYPE feltlab_rounds_total counter"]
        lines += [f"feltlab_rounds_total{_labels(rules=key)} {value}"
                  for key, value in sorted(total.rounds.items())]
        lines += [f"# HELP feltlab_wagered_units_total Units staked in rounds completed "
                  f"{scope}.", "# TYPE feltlab_wagered_units_total counter"]
        lines += [f"feltlab_wagered_units_total{_labels(rules=key)} {value}"
                  for key, value in sorted(total.wagered.items())]
        lines += [f"# HELP feltlab_requests_total HTTP requests answered {scope}.",
                  "# TYPE feltlab_requests_total counter"]
        lines += [f"feltlab_requests_total{_labels(method=m, route=r, status=str(s))} {v}"
                  for (m, r, s), v in sorted(total.requests.items())]
        lines += [f"# HELP feltlab_request_seconds Request latency, {scope}.",
                  "# TYPE feltlab_request_seconds histogram"]
        for route, counts in sorted(total.latency_counts.items()):
            lines += _histogram(route, counts, total.latency_sum[route])
        lines += ["# HELP feltlab_report_alerts Table-days and players whose win is outside "
                  "its 95% band, over everything settled.",
                  "# TYPE feltlab_report_alerts gauge"]
        lines += [f"feltlab_report_alerts{_labels(kind=kind, currency=currency)} {value}"
                  for (kind, currency), value in sorted((alerts or {}).items())]
        lines += ["# HELP feltlab_ledger_check_timestamp_seconds When the ledger was last "
                  "checked (feltlab ledger check, or the server's background check).",
                  "# TYPE feltlab_ledger_check_timestamp_seconds gauge",
                  "# HELP feltlab_ledger_check_problems What the last ledger check found out "
                  "of line (0: sound).", "# TYPE feltlab_ledger_check_problems gauge"]
        if ledger is not None:
            lines += [f"feltlab_ledger_check_timestamp_seconds {ledger[0]:.3f}",
                      f"feltlab_ledger_check_problems {ledger[1]}"]
        return "\n".join(lines) + "\n"


def _histogram(route: str, counts: list[int], seconds: float) -> list[str]:
    lines, running = [], 0
    for bound, count in zip((*LATENCY_BUCKETS, float("inf")), counts, strict=True):
        running += count
        edge = "+Inf" if bound == float("inf") else str(bound)
        lines.append(f"feltlab_request_seconds_bucket{_labels(route=route, le=edge)} {running}")
    lines.append(f"feltlab_request_seconds_sum{_labels(route=route)} {seconds:.6f}")
    lines.append(f"feltlab_request_seconds_count{_labels(route=route)} {running}")
    return lines
