"""The page ``feltlab --help`` prints (and ``feltlab`` alone): the usage, the program's
options and the list of commands, drawn as Typer 0.29 draws a group's help
(``typer.rich_utils.rich_format_help``), the commands taken from
:data:`feltlab.cli.commands.COMMANDS`.

Drawn here so that showing it builds no command and imports neither Typer's help
renderer nor what that imports (Rich's Markdown and tracebacks): with them ``feltlab
--help`` took nearly twice the time of a process importing typer, rich and pydantic,
without them 1.1 times (issue 35, ``docs/benchmarks.md``). ``tests/cli/test_front_page.py``
holds the page to Typer's, byte for byte, in colour and at other widths.
"""

from __future__ import annotations

import inspect
import os
from typing import TYPE_CHECKING, Final

from rich.align import Align
from rich.columns import Columns
from rich.console import Console
from rich.highlighter import RegexHighlighter
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from feltlab.cli.commands import COMMANDS

if TYPE_CHECKING:
    from typer._click.core import Context
    from typer.core import TyperGroup

STYLES: Final = {"option": "bold cyan", "switch": "bold green",
                 "negative_option": "bold magenta", "negative_switch": "bold red",
                 "types": "bold yellow", "types_sep": "dim", "usage": "yellow"}
"""Typer's theme for help pages."""


class OptionHighlighter(RegexHighlighter):
    highlights = [  # noqa: RUF012 (Rich's attribute, as Typer declares it)
        r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])",
        r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
        r"(?P<types>\<[^\>]+\>)",
        r"(?P<usage>Usage: )",
    ]


class NegativeOptionHighlighter(RegexHighlighter):
    highlights = [  # noqa: RUF012
        r"(^|\W)(?P<negative_switch>\-\w+)(?![a-zA-Z0-9])",
        r"(^|\W)(?P<negative_option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
    ]


class TypesHighlighter(RegexHighlighter):
    highlights = [  # noqa: RUF012
        r"^(?P<types_sep>(\[|<))",
        r"(?P<types_sep>\|)",
        r"(?P<types_sep>(\]|>))(\.\.\.)?$",
    ]


highlight_options = OptionHighlighter()
highlight_negatives = NegativeOptionHighlighter()
highlight_types = TypesHighlighter()


def help_console() -> Console:
    """The console Typer prints help to, set from the same environment variables."""
    width = os.getenv("TERMINAL_WIDTH")
    force_terminal = True if (os.getenv("GITHUB_ACTIONS") or os.getenv("FORCE_COLOR")
                              or os.getenv("PY_COLORS")) else None
    if os.getenv("_TYPER_FORCE_DISABLE_TERMINAL"):
        force_terminal = False
    return Console(theme=Theme(STYLES), highlighter=highlight_options, color_system="auto",
                   force_terminal=force_terminal, width=int(width) if width else None)


def prose(text: str) -> Text:
    """Help text as Typer shows it (Rich markup, option names highlighted)."""
    return highlight_options(Text.from_markup(inspect.cleandoc(text), style=""))


def first_paragraph(help_text: str) -> str:
    first = inspect.cleandoc(help_text).partition("\f")[0].split("\n\n")[0]
    return first.replace("\n", " ").strip()


def option_help(text: str) -> str:
    """An option's help with its paragraphs' single line breaks taken out, as Typer does."""
    paragraphs = [part.strip("\b\n") + "\n" if part.startswith("\b")
                  else part.replace("\n", " ").strip() for part in text.split("\n\n")]
    return "\n".join(paragraphs).strip()


def options_table(group: TyperGroup, ctx: Context) -> Table:
    """The program's options (flags: no type, default or requirement to show)."""
    table = Table(highlight=True, show_header=False, expand=True, box=None, show_lines=False,
                  leading=0, border_style=None, row_styles=None, pad_edge=False,
                  padding=(0, 1))
    for param in group.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        secondary = getattr(param, "secondary_opts", [])
        types = Text(style="bold yellow", overflow="fold")
        help_text = option_help(getattr(param, "help", None) or "")
        table.add_row(
            highlight_options(",".join(name for name in param.opts if "--" in name)),
            highlight_options(",".join(name for name in param.opts if "--" not in name)),
            highlight_negatives(",".join(name for name in secondary if "--" in name)),
            highlight_negatives(",".join(name for name in secondary if "--" not in name)),
            highlight_types(types),
            Columns([prose(help_text)] if help_text else []),
        )
    return table


def commands_table() -> Table:
    table = Table(highlight=False, show_header=False, expand=True, box=None, show_lines=False,
                  leading=0, border_style=None, row_styles=None, pad_edge=False,
                  padding=(0, 1))
    table.add_column(style="bold cyan", no_wrap=True, width=max(map(len, COMMANDS)))
    table.add_column("Description", justify="left", no_wrap=False, ratio=10)
    for name, listed in COMMANDS.items():
        table.add_row(Text(name), prose(listed.summary))
    return table


def print_front_page(group: TyperGroup, ctx: Context) -> None:
    """Print the help page of ``group`` (the program), listing every command."""
    console = help_console()
    console.print(Padding(highlight_options(group.get_usage(ctx)), 1), style="bold")
    if group.help:
        console.print(Padding(Align(prose(first_paragraph(group.help)), pad=False),
                              (0, 1, 1, 1)))
    console.print(Panel(options_table(group, ctx), border_style="dim", title="Options",
                        title_align="left"))
    console.print(Panel(commands_table(), border_style="dim", title="Commands",
                        title_align="left"))
