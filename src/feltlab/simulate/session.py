"""Sessions and bankrolls: many players' sessions, each from its own seeded stream.

A session is one player at the table betting the same wagers every hand from a bankroll.
It ends after ``hands`` hands, or at ruin: when the bankroll can no longer cover the
next hand's wagers with the largest raise the rules allow. "Doubled" means the bankroll
reached twice its start at some point (the player kept playing).
"""

from __future__ import annotations

import html
import io
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.core.jit import cached_kernels
from feltlab.core.rng import SESSION_STREAMS
from feltlab.core.status import COMPILING, compiled, step
from feltlab.simulate import DEFAULT_HANDS_PER_HOUR
from feltlab.simulate.chunks import Setup
from feltlab.simulate.histogram import Histogram
from feltlab.simulate.limits import BANKROLL_HANDS, check_session, threads_for
from feltlab.simulate.runner import warn_if_long

FAN = (5, 25, 50, 75, 95)
BATCH = 1 << 14
"""Most sessions per call of the compiled kernel: memory per batch is fixed."""
BATCH_HANDS = 1 << 23
"""Hands a batch aims at, so that long sessions report progress (and an estimate of the
whole run's time) within a second or so."""
ENGINE_BATCH_HANDS = 20_000
"""Hands a batch aims at on the engine's path (a few seconds' work: progress, Ctrl-C)."""
SAMPLE = 10_000
"""Sessions whose every figure is kept (the first ones): the plots' bankroll fan."""


@dataclass
class SessionStats:
    """Every session's figures, streamed: sums, counts and histograms, plus the first
    :data:`SAMPLE` sessions in full for the plots."""

    checkpoints: int
    sessions: int = 0
    result_sum: int = 0
    ruined: int = 0
    doubled: int = 0
    played: int = 0
    results: Histogram = field(default_factory=Histogram)
    drawdowns: Histogram = field(default_factory=Histogram)
    sample: list[npt.NDArray[np.int64]] = field(default_factory=list)
    trajectories: list[npt.NDArray[np.int64]] = field(default_factory=list)

    def add(self, outcome: npt.NDArray[np.int64], trajectory: npt.NDArray[np.int64],
            bankroll: int) -> None:
        final, drawdown, ruined_at, doubled_at, played = outcome.T
        results = final - bankroll
        self.sessions += int(outcome.shape[0])
        self.result_sum += int(results.sum(dtype=np.int64))
        self.ruined += int(np.count_nonzero(ruined_at >= 0))
        self.doubled += int(np.count_nonzero(doubled_at >= 0))
        self.played += int(played.sum(dtype=np.int64))
        self.results.add(results)
        self.drawdowns.add(drawdown)
        room = SAMPLE - sum(len(part) for part in self.sample)
        if room > 0:
            self.sample.append(outcome[:room].copy())
            self.trajectories.append(trajectory[:room].copy())


