"""The consoles commands print to.

On a terminal, Rich fits output to the window. Sent to a file or a pipe, Rich would cut
it to 80 columns and wrap table rows onto several lines; feltlab lays it out at
:data:`PIPE_WIDTH` columns instead (or ``$COLUMNS`` when set), so each row stays one line.
"""

from __future__ import annotations

import os
from typing import Final

from rich.console import Console

PIPE_WIDTH: Final = 200


def output_console(stderr: bool = False) -> Console:
    """A console for a command's output (or, with ``stderr``, its messages)."""
    console = Console(highlight=False, stderr=stderr)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        return Console(highlight=False, stderr=stderr, width=PIPE_WIDTH)
    return console
