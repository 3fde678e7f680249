"""The ``feltlab`` command line, built by Typer (the quick commands' usual forms run
without it: :mod:`feltlab.cli.quick`).

Every command keeps the same promises: a refusal is one ``error:`` line on standard
error with exit status 2 (usage errors add where to find help); an unexpected failure is
one line saying where its details were written, with exit status
:data:`INTERNAL_ERROR` (``feltlab --debug ...`` shows the traceback instead).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Final

import typer
from typer._click.core import Context  # click, vendored
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typer.exceptions import Abort

from feltlab.cli.commands import COMMANDS
from feltlab.cli.terminal import leave, one_line
from feltlab.core.cards import CARD_FORMAT
from feltlab.core.paths import user_cache_dir

INTERNAL_ERROR: Final = 70
"""Exit status of an unexpected failure (a bug), apart from refusals (2)."""


def report_crash(error: BaseException, argv: Sequence[str]) -> str:
    """Write the command and the traceback to a file; return one line saying where."""
    text = "".join(traceback.format_exception(error))
    kind = type(error).__name__
    try:
        folder = user_cache_dir() / "errors"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
        path.write_text(f"feltlab {' '.join(argv)}\n\n{text}", "utf-8")
        where = f"details in {path}"
    except OSError:
        where = "the details could not be written"
    return (f"error: unexpected {kind}: {' '.join(str(error).split())[:200]} ({where}; "
            "run again with --debug to see the traceback)")


def repeated_option(command: Any, args: Sequence[str]) -> str | None:
    """The first option of ``command`` given more than once in ``args``, if any (Click
    would silently keep the last)."""
    seen: set[str] = set()
    for arg in args:
        if arg == "--":
            break
        name = arg.split("=", 1)[0]
        for param in command.params:
            if isinstance(param, TyperOption) and not param.multiple and name in (
                    *param.opts, *param.secondary_opts):
                if param.name in seen:
                    return name
                seen.add(str(param.name))
    return None


class OneLineErrors(TyperGroup):
    """Report a bad option or argument in one ``error:`` line with exit status 2 (the
    rule every feltlab command keeps), instead of a multi-line usage box; refuse an
    option given twice; turn an unexpected exception into one line and a report file;
    list every command in the help, whichever were built (:mod:`feltlab.cli.front_page`)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        standalone_mode = kwargs.get("standalone_mode", True)
        kwargs["standalone_mode"] = False
        kwargs["prog_name"] = "feltlab"  # also under python -m feltlab and test runners
        try:
            result = super().main(*args, **kwargs)
        except NoArgsIsHelpError as error:
            typer.echo(error.ctx.get_help() if error.ctx else "")
            result = 2
        except UsageError as error:
            path = error.ctx.command_path if error.ctx else "feltlab"
            typer.echo(f"error: {one_line(error.format_message())} (see '{path} --help')",
                       err=True)
            result = 2
        except ClickException as error:
            typer.echo(f"error: {one_line(error.format_message())}", err=True)
            result = 2
        except (Abort, KeyboardInterrupt):
            typer.echo("Aborted.", err=True)
            result = 130
        except Exception as error:
            if _debug:
                raise
            argv = kwargs.get("args", args[0] if args else None)
            typer.echo(report_crash(error, sys.argv[1:] if argv is None else argv), err=True)
            result = INTERNAL_ERROR
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else 0)

    def format_help(self, ctx: Context, formatter: Any) -> None:
        from feltlab.cli.front_page import print_front_page

        print_front_page(self, ctx)

    def resolve_command(self, ctx: Context, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        repeated = command and repeated_option(command, rest)
        if repeated:
            path = f"{ctx.command_path} {name}"
            raise ClickException(f"option {repeated} is given more than once "
                                 f"(see '{path} --help')")
        return name, command, rest


def _conventional_help() -> None:
    """Typer 0.29 writes flags as ``--json <bool>`` and a required argument as ``{rules}``
    in help and ``'rules'`` in a missing-argument error; show flags bare and arguments in
    capitals everywhere, as Click always has, and let later help paragraphs flow."""
    option_type = TyperOption.display_type_rich

    def flag_without_type(self: TyperOption, ctx: Context) -> str | None:
        return None if self.is_flag else option_type(self, ctx)

    def argument_in_capitals(self: TyperArgument) -> str:
        name = self.display_name_raw.upper()
        name = name if self.required else f"[{name}]"
        return name + ("..." if self.nargs != 1 else "")

    def error_hint_in_capitals(self: TyperArgument) -> str:
        return f"'{self.display_name_raw.upper()}'"

    TyperOption.display_type_rich = flag_without_type  # type: ignore[method-assign]
    TyperArgument._usage_display_name = argument_in_capitals  # type: ignore[method-assign]
    TyperArgument.get_error_hint = error_hint_in_capitals  # type: ignore[method-assign,assignment]
    for command_class in (TyperCommand, TyperGroup):
        _flow_paragraphs_in_help(command_class)


def _flow_paragraphs_in_help(command_class: type[TyperCommand] | type[TyperGroup]) -> None:
    """Patch Typer's help renderer when help is first shown: importing it (with Rich's
    Markdown) costs every command a tenth of a second of start-up."""
    format_help = command_class.format_help

    def flowing_format_help(self: Any, ctx: Context, formatter: Any) -> None:
        _flowing_rich_help()
        format_help(self, ctx, formatter)

    command_class.format_help = flowing_format_help  # type: ignore[method-assign]


@functools.cache
def _flowing_rich_help() -> None:
    """Let later help paragraphs flow, and each command's summary in a list of commands
    (its first paragraph) be one flowing line: Typer 0.29 keeps their line breaks."""
    import typer.rich_utils as rich_utils

    rich_utils._fix_linebreaks = _joined_paragraphs
    make_command_help = rich_utils._make_command_help

    def flowing_summary(*, help_text: str, markup_mode: Any) -> Any:
        summary = inspect.cleandoc(help_text).split("\n\n")[0]
        return make_command_help(help_text=" ".join(summary.split()), markup_mode=markup_mode)

    rich_utils._make_command_help = flowing_summary


def _joined_paragraphs(paragraphs: list[str], markup_mode: object = None) -> str:
    r"""A docstring's later paragraphs as flowing text: Typer 0.29 keeps their single line
    breaks, so help wrapped to the terminal breaks mid-sentence as well. A line that starts
    a list item or is indented keeps its break.

    >>> _joined_paragraphs(["An\narray is read.", "- one\n- two"])
    'An array is read.\n\n- one\n- two'
    """
    joined = []
    for paragraph in paragraphs:
        lines = paragraph.split("\n")
        text = lines[0]
        for line in lines[1:]:
            keeps_break = line.startswith((" ", "-", "*", "\b")) or paragraph.startswith("\b")
            text += ("\n" if keeps_break else " ") + line
        joined.append(text)
    return "\n\n".join(joined)


_conventional_help()
_debug = bool(os.environ.get("FELTLAB_DEBUG"))


def _print_version(wanted: bool) -> None:
    if wanted:
        from importlib.metadata import version

        typer.echo(f"feltlab {version('feltlab')}")
        raise typer.Exit()


def main_options(
    debug: Annotated[bool, typer.Option(
        "--debug", help="Show the traceback of an unexpected failure.")] = False,
    no_cache: Annotated[bool, typer.Option(
        "--no-cache", help="Compute strategies and tables from scratch: neither read nor "
                           "write the derived-data cache (same as FELTLAB_NO_CACHE=1).")] = False,
    _version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_print_version,
        help="Print the installed version of feltlab and exit.")] = False,
) -> None:
    global _debug
    _debug = _debug or debug
    if no_cache:
        from feltlab.core import cache  # NumPy: only a command that computes needs it

        cache.switch_off()