@dataclass(frozen=True)
class SessionResult:
    setup: Setup
    bankroll: int
    hands: int
    seed: int
    hands_per_hour: int
    seconds: float
    stats: SessionStats
    step: int
    interrupted: bool = False
    bankroll_is_default: bool = False
    bets_are_default: bool = False

    @property
    def sessions(self) -> int:
        return self.stats.sessions

    @property
    def _sample(self) -> npt.NDArray[np.int64]:
        parts = self.stats.sample
        return np.concatenate(parts) if parts else np.zeros((0, 5), dtype=np.int64)

    @property
    def final(self) -> npt.NDArray[np.int64]:
        """Final bankroll of each sampled session (the first :data:`SAMPLE`)."""
        return self._sample[:, 0]

    @property
    def drawdown(self) -> npt.NDArray[np.int64]:
        return self._sample[:, 1]

    @property
    def ruined_at(self) -> npt.NDArray[np.int64]:
        return self._sample[:, 2]

    @property
    def doubled_at(self) -> npt.NDArray[np.int64]:
        return self._sample[:, 3]

    @property
    def played(self) -> npt.NDArray[np.int64]:
        return self._sample[:, 4]

    @property
    def trajectory(self) -> npt.NDArray[np.int64]:
        parts = self.stats.trajectories
        return np.concatenate(parts) if parts else np.zeros((0, 1), dtype=np.int64)

    @property
    def results(self) -> npt.NDArray[np.int64]:
        """Win (+) or loss (-) of each sampled session."""
        return self.final - self.bankroll

    @property
    def ruin_probability(self) -> Fraction:
        return Fraction(self.stats.ruined, max(self.sessions, 1))

    @property
    def double_probability(self) -> Fraction:
        return Fraction(self.stats.doubled, max(self.sessions, 1))

    @property
    def hours(self) -> float:
        return self.hands / self.hands_per_hour

    def theoretical_win_per_hour(self) -> float | None:
        """The casino's expected win an hour from one player: each bet times its exact
        house edge (the player's expected loss)."""
        setup = self.setup
        total = Fraction(0)
        for name, stake in zip(setup.wager_names, setup.stakes, strict=True):
            if name == "total" or not stake:
                continue
            if name not in setup.exact:
                return None
            total += stake * setup.exact[name]
        return float(total * self.hands_per_hour)

    def observed_win_per_hour(self) -> float:
        """The casino's win an hour in these sessions (the players' loss)."""
        played = self.stats.played
        return float(-self.stats.result_sum / played * self.hands_per_hour) if played else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            **self.setup.rules.identity(),
            "strategy": self.setup.strategy.name,
            "bets": self.setup.bets,
            "bankroll": self.bankroll,
            "bankroll_is_default": self.bankroll_is_default,
            "hands": self.hands,
            "sessions": self.sessions,
            "seed": self.seed,
            "seconds": self.seconds,
            "interrupted": self.interrupted,
            "hands_per_hour": self.hands_per_hour,
            "most_at_risk_per_hand": self.setup.most_at_risk,
            "result_percentiles": self.stats.results.percentiles(),
            "percentile_bin_width": self.stats.results.width,
            "mean_result": self.stats.result_sum / self.sessions if self.sessions else 0.0,
            "ruin_probability": float(self.ruin_probability),
            "double_probability": float(self.double_probability),
            "max_drawdown_percentiles": self.stats.drawdowns.percentiles(),
            "hands_played": self.stats.played,
            "theoretical_win_per_hour": self.theoretical_win_per_hour(),
            "observed_win_per_hour": self.observed_win_per_hour(),
            "win_per_hour_is": "the casino's win an hour from one player (the player's loss)",
        }


