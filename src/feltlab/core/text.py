"""Small pieces of text every game's words are made of: lists, pays, Markdown tables.

>>> either(["1x", "2x", "3x"]), pays_text(8000), pays_text("push")
('1x, 2x or 3x', '8,000 to 1', 'push')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def either(choices: Sequence[str]) -> str:
    """``'1x, 2x or 3x'``.

    >>> either(["1x"]), either(["1x", "2x", "3x"])
    ('1x', '1x, 2x or 3x')
    """
    return choices[0] if len(choices) == 1 else ", ".join(choices[:-1]) + " or " + choices[-1]


def plural(count: int, word: str) -> str:
    """``'1 card'``, ``'2 cards'``."""
    return f"{count} {word}{'s' * (count != 1)}"


def pays_text(pays: int | str) -> str:
    """A pay line as a pay table says it.

    >>> pays_text(8000), pays_text("push")
    ('8,000 to 1', 'push')
    """
    return "push" if pays == "push" else f"{int(pays):,} to 1"


def bullets(lines: Sequence[str]) -> list[str]:
    return [f"- {line}" for line in lines]


def numbered(lines: Sequence[str]) -> list[str]:
    return [f"{number}. {line}" for number, line in enumerate(lines, start=1)]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table.

    >>> markdown_table(["a", "b"], [["1", "2"]])
    ['| a | b |', '| --- | --- |', '| 1 | 2 |']
    """
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def count_table_markdown(title: str, table: Mapping[int, int], unit: str) -> list[str]:
    """A pay table by count in Markdown, with the line that loses."""
    if not table:
        return [f"**{title}**: not offered.", ""]
    rows = [[str(count), pays_text(table[count])] for count in sorted(table, reverse=True)]
    fewest = min(table)
    rows.append([f"fewer than {fewest}", "lose"])
    return [f"**{title}**", "", *markdown_table([unit, "pays"], rows), ""]


def count_rows(table: Mapping[int, int]) -> tuple[tuple[str, str], ...]:
    """A pay table by count as rows of (line, pays), the best line first."""
    return tuple((str(count), f"{table[count]:,} to 1") for count in sorted(table, reverse=True))


def named_rows(table: Mapping[str, int | str]) -> tuple[tuple[str, str], ...]:
    """A pay table of named hands as rows of (hand, pays), in the table's order."""
    return tuple((name.replace("_", " ").capitalize(), pays_text(pays))
                 for name, pays in table.items())


def whole_number(text: str) -> int | None:
    """``text`` as a whole number (``-3`` too: the rules refuse it), else ``None``.

    >>> whole_number(" 25 "), whole_number("-3"), whole_number("2.5")
    (25, -3, None)
    """
    digits = text.strip()
    return int(digits) if digits.lstrip("-").isdigit() else None


def parse_amount(answer: str, ante: int) -> int | None:
    """A typed amount: ``20`` units, or ``2x`` the ante; ``None`` if it is neither.

    >>> parse_amount("2x", 10), parse_amount("25", 10), parse_amount("lots", 10)
    (20, 25, None)
    """
    text = answer.strip().lower()
    if text.endswith("x"):
        multiple = whole_number(text[:-1])
        return None if multiple is None else multiple * ante
    return whole_number(text)
