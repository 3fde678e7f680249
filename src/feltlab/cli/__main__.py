"""``python -m feltlab.cli``: the ``feltlab`` program, as ``python -m feltlab`` is."""

from feltlab.__main__ import run

run()