def batch_size(hands: int, threads: int) -> int:
    """Sessions per batch: about :data:`BATCH_HANDS` hands, at least two per thread.

    >>> batch_size(300, 2), batch_size(10**6, 2)
    (16384, 8)
    """
    return max(2 * threads, min(BATCH, BATCH_HANDS // hands))


def default_bankroll(setup: Setup) -> int:
    """:data:`BANKROLL_HANDS` hands at the most one hand can cost."""
    return BANKROLL_HANDS * setup.most_at_risk


def run_sessions(setup: Setup, bankroll: int | None, hands: int, sessions: int, seed: int = 0,
                 hands_per_hour: int = DEFAULT_HANDS_PER_HOUR, checkpoints: int = 100,
                 workers: int | None = None, progress: Any = None) -> SessionResult:
    """Play ``sessions`` sessions of ``hands`` hands (``bankroll`` None: the default);
    Ctrl-C keeps the finished batches."""
    check_session(bankroll, hands, sessions, seed, workers)
    chosen = default_bankroll(setup) if bankroll is None else bankroll
    if chosen < setup.most_at_risk:
        raise ValueError(f"--bankroll {chosen} cannot cover one hand "
                         f"(up to {setup.most_at_risk} at risk)")
    nb.set_num_threads(threads_for(workers))
    checkpoints = min(checkpoints, hands)
    stats = SessionStats(checkpoints)
    compiled_path = setup.policy is None
    if compiled_path:
        load_session_kernel(setup, seed, chosen)
    interrupted = False
    start = time.perf_counter()
    with step("playing sessions", total=sessions) as playing:
        try:
            batch = (batch_size(hands, threads_for(workers)) if compiled_path
                     else max(1, ENGINE_BATCH_HANDS // hands))
            for first in range(0, sessions, batch):
                count = min(batch, sessions - first)
                keep = max(0, min(count, SAMPLE - first))
                outcome, trajectory = _sessions(setup, seed, first, count, hands, chosen,
                                                checkpoints, keep)
                stats.add(outcome, trajectory, chosen)
                if first == 0:
                    warn_if_long(count, sessions, time.perf_counter() - start, "sessions")
                playing(first + count, sessions)
                if progress is not None:
                    progress(first + count, sessions)
        except KeyboardInterrupt:
            interrupted = True
    seconds = time.perf_counter() - start
    return SessionResult(setup, chosen, hands, seed, hands_per_hour, seconds, stats,
                         step=max(1, hands // checkpoints), interrupted=interrupted,
                         bankroll_is_default=bankroll is None)


def _sessions(setup: Setup, seed: int, first: int, count: int, hands: int, bankroll: int,
              checkpoints: int, keep: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """One batch of sessions: by the compiled kernel, or through the engine for a game
    without one (:func:`~feltlab.simulate.engine_path.engine_sessions`, its own shuffles:
    the same figures in distribution, not hand for hand)."""
    if setup.policy is not None:
        from feltlab.simulate.engine_path import engine_sessions

        return engine_sessions(setup, seed, first, count, hands, bankroll, checkpoints, keep)
    cards = setup.kernel.cards_per_round(1)  # one player alone at the table
    outcome, trajectory = setup.kernels.sessions(
        seed, SESSION_STREAMS + first, count, hands, bankroll, setup.most_at_risk, cards,
        checkpoints, keep, len(setup.wager_names), *setup.arrays)
    return outcome, trajectory


def load_session_kernel(setup: Setup, seed: int, bankroll: int) -> None:
    """Load (or the first time, compile) the session kernel, timed apart."""
    with step("loading the compiled session simulator", note=COMPILING) as loading, \
            cached_kernels():
        sessions = setup.kernels.sessions
        sessions(seed, SESSION_STREAMS, 1, 1, bankroll, setup.most_at_risk,
                 setup.kernel.cards_per_round(1), 1, 1, len(setup.wager_names), *setup.arrays)
        compiled(loading, sessions, "compiling the session simulator")


# Plots and the HTML report ----------------------------------------------------------------

def _figure(result: SessionResult) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    # A rare jackpot would squeeze every other session into one bar: show the middle 98%
    # and say how many sessions lie beyond it (1st to 99th percentile).
    histogram = result.stats.results
    spread = histogram.percentiles((0, 1, 99, 100))
    low, high = spread["p1"], spread["p99"]
    if low == high:
        low, high = spread["p0"] - 0.5, spread["p100"] + 0.5
    inside = (histogram.values >= low) & (histogram.values <= high)
    outside = int(histogram.counts[~inside].sum())
    left.hist(histogram.values[inside], weights=histogram.counts[inside], bins=60,
              range=(low, high), color="#1565c0")
    left.axvline(0, color="#c62828", linewidth=1)
    left.set_title(f"Session results ({result.sessions} sessions of {result.hands} hands)")
    if outside:
        left.annotate(f"{outside} sessions outside the range shown", (0.98, 0.95),
                      xycoords="axes fraction", ha="right", va="top", fontsize=8)
    left.set_xlabel("win / loss (units)")
    left.set_ylabel("sessions")
    sampled = result.trajectory.shape[0]
    hands_axis = np.arange(result.trajectory.shape[1]) * result.step
    bands = np.percentile(result.trajectory - result.bankroll, FAN, axis=0)
    right.fill_between(hands_axis, bands[0], bands[4], color="#90caf9", label="5-95%")
    right.fill_between(hands_axis, bands[1], bands[3], color="#42a5f5", label="25-75%")
    right.plot(hands_axis, bands[2], color="#0d47a1", label="median")
    right.axhline(0, color="#c62828", linewidth=1)
    right.set_title("Bankroll over the session (percentiles"
                    + (f", first {sampled:,} sessions)" if sampled < result.sessions else ")"))
    right.set_xlabel("hands")
    right.set_ylabel("win / loss (units)")
    right.legend(loc="lower left")
    figure.tight_layout()
    return figure


def save_plot(result: SessionResult, path: Path) -> None:
    """The histogram and the percentile fan, as PNG or SVG by the file's suffix."""
    import matplotlib.pyplot as plt

    if path.suffix.lower() not in (".png", ".svg"):
        raise ValueError(f"--plot: {path} must end in .png or .svg")
    figure = _figure(result)
    figure.savefig(path)
    plt.close(figure)


def _svg(result: SessionResult) -> str:
    import matplotlib.pyplot as plt

    figure = _figure(result)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def html_report(result: SessionResult) -> str:
    """A standalone HTML page: the figures (inline SVG) and the figures' numbers."""
    data = result.to_json()
    rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_show(v))}</td></tr>"
                   for k, v in data.items())
    title = html.escape(f"{result.setup.rules.name}: sessions")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title>"
            "<style>body{font-family:sans-serif;margin:2em}th{text-align:left;"
            "padding-right:1em}</style></head>"
            f"<body><h1>{title}</h1>{_svg(result)}<table>{rows}</table></body></html>")


def _show(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_show(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
