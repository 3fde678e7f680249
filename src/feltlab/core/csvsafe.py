"""Every CSV feltlab writes, through one writer that a spreadsheet cannot be made to run:
a text cell that starts as a formula may (``=``, ``+``, ``-``, ``@``, a tab or a carriage
return) gets a single quote before it (OWASP's rule against CSV injection). Numbers are
written as numbers, never escaped: a negative amount stays ``-5``. Which is which is the
cell's type, so a number must reach the writer as one, not as its text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Final, TextIO

FORMULA_STARTS: Final = ("=", "+", "-", "@", "\t", "\r")

Cell = str | int | float | Fraction | Decimal | bool | None
"""What a CSV cell may hold: text (escaped when it could start a formula), a number
(written as it is: an int, a float as ``repr`` gives it, a fraction as
``numerator/denominator``, a decimal as its digits), a yes/no (``true``/``false``),
or nothing (an empty cell)."""


def spreadsheet_safe(text: str) -> str:
    """A text cell as a spreadsheet will not run it.

    >>> spreadsheet_safe("=HYPERLINK(1)"), spreadsheet_safe("-2-3"), spreadsheet_safe("EUR")
    ("'=HYPERLINK(1)", "'-2-3", 'EUR')
    """
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def cell_text(cell: Cell) -> str:
    """One cell as written.

    >>> [cell_text(value) for value in ("-2-3", -5, -0.25, Fraction(-1, 3),
    ...                                 Decimal("-0.000000100"), True, None)]
    ["'-2-3", '-5', '-0.25', '-1/3', '-0.000000100', 'true', '']
    """
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "true" if cell else "false"
    if isinstance(cell, float):
        return repr(cell)
    if isinstance(cell, Decimal):
        return f"{cell:f}"
    if isinstance(cell, int | Fraction):
        return str(cell)
    return spreadsheet_safe(str(cell))  # text, or anything else written as its text


def write_rows(out: TextIO, rows: Iterable[Iterable[Cell]], line_end: str = "\n") -> None:
    """Write ``rows`` (the header first, if any) to ``out`` as CSV."""
    writer = csv.writer(out, lineterminator=line_end)
    writer.writerows([cell_text(cell) for cell in row] for row in rows)


def csv_text(rows: Iterable[Iterable[Cell]]) -> str:
    """``rows`` as CSV text, one line (``\\n``) a row."""
    out = io.StringIO()
    write_rows(out, rows)
    return out.getvalue()


def write_csv_file(path: Path, rows: Iterable[Iterable[Cell]]) -> None:
    """``rows`` written to the file ``path`` as CSV (``\\r\\n`` line ends, UTF-8)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        write_rows(handle, rows, "\r\n")
