"""The money pipeline's shape holds: one module writes the ledger (its entries and the
wallets' balances), one module builds loaded rounds, no service takes or returns an
untyped row, and a money request reads top to bottom (nothing handed down to be called
back)."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import feltlab
from feltlab.server.services import money_frame, play

SOURCE = Path(feltlab.__file__).parent
SERVER = SOURCE / "server"
LEDGER_TABLES = re.compile(r"Wallet|_WALLETS|LedgerEntry|_ENTRIES|LedgerTransaction|"
                           r"_TRANSACTIONS")
LEDGER_SQL = re.compile(r"\b(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+\"?(wallets|ledger_entries|"
                        r"ledger_transactions)\b", re.IGNORECASE)


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SERVER.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        if "/migrations/" not in relative:
            yield relative, ast.parse(path.read_text("utf-8"))


def ledger_writes(tree: ast.Module) -> list[str]:
    """Where ``tree`` writes a wallet or a ledger row: an ``insert``, ``update`` or
    ``delete`` of one of their tables, a wallet made as an object, or SQL text that
    writes one."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = ast.unparse(node.func).rsplit(".", 1)[-1]
            target = ast.unparse(node.args[0]) if node.args else ""
            if name in ("insert", "update", "delete") and LEDGER_TABLES.search(target):
                found.append(f"line {node.lineno}: {name}({target})")
            if name in ("Wallet", "LedgerEntry", "LedgerTransaction"):
                found.append(f"line {node.lineno}: {name}(...)")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and LEDGER_SQL.search(node.value):
            found.append(f"line {node.lineno}: SQL {node.value[:40]!r}")
    return found


def test_the_ledger_scan_finds_writes() -> None:
    tree = ast.parse("_WALLETS = table_of(Wallet)\nupdate(_WALLETS)\nsession.add(Wallet())\n"
                     "text('UPDATE wallets SET balance = 0')\ninsert(table_of(LedgerEntry))")
    assert len(ledger_writes(tree)) == 4


def test_exactly_one_module_writes_the_ledger() -> None:
    writers = {module: found for module, tree in _modules() if (found := ledger_writes(tree))}
    assert set(writers) == {"server/services/ledger.py"}, writers


def test_exactly_one_module_builds_loaded_rounds() -> None:
    builders = {module for module, tree in _modules() for node in ast.walk(tree)
                if isinstance(node, ast.Call) and ast.unparse(node.func).endswith("LoadedRound")}
    assert builders == {"server/services/round_store.py"}


UNTYPED = re.compile(r"^(Any|Row|Row\[.*\]|RowMapping)$")


def test_no_service_takes_or_returns_an_untyped_row() -> None:
    """No function of the server's services has a parameter for a row (or the values of
    one) typed ``Any`` or as an untyped ``Row``, nor returns one."""
    found = []
    for module, tree in _modules():
        if not module.startswith("server/services/"):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for argument in node.args.args + node.args.kwonlyargs:
                annotation = ast.unparse(argument.annotation) if argument.annotation else ""
                if re.search(r"row|values", argument.arg) and UNTYPED.match(annotation):
                    found.append(f"{module}:{node.lineno} {node.name}({argument.arg}: "
                                 f"{annotation})")
            returned = ast.unparse(node.returns) if node.returns else ""
            if re.search(r"row", node.name) and UNTYPED.match(returned):
                found.append(f"{module}:{node.lineno} {node.name} -> {returned}")
    assert not found, found


def test_a_money_request_reads_top_to_bottom() -> None:
    """The pipeline's requests define no function inside them (no closure handed down to
    be called back), and no service hands a write a callback (``then=``)."""
    for step in (play.bet, play.decide, play.run_timer):
        tree = ast.parse(inspect.getsource(step).strip())
        nested = [node for node in ast.walk(tree.body[0])
                  if isinstance(node, ast.FunctionDef | ast.Lambda) and node is not tree.body[0]]
        assert not nested, step.__name__
    callbacks = [(module, node.lineno) for module, tree in _modules()
                 if module.startswith("server/services/") for node in ast.walk(tree)
                 if isinstance(node, ast.keyword) and node.arg == "then"]
    assert not callbacks, callbacks


def test_the_first_read_names_the_caller_as_its_typed_row_does() -> None:
    """A first read's row starts with the caller's columns, read by position into
    :class:`money_frame.CallerRow`."""
    assert money_frame.CallerRow._fields == tuple(
        column.key for column in money_frame.CALLER_COLUMNS)
