"""The ``feltlab`` command line: :mod:`feltlab.cli.program` builds it with Typer, and
:mod:`feltlab.cli.quick` runs the quick commands' usual forms without it.

This package imports nothing itself, so that a quick command loads neither Typer nor
pydantic; ``feltlab.cli.app``, ``main`` and the program's other names are
:mod:`feltlab.cli.program`'s, imported when first asked for.
"""

from __future__ import annotations

import importlib
from typing import Final

_PROGRAM_NAMES: Final = frozenset({"app", "build_app", "command_named", "main",
                                   "INTERNAL_ERROR", "OneLineErrors", "report_crash"})


def __getattr__(name: str) -> object:
    if name not in _PROGRAM_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module("feltlab.cli.program"), name)