def build_app(commands: Iterable[str] = COMMANDS) -> typer.Typer:
    """The command line with ``commands`` (by default every one): only their modules are
    imported and built, so running one command does not import and build all the others,
    and an unknown one, ``--version`` or the help need none."""
    built = typer.Typer(
        cls=OneLineErrors,
        help="feltlab: rules engine, exact math, simulator and tables for flush-family casino "
             f"table games. Cards: {CARD_FORMAT}.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    built.callback()(main_options)
    chosen = {COMMANDS[name].module for name in commands if name in COMMANDS}
    for module in dict.fromkeys(listed.module for listed in COMMANDS.values()):
        if module in chosen:
            importlib.import_module(module).register(built)
    return built


def command_named(argv: Sequence[str]) -> str | None:
    """The command an argument list runs: its first word that is not an option (every
    option before the command is a flag), if any.

    >>> command_named(["--debug", "simulate", "high-card-flush"]), command_named(["--help"])
    ('simulate', None)
    """
    return next((arg for arg in argv if not arg.startswith("-")), None)


_full_app: typer.Typer | None = None


def __getattr__(name: str) -> typer.Typer:
    """``feltlab.cli.app``: the whole command line, built when first asked for."""
    global _full_app
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _full_app is None:
        _full_app = build_app()
    return _full_app


def main() -> None:
    """The ``feltlab`` program: run the command, then :func:`~feltlab.cli.terminal.leave`."""
    try:
        named = command_named(sys.argv[1:])
        build_app(() if named is None else (named,))()
    except SystemExit as done:
        status = done.code
    else:
        status = 0
    if status is not None and not isinstance(status, int):
        raise SystemExit(status)  # a message: let Python print it
    leave(status or 0)


if __name__ == "__main__":
    main()
