"""The documented bounds of the simulator's flags, checked before any work starts.

Every bound keeps the compiled kernels' 64-bit integers in range (see
``tests/core/test_bounds.py``) and a run's time finite; a flag outside its bound is refused
with one line naming it, never silently changed.

>>> check_range("--hands", 0, 1, MAX_ROUNDS)
Traceback (most recent call last):
...
ValueError: --hands must be 1 to 1,000,000,000,000, not 0
"""

from __future__ import annotations

import importlib.util
from typing import Final

import numba as nb

MAX_ROUNDS: Final = 10**12
"""Most rounds one ``simulate`` deals."""
MAX_SESSION_HANDS: Final = 10**6
"""Most hands in one session."""
MAX_SESSIONS: Final = 10**9
MAX_BANKROLL: Final = 10**12
MAX_SEED: Final = 2**63 - 1
BANKROLL_HANDS: Final = 50
"""The default session bankroll covers this many hands at the most one hand can cost."""
LONG_RUN_SECONDS: Final = 10.0
"""A run estimated to take longer than this says so before it goes on."""


def check_range(option: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ValueError(f"{option} must be {low:,} to {high:,}, not {value:,}")


def most_workers() -> int:
    """The threads the simulator may use: this machine's cores (or ``NUMBA_NUM_THREADS``)."""
    return int(nb.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def threads_for(workers: int | None) -> int:
    """``workers`` checked against :func:`most_workers` (``None``: all of them)."""
    most = most_workers()
    if workers is None:
        return most
    if not 1 <= workers <= most:
        raise ValueError(f"--workers must be 1 to {most} (the cores this machine has), "
                         f"not {workers:,}")
    return workers


def check_probability(option: str, value: float) -> None:
    """
    >>> check_probability("--mistakes", 1.5)
    Traceback (most recent call last):
    ...
    ValueError: --mistakes must be a probability, 0 to 1, not 1.5
    """
    if not 0.0 <= value <= 1.0:  # also refuses NaN
        raise ValueError(f"{option} must be a probability, 0 to 1, not {value}")


def check_cluster(address: str | None) -> None:
    """Refuse ``--cluster`` at once when Ray is not installed (the check imports nothing)."""
    if address is None:
        return
    if not address.strip():
        raise ValueError("--cluster: give an address (auto, local or ray://host:port)")
    if importlib.util.find_spec("ray") is None:
        raise ValueError("--cluster needs Ray: pip install 'feltlab[cluster]'")


def check_simulate(hands: int, seed: int, workers: int | None, mistakes: float = 0.0,
                   cluster: str | None = None) -> None:
    """Every numeric flag of ``simulate``, checked before any strategy or kernel loads."""
    check_range("--hands", hands, 1, MAX_ROUNDS)
    check_range("--seed", seed, 0, MAX_SEED)
    check_probability("--mistakes", mistakes)
    threads_for(workers)
    check_cluster(cluster)


def check_session(bankroll: int | None, hands: int, sessions: int, seed: int,
                  workers: int | None, mistakes: float = 0.0) -> None:
    """Every numeric flag of ``session``, checked before any strategy or kernel loads."""
    if bankroll is not None:
        check_range("--bankroll", bankroll, 1, MAX_BANKROLL)
    check_range("--hands", hands, 1, MAX_SESSION_HANDS)
    check_range("--sessions", sessions, 1, MAX_SESSIONS)
    check_range("--seed", seed, 0, MAX_SEED)
    check_probability("--mistakes", mistakes)
    threads_for(workers)


def duration(seconds: float) -> str:
    """
    >>> duration(42.4), duration(3 * 3600 + 60), duration(5e9)
    ('42 s', '3 h 1 min', '158 years')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"
    if seconds < 2 * 365 * 86400:
        return f"{seconds / 86400:.0f} days"
    return f"{seconds / (365.25 * 86400):,.0f} years"
