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
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from feltlab.core.rules import Rules

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
    """The threads the simulator may use: this machine's cores (or ``NUMBA_NUM_THREADS``),
    as Numba counts them. A flag is checked before Numba loads (a quarter of a second), so
    until then the count is Numba's own rule: the variable if it is a whole number, else
    the cores this process may run on."""
    numba = sys.modules.get("numba")
    if numba is not None:
        return int(numba.config.NUMBA_NUM_THREADS)
    try:
        return int(os.environ["NUMBA_NUM_THREADS"])
    except (KeyError, ValueError):
        pass
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


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


STRATEGY_NAMES: Final = ("optimal", "simple", "default")
"""The strategies ``--strategy`` names; anything else is a strategy file."""


def default_bets(rules: Rules) -> dict[str, int]:
    """Every wager of the rule set at its smallest allowed amount (1 unit where allowed)."""
    return {name: limit.min for name, limit in rules.limits.items()}


def check_table(rules: Rules, seats: int, bets: Mapping[str, int] | None) -> dict[str, int]:
    """The seats and bets of a simulation checked against its rule set; the stakes (each
    wager's smallest amount unless ``bets`` are given)."""
    from feltlab.core.settle import check_wagers

    if not 1 <= seats <= rules.seats:
        raise ValueError(f"--seats: {rules.id} seats 1 to {rules.seats}, not {seats}")
    return check_wagers(rules, dict(default_bets(rules) if bets is None else bets))


def check_strategy_name(name: str) -> None:
    """Refuse a ``--strategy`` that is neither a strategy's name nor a file."""
    if name not in STRATEGY_NAMES and not Path(name).is_file():
        raise ValueError(f"--strategy: {name!r} is not optimal, simple, default or a "
                         "strategy file")


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
