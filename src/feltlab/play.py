"""Terminal play (placeholder until the play command lands)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add the ``play`` command to ``app``."""
