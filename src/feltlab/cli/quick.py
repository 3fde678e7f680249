"""The quick commands' usual forms, run without Typer: ``rules``, ``rules ID``, ``payout
--rules ID ...``, ``payout`` with JSON on standard input and ``verify ROUND.json``.

Typer checks every parameter through pydantic, which with Typer itself is most of what
these commands would cost (issue 35: within 1.5 times of a process importing Typer, Rich
and pydantic). So :func:`quick_status` recognises the forms a user types, with built-in
rule sets, and runs them with the same functions the Typer commands call; anything else
(help, another option, a file or published rule set, a value Typer would refuse, and
any refusal at all) is left to the full command line, which answers in its own words.
``tests/cli/test_quick_path.py`` holds the two ways to the same output.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from rich.console import RenderableType

Printer = Callable[[], int]
"""What a recognised form does once its work is done: print, and answer the exit status."""

_VALUES: Final = {"--rules": "rules", "--wagers": "wagers", "--player": "player",
                  "--dealer": "dealer", "--raise": "raise", "--colour": "colour",
                  "--community": "community", "--streets": "streets"}
"""The payout's options that take a value, and the parameter each sets."""
_FLAGS: Final = {"--play": True, "--fold": False}
_HAND_OPTIONS: Final = ("player", "dealer", "raise", "colour", "community", "play", "streets")
_WHOLE: Final = re.compile(r"[0-9]{1,18}")


def settled_hand(rules: str, wagers: str | None, options: Mapping[str, object]) -> str:
    """``feltlab payout --rules ...``: one hand settled, as indented JSON (``options``:
    the payout's other options, ``None`` where not given; ``streets`` as typed)."""
    from feltlab.core.payout import settle_document
    from feltlab.core.settle import parse_wagers

    document: dict[str, object] = {"rules": rules, "wagers": parse_wagers(wagers or "")}
    document.update({name: _parse_streets(value) if name == "streets" else value
                     for name, value in options.items() if value is not None})
    return json.dumps(settle_document(document), indent=2)


def _parse_streets(text: object) -> list[int]:
    try:
        return [int(part) for part in str(text).split(",") if part.strip()]
    except ValueError:
        raise ValueError(f"--streets: {text!r} is not a list of whole amounts such as 5,5,10"
                         ) from None


def _rules(args: Sequence[str]) -> Printer | None:
    from feltlab.cli.rulescard import rule_sets_table, rules_card
    from feltlab.core.rules import builtin_ids, load_rules

    if not args:
        return _shown(rule_sets_table())
    if len(args) == 1 and args[0] in builtin_ids():
        return _shown(rules_card(load_rules(args[0])))
    return None


def _shown(renderable: RenderableType) -> Printer:
    def show() -> int:
        from feltlab.cli.terminal import output_console

        output_console().print(renderable)
        return 0

    return show


def _text(text: str) -> Printer:
    def show() -> int:
        print(text)
        return 0

    return show


def _payout(args: Sequence[str]) -> Printer | None:
    if not args:
        return _settled_stream() if _stream_is_quick() else None
    given = _payout_options(args)
    if given is None or "rules" not in given:
        return None
    from feltlab.core.rules import builtin_ids

    rules = str(given.pop("rules"))
    if rules not in builtin_ids():
        return None
    wagers = given.pop("wagers", None)
    if "raise" in given:
        given["raise"] = int(str(given["raise"]))
    options = {name: given.get(name) for name in _HAND_OPTIONS}
    return _text(settled_hand(rules, None if wagers is None else str(wagers), options))


def _stream_is_quick() -> bool:
    """Hands on standard input, and no database to find a published rule set in (the
    Typer command opens it when a hand names one)."""
    return not sys.stdin.isatty() and not os.environ.get("FELTLAB_DATABASE_URL")


def _settled_stream() -> Printer:
    def settle() -> int:
        from feltlab.cli.terminal import refusal
        from feltlab.core.payout import settle_stream
        from feltlab.core.rules import RulesError

        try:
            settle_stream(sys.stdin, sys.stdout)
        except (ValueError, RulesError) as error:
            print(refusal(str(error)), file=sys.stderr)
            return 2
        return 0

    return settle


def _payout_options(args: Sequence[str]) -> dict[str, object] | None:
    """The payout's options as typed, or ``None`` for anything but each option once,
    written ``--name value`` or ``--name=value``, with a plain value."""
    given: dict[str, object] = {}
    words = iter(args)
    for word in words:
        name, equals, value = word.partition("=")
        if name in _FLAGS and not equals and "play" not in given:
            given["play"] = _FLAGS[name]
            continue
        parameter = _VALUES.get(name)
        if parameter is None or parameter in given:
            return None
        if not equals:
            value = next(words, "-")
        if value.startswith("-") or (parameter == "raise" and not _WHOLE.fullmatch(value)):
            return None
        given[parameter] = value
    return given


def _verify(args: Sequence[str]) -> Printer | None:
    if len(args) != 1 or args[0].startswith("-"):
        return None
    from feltlab.core.jsonio import loads
    from feltlab.server.verify import verify_round

    summary = verify_round(loads(Path(args[0]).read_text("utf-8")))
    return _text(json.dumps(summary, indent=2))


_FORMS: Final[dict[str, Callable[[Sequence[str]], Printer | None]]] = {
    "rules": _rules, "payout": _payout, "verify": _verify}


def quick_status(argv: Sequence[str]) -> int | None:
    """Run ``argv`` if it is a usual form of a quick command, printing its output; its
    exit status, or ``None`` to leave it to the full command line (which then does the
    work again, and refuses in its own words what is wrong)."""
    form = _FORMS.get(argv[0]) if argv else None
    if form is None:
        return None
    try:
        printer = form(argv[1:])
    except Exception:  # every refusal is the full command line's to word
        return None
    if printer is None:
        return None
    try:
        return printer()
    except KeyboardInterrupt:
        print("Aborted.", file=sys.stderr)
        return 130
    except Exception as error:  # a bug: reported as the full command line reports one
        from feltlab.cli.program import INTERNAL_ERROR, report_crash

        if os.environ.get("FELTLAB_DEBUG"):
            raise
        print(report_crash(error, argv), file=sys.stderr)
        return INTERNAL_ERROR
