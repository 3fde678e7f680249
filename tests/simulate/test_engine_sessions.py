"""Sessions played through the engine (:func:`feltlab.simulate.engine_path.engine_sessions`),
the session simulator's path for a game without a compiled kernel: the kernel's own
books, figures that agree with the compiled sessions within statistical error, and the
same answer for the same seed."""

from __future__ import annotations

import math

import numpy as np

from feltlab.core.rules import load_rules
from feltlab.simulate.runner import prepare
from feltlab.simulate.session import SessionResult, run_sessions

RULES = "nine-card-flush"  # the quickest of the three families through the engine
HANDS = 30


def _sessions(engine: bool, sessions: int, seed: int = 5) -> SessionResult:
    setup = prepare(load_rules(RULES), engine=engine)
    bankroll = 4 * setup.most_at_risk  # small: a fair share of the sessions are ruined
    return run_sessions(setup, bankroll, HANDS, sessions, seed=seed, workers=1)


def _within(engine: float, compiled: float, error: float) -> bool:
    return abs(engine - compiled) < 4 * error


def test_engine_sessions_agree_with_the_compiled_ones() -> None:
    engine, compiled = _sessions(True, 1_500), _sessions(False, 10_000)  # all sampled
    assert engine.setup.policy is not None and compiled.setup.policy is None
    means, errors = [], []
    for result in (engine, compiled):
        results = result.final - result.bankroll  # every session is in the sample
        means.append(float(results.mean()))
        errors.append(float(results.std()) / math.sqrt(result.sessions))
    assert _within(means[0], means[1], math.hypot(*errors)), (means, errors)
    ruins = [float(result.ruin_probability) for result in (engine, compiled)]
    assert 0.02 < ruins[1] < 0.98, ruins  # the check below says something
    spread = math.hypot(*(math.sqrt(p * (1 - p) / result.sessions)
                          for p, result in zip(ruins, (engine, compiled), strict=True)))
    assert _within(ruins[0], ruins[1], spread), ruins


def test_engine_sessions_keep_the_kernels_books() -> None:
    result = _sessions(True, 300)
    need, bankroll = result.setup.most_at_risk, result.bankroll
    ruined = result.ruined_at >= 0
    assert ruined.any() and (~ruined).any()
    assert (result.final[ruined] < need).all()  # stopped when a hand could not be covered
    assert (result.played[ruined] == result.ruined_at[ruined]).all()
    assert (result.played[~ruined] == HANDS).all()
    trajectory = result.trajectory
    assert (trajectory[:, 0] == bankroll).all() and (trajectory[:, -1] == result.final).all()
    doubled = result.doubled_at >= 0
    assert (trajectory[~doubled] < 2 * bankroll).all()


def test_the_same_seed_plays_the_same_sessions() -> None:
    first, again, other = _sessions(True, 40), _sessions(True, 40), _sessions(True, 40, 6)
    assert np.array_equal(first.final, again.final)
    assert np.array_equal(first.trajectory, again.trajectory)
    assert not np.array_equal(first.final, other.final)
