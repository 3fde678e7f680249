"""The shape of the code: a game is one folder, registered by entry point; nothing outside
games/ asks which family it holds; no module imports itself round a circle; no module of
games/ is over 450 lines.

The layers themselves (faces above algorithms above games above core) are import-linter's
contract in pyproject.toml, checked by ``lint-imports`` in ``.ci/run``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import grimp

from feltlab.core import registry

SOURCE = Path(__file__).resolve().parents[1] / "src" / "feltlab"
GAMES = SOURCE / "games"
MOST_GAME_MODULE_LINES = 450


def modules_outside_games() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SOURCE.rglob("*.py")):
        if GAMES in path.parents:
            continue
        yield str(path.relative_to(SOURCE)), ast.parse(path.read_text("utf-8"))


def imported_names(tree: ast.Module) -> dict[str, str]:
    """Each name a module binds by an import, with the module path it comes from."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name
    return names


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for other in graph[module]:
            if other not in graph:
                continue
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in on_stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_no_module_imports_itself_round_a_circle() -> None:
    """Imports inside functions count; those only for type checking do not."""
    graph = grimp.build_graph("feltlab", exclude_type_checking_imports=True)
    edges = {module: set(graph.find_modules_directly_imported_by(module))
             for module in graph.modules}
    assert strongly_connected(edges) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ["a", "b", "c"]]


def test_every_family_folder_is_an_installed_entry_point() -> None:
    folders = {path.parent.name for path in GAMES.glob("*/family.py")}
    entries = {entry.name: entry.value  # feltlab's own (a game installed beside it aside)
               for entry in metadata.entry_points(group=registry.ENTRY_POINT_GROUP)
               if entry.value.startswith("feltlab.games.")}
    assert {value.split(".")[2] for value in entries.values()} == folders
    assert len(folders) >= 3
    for game, value in entries.items():
        assert registry.family(game).game == game
        assert value.endswith(".family:family")


def test_nothing_outside_games_tests_a_family_class() -> None:
    """No ``isinstance`` outside games/ names a class from a family's folder, and no
    comparison there names a family's game."""
    games = set(registry.game_names())
    found = []
    for name, tree in modules_outside_games():
        origins = imported_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
                classes = node.args[1]
                for part in classes.elts if isinstance(classes, ast.Tuple) else [classes]:
                    base = part
                    while isinstance(base, ast.Attribute):
                        base = base.value
                    origin = origins.get(getattr(base, "id", ""), "")
                    if origin.startswith("feltlab.games."):
                        found.append(f"{name}:{node.lineno} isinstance on {origin}")
            if isinstance(node, ast.Compare):
                for value in ast.walk(node):
                    if isinstance(value, ast.Constant) and value.value in games:
                        found.append(f"{name}:{node.lineno} compares with {value.value!r}")
    assert found == []


def test_the_family_check_would_catch_a_family_class() -> None:
    tree = ast.parse("from feltlab.games.high_card_flush.rules import FlushRules\n"
                     "isinstance(rules, FlushRules)\n")
    origins = imported_names(tree)
    call = next(node for node in ast.walk(tree) if isinstance(node, ast.Call))
    assert origins[getattr(call.args[1], "id", "")].startswith("feltlab.games.")


def long_modules(folder: Path, most: int) -> dict[str, int]:
    """Each module under ``folder`` of more than ``most`` lines, with its line count."""
    lengths = {path.relative_to(folder).as_posix(): len(path.read_text("utf-8").splitlines())
               for path in sorted(folder.rglob("*.py"))}
    return {name: lines for name, lines in lengths.items() if lines > most}


def test_no_module_of_games_is_over_450_lines() -> None:
    """A family's long module is split by job (the counting, the decisions, the wagers'
    returns, the strategy card, the PAR sheet's assembly), each a module of its own."""
    assert long_modules(GAMES, MOST_GAME_MODULE_LINES) == {}


def test_the_length_check_would_catch_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "family").mkdir()
    (tmp_path / "family" / "long.py").write_text("x = 1\n" * 451, "utf-8")
    (tmp_path / "family" / "short.py").write_text("x = 1\n" * 450, "utf-8")
    (tmp_path / "notes.txt").write_text("x = 1\n" * 900, "utf-8")
    assert long_modules(tmp_path, 450) == {"family/long.py": 451}


def test_the_pages_scripts_name_no_games_fields() -> None:
    """The table, trainer and designer scripts follow the games' data (decision kinds,
    hand views' headlines, the dealer drill's words): none reads a field one game has."""
    static = Path(__file__).resolve().parent.parent / "src" / "feltlab" / "web" / "static"
    names = "streets|all9|raise|play"
    field = re.compile(rf"""\.({names}|nine)\b|\[["']({names})["']\]"""
                       rf"""|["']({names})["']\s*(in|:|===|==)""")
    found = [f"{script.name}:{number}: {line.strip()}"
             for script in sorted(static.glob("*.js"))
             for number, line in enumerate(script.read_text("utf-8").splitlines(), 1)
             if field.search(line)]
    assert not found, "\n".join(found)
