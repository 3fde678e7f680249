"""Prometheus text metrics: request latency, rounds and wagers (per worker process)."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import defaultdict
from typing import Final

LATENCY_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _labels(**labels: str) -> str:
    inner = ",".join(f'{name}="{value}"' for name, value in sorted(labels.items()))
    return "{" + inner + "}" if inner else ""


class Metrics:
    """Counters and a latency histogram, written out in the Prometheus text format."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.rounds: dict[str, int] = defaultdict(int)
        self.wagered: dict[str, int] = defaultdict(int)
        self.requests: dict[tuple[str, str, int], int] = defaultdict(int)
        self.latency_counts: dict[str, list[int]] = {}
        self.latency_sum: dict[str, float] = defaultdict(float)

    def round_completed(self, rules_id: str, staked: int) -> None:
        with self._lock:
            self.rounds[rules_id] += 1
            self.wagered[rules_id] += staked

    def request(self, method: str, route: str, status: int, seconds: float) -> None:
        with self._lock:
            self.requests[(method, route, status)] += 1
            counts = self.latency_counts.setdefault(route, [0] * (len(LATENCY_BUCKETS) + 1))
            counts[bisect_left(LATENCY_BUCKETS, seconds)] += 1
            self.latency_sum[route] += seconds

    def render(self, healthy: bool) -> str:
        with self._lock:
            lines = ["# HELP feltlab_up 1 when the database answers.", "# TYPE feltlab_up gauge",
                     f"feltlab_up {int(healthy)}",
                     "# HELP feltlab_rounds_total Rounds completed by this worker.",
                     "# TYPE feltlab_rounds_total counter"]
            lines += [f"feltlab_rounds_total{_labels(rules=key)} {value}"
                      for key, value in sorted(self.rounds.items())]
            lines += ["# HELP feltlab_wagered_units_total Units staked in completed rounds.",
                      "# TYPE feltlab_wagered_units_total counter"]
            lines += [f"feltlab_wagered_units_total{_labels(rules=key)} {value}"
                      for key, value in sorted(self.wagered.items())]
            lines += ["# HELP feltlab_requests_total HTTP requests answered.",
                      "# TYPE feltlab_requests_total counter"]
            lines += [f"feltlab_requests_total{_labels(method=m, route=r, status=str(s))} {v}"
                      for (m, r, s), v in sorted(self.requests.items())]
            lines += ["# HELP feltlab_request_seconds Request latency.",
                      "# TYPE feltlab_request_seconds histogram"]
            for route, counts in sorted(self.latency_counts.items()):
                running = 0
                for bound, count in zip((*LATENCY_BUCKETS, float("inf")), counts, strict=True):
                    running += count
                    edge = "+Inf" if bound == float("inf") else str(bound)
                    lines.append(f"feltlab_request_seconds_bucket{_labels(route=route, le=edge)}"
                                 f" {running}")
                lines.append(f"feltlab_request_seconds_sum{_labels(route=route)} "
                             f"{self.latency_sum[route]:.6f}")
                lines.append(f"feltlab_request_seconds_count{_labels(route=route)} {running}")
        return "\n".join(lines) + "\n"
