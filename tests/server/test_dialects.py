"""Every difference between SQLite and PostgreSQL lives in the statements layer
(:mod:`feltlab.server.services.statements`): no other module of the server mentions a
dialect or imports ``sqlalchemy.dialects``; the services above it ask it instead."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import feltlab.server

SERVER = Path(feltlab.server.__file__).parent
OWNER = "services/statements/"
"""The statements layer's package (relative to ``feltlab/server``): its modules may
mention a dialect."""
ALLOWED: set[str] = set()
"""Other modules that may mention a dialect (none)."""
SKIPPED = ("migrations/",)
"""Folders left out: Alembic's migrations are written for each database."""
MENTION = re.compile(r"\bdialects?\b")  # not ``Prepared.per_dialect``, which asks the layer


def _modules() -> list[tuple[str, Path]]:
    found = [(path.relative_to(SERVER).as_posix(), path) for path in SERVER.rglob("*.py")]
    return sorted((name, path) for name, path in found if not name.startswith(SKIPPED))


def _imports_dialects(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        if any(name == "sqlalchemy.dialects" or name.startswith("sqlalchemy.dialects.")
               for name in names):
            return True
    return False


def test_only_the_statements_layer_mentions_a_dialect() -> None:
    modules = _modules()
    assert any(name.startswith(OWNER) for name, _ in modules)  # the scan finds the layer
    offending = []
    for name, path in modules:
        if name.startswith(OWNER) or name in ALLOWED:
            continue
        text = path.read_text(encoding="utf-8")
        lines = [number for number, line in enumerate(text.splitlines(), 1)
                 if MENTION.search(line)]
        if lines:
            offending.append(f"{name} mentions a dialect at line(s) {lines}")
        if _imports_dialects(ast.parse(text, filename=str(path))):
            offending.append(f"{name} imports sqlalchemy.dialects")
    assert not offending, ("what differs between SQLite and PostgreSQL belongs in "
                           f"{OWNER}:\n" + "\n".join(offending))


def test_the_allowed_modules_exist() -> None:
    """An allowance outlives no module (ledger.py's goes once its statements move)."""
    names = {name for name, _ in _modules()}
    assert not ALLOWED - names, "an allowed module is gone: drop it from ALLOWED"


def test_the_check_catches_a_mention_and_an_import() -> None:
    assert MENTION.search('if engine.dialect.name == "postgresql":')
    assert not MENTION.search("Prepared.per_dialect(sqlite=None, postgresql=query)")
    assert _imports_dialects(ast.parse("from sqlalchemy.dialects import postgresql"))
    assert _imports_dialects(ast.parse("import sqlalchemy.dialects.sqlite"))
    assert _imports_dialects(ast.parse("from sqlalchemy import dialects"))
    assert not _imports_dialects(ast.parse("from sqlalchemy import select"))
