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
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.simulate import DEFAULT_HANDS_PER_HOUR, kernel
from feltlab.simulate.rng import SESSION_STREAMS
from feltlab.simulate.runner import Setup, available_threads

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
FAN = (5, 25, 50, 75, 95)
BATCH = 256


@dataclass(frozen=True)
class SessionResult:
    setup: Setup
    bankroll: int
    hands: int
    seed: int
    hands_per_hour: int
    seconds: float
    final: npt.NDArray[np.int64]
    drawdown: npt.NDArray[np.int64]
    ruined_at: npt.NDArray[np.int64]
    doubled_at: npt.NDArray[np.int64]
    played: npt.NDArray[np.int64]
    trajectory: npt.NDArray[np.int64]
    step: int
    interrupted: bool = False

    @property
    def sessions(self) -> int:
        return int(self.final.shape[0])

    @property
    def results(self) -> npt.NDArray[np.int64]:
        """Win (+) or loss (-) of each session."""
        return self.final - self.bankroll

    @property
    def ruin_probability(self) -> Fraction:
        return Fraction(int((self.ruined_at >= 0).sum()), max(self.sessions, 1))

    @property
    def double_probability(self) -> Fraction:
        return Fraction(int((self.doubled_at >= 0).sum()), max(self.sessions, 1))

    @property
    def hours(self) -> float:
        return self.hands / self.hands_per_hour

    def theoretical_win_per_hour(self) -> float | None:
        """The casino's expected win an hour: each bet times its exact house edge."""
        setup = self.setup
        total = Fraction(0)
        for name, stake in zip(setup.wager_names, setup.stakes, strict=True):
            if name == "total" or not stake:
                continue
            if name not in setup.exact:
                return None
            total += stake * setup.exact[name]
        return float(total * self.hands_per_hour)

    def observed_loss_per_hour(self) -> float:
        played = int(self.played.sum())
        return float(-self.results.sum() / played * self.hands_per_hour) if played else 0.0

    def to_json(self) -> dict[str, Any]:
        results = self.results
        return {
            "rules": self.setup.rules.id,
            "strategy": self.setup.strategy.name,
            "bets": self.setup.bets,
            "bankroll": self.bankroll,
            "hands": self.hands,
            "sessions": self.sessions,
            "seed": self.seed,
            "seconds": self.seconds,
            "interrupted": self.interrupted,
            "hands_per_hour": self.hands_per_hour,
            "most_at_risk_per_hand": self.setup.most_at_risk,
            "result_percentiles": _percentiles(results),
            "mean_result": float(results.mean()) if self.sessions else 0.0,
            "ruin_probability": float(self.ruin_probability),
            "double_probability": float(self.double_probability),
            "max_drawdown_percentiles": _percentiles(self.drawdown),
            "theoretical_win_per_hour": self.theoretical_win_per_hour(),
            "observed_loss_per_hour": self.observed_loss_per_hour(),
        }


def _percentiles(values: npt.NDArray[np.int64]) -> dict[str, float]:
    if values.size == 0:
        return {}
    points = np.percentile(values, PERCENTILES)
    return {f"p{p}": float(v) for p, v in zip(PERCENTILES, points, strict=True)}


def run_sessions(setup: Setup, bankroll: int, hands: int, sessions: int, seed: int = 0,
                 hands_per_hour: int = DEFAULT_HANDS_PER_HOUR, checkpoints: int = 100,
                 workers: int | None = None, progress: Any = None) -> SessionResult:
    """Play ``sessions`` sessions of ``hands`` hands; Ctrl-C keeps the finished batches."""
    if bankroll < setup.most_at_risk:
        raise ValueError(f"--bankroll {bankroll} cannot cover one hand "
                         f"(up to {setup.most_at_risk} at risk)")
    if hands < 1 or sessions < 1:
        raise ValueError("--hands and --sessions must be at least 1")
    nb.set_num_threads(available_threads(workers))
    checkpoints = min(checkpoints, hands)
    parts: list[tuple[npt.NDArray[np.int64], ...]] = []
    interrupted = False
    start = time.perf_counter()
    try:
        for first in range(0, sessions, BATCH):
            count = min(BATCH, sessions - first)
            parts.append(kernel.sessions(
                setup.game, seed, SESSION_STREAMS + first, count, hands, bankroll,
                setup.most_at_risk, checkpoints, len(setup.wager_names), *setup.arrays))
            if progress is not None:
                progress(first + count, sessions)
    except KeyboardInterrupt:
        interrupted = True
    seconds = time.perf_counter() - start
    joined = [np.concatenate([part[i] for part in parts]) if parts else
              np.zeros((0, checkpoints + 1) if i == 5 else 0, dtype=np.int64)
              for i in range(6)]
    final, drawdown, ruined_at, doubled_at, played, trajectory = joined
    return SessionResult(setup, bankroll, hands, seed, hands_per_hour, seconds, final,
                         drawdown, ruined_at, doubled_at, played, trajectory,
                         step=max(1, hands // checkpoints), interrupted=interrupted)


# Plots and the HTML report ----------------------------------------------------------------

def _figure(result: SessionResult) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    # A rare jackpot would squeeze every other session into one bar: show the middle 99%
    # and say how many sessions lie beyond it.
    low, high = np.percentile(result.results, [0.5, 99.5])
    outside = int(np.count_nonzero((result.results < low) | (result.results > high)))
    left.hist(result.results, bins=60, range=(low, high), color="#1565c0")
    left.axvline(0, color="#c62828", linewidth=1)
    left.set_title(f"Session results ({result.sessions} sessions of {result.hands} hands)")
    if outside:
        left.annotate(f"{outside} sessions outside the range shown", (0.98, 0.95),
                      xycoords="axes fraction", ha="right", va="top", fontsize=8)
    left.set_xlabel("win / loss (units)")
    left.set_ylabel("sessions")
    hands_axis = np.arange(result.trajectory.shape[1]) * result.step
    bands = np.percentile(result.trajectory - result.bankroll, FAN, axis=0)
    right.fill_between(hands_axis, bands[0], bands[4], color="#90caf9", label="5-95%")
    right.fill_between(hands_axis, bands[1], bands[3], color="#42a5f5", label="25-75%")
    right.plot(hands_axis, bands[2], color="#0d47a1", label="median")
    right.axhline(0, color="#c62828", linewidth=1)
    right.set_title("Bankroll over the session (percentiles)")
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
