"""Monte Carlo simulation of whole tables, sessions and bankrolls (compiled with Numba).

:mod:`~feltlab.simulate.runner` sets up and runs table simulations,
:mod:`~feltlab.simulate.session` sessions from a bankroll,
:mod:`~feltlab.simulate.cluster` the same on Ray, and
:mod:`~feltlab.cli.simulate` adds the ``simulate`` and ``session`` commands.
"""

DEFAULT_HANDS_PER_HOUR = 60
"""Hands a seat plays an hour unless told otherwise."""
TOTAL_UNIT = "per unit of all the initial wagers"
"""The unit of the ``total`` line: every wager a seat places before any decision."""
