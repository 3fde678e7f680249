"""The consoles commands print to, and their one-line refusals.

On a terminal, Rich fits output to the window. Sent to a file or a pipe, Rich would cut
it to 80 columns and wrap table rows onto several lines; feltlab lays it out at
:data:`PIPE_WIDTH` columns instead (or ``$COLUMNS`` when set), so each row stays one line.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Final, NoReturn

if TYPE_CHECKING:
    from rich.console import Console

PIPE_WIDTH: Final = 200


def output_console(stderr: bool = False) -> Console:
    """A console for a command's output (or, with ``stderr``, its messages)."""
    from rich.console import Console

    console = Console(highlight=False, stderr=stderr)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        return Console(highlight=False, stderr=stderr, width=PIPE_WIDTH)
    return console


def one_line(message: str) -> str:
    r"""``message`` with every line break or other control character escaped, so that a
    hostile value quoted in it can never split a refusal into several lines.

    >>> one_line("field qualifier.\r: Extra inputs are not permitted")
    'field qualifier.\\r: Extra inputs are not permitted'
    """
    return "".join(character if character.isprintable()
                   else character.encode("unicode_escape").decode("ascii")
                   for character in message)


def refusal(message: str) -> str:
    """The one line a refusal writes on standard error."""
    return f"error: {one_line(message)}"


def fail(message: str) -> NoReturn:
    """One line on standard error, exit status 2, nothing on standard output."""
    import typer

    typer.echo(refusal(message), err=True)
    raise typer.Exit(2)


def leave(status: int) -> NoReturn:
    """End the program with ``status`` once the standard streams are flushed, without
    tearing down the interpreter, which takes a tenth of a second or more once Numba's
    compiled libraries are loaded (every file a command writes is closed by then)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe: let Python report it as it always has
        raise SystemExit(status) from None
    os._exit(status)
