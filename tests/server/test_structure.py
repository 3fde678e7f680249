"""The server's structure holds: every API v1 route declares a response model (and the
OpenAPI document has its schema), the models describe what the routes really answer, SQL
is built and run only in the server's services and migrations, and refusals are domain
errors that know nothing of HTTP, answered in one place."""

from __future__ import annotations

import ast
import inspect
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute, APIWebSocketRoute
from fastapi.testclient import TestClient
from pydantic import BaseModel, TypeAdapter

import feltlab
from feltlab.app import create_app
from feltlab.server import errors, handlers
from feltlab.server.api import operator_responses, page_responses, responses
from server.conftest import settings_for, sign_up
from server.test_shared import make_admin
from shipped import own_ids

SOURCE = Path(feltlab.__file__).parent
SQL_HOMES = ("server/services/", "server/migrations/")
"""The only folders whose modules may build or run SQL."""
HTTP_FACES = ("app.py", "cli/", "web/", "server/api/", "server/app.py", "server/handlers.py",
              "server/middleware.py")
"""The modules that speak HTTP; every other module is domain code."""


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    folder = tmp_path_factory.mktemp("structure")
    app = create_app(settings_for(f"sqlite:///{folder / 'server.sqlite3'}"), timers=False)
    with TestClient(app) as client:
        yield client
    app.state.services.engine.dispose()


def routes_of(client: TestClient) -> list[tuple[str, Any]]:
    """Every route of the application with its full path (FastAPI includes a router's
    routes lazily, behind a route of its own)."""
    routes = client.app.routes  # type: ignore[attr-defined]
    try:
        from fastapi.routing import iter_route_contexts
    except ImportError:  # a FastAPI that copies included routes into the app
        return [(route.path, route) for route in routes]
    return [(context.path, context.original_route) for context in iter_route_contexts(routes)]


def api_routes(client: TestClient) -> list[tuple[str, APIRoute]]:
    return [(path, route) for path, route in routes_of(client)
            if isinstance(route, APIRoute) and path.startswith("/api/v1")]


def described(model: Any) -> bool:
    """A response model of :mod:`feltlab.server.api.responses` (or of the pages', or the
    operators' admin's), or a list of one (not a bare ``dict``, which FastAPI would infer
    from a return annotation)."""
    if typing.get_origin(model) is list:
        (model,) = typing.get_args(model)
    return (inspect.isclass(model) and issubclass(model, BaseModel)
            and model.__module__ in (responses.__name__, page_responses.__name__,
                                     operator_responses.__name__))


# --- response models -----------------------------------------------------------------------

def test_every_api_route_declares_a_response_model(app_client: TestClient) -> None:
    routes = api_routes(app_client)
    assert len(routes) >= 30
    missing = [f"{sorted(route.methods)} {path}" for path, route in routes
               if not described(route.response_model)]
    assert missing == []
    websockets = [path for path, route in routes_of(app_client)
                  if isinstance(route, APIWebSocketRoute)]
    assert websockets == ["/api/v1/tables/{table_id}/live"]


def test_openapi_has_a_response_schema_for_every_api_route(app_client: TestClient) -> None:
    document = app_client.get("/openapi.json").json()
    operations = [(path, method, operation)
                  for path, methods in document["paths"].items() if path.startswith("/api/v1")
                  for method, operation in methods.items()]
    assert len(operations) == len([method for _, route in api_routes(app_client)
                                   for method in route.methods])
    for path, method, operation in operations:
        success = [code for code in operation["responses"] if code.startswith("2")]
        assert len(success) == 1, (method, path)
        schema = operation["responses"][success[0]]["content"]["application/json"]["schema"]
        target = schema.get("items", schema)
        assert "$ref" in target, (method, path, schema)
        name = target["$ref"].rsplit("/", 1)[1]
        assert document["components"]["schemas"][name]["properties"], (method, path)


def model_of(client: TestClient, method: str, path: str) -> Any:
    for route_path, route in api_routes(client):
        if route_path == path and method in route.methods:
            return route.response_model
    raise AssertionError(f"no route {method} {path}")


def check(client: TestClient, method: str, template: str, answer: Any) -> Any:
    """Validate an answer against its route's model, strictly: a key the model does not
    describe, or a value of another type, fails."""
    assert answer.status_code in (200, 201), answer.text
    body = answer.json()
    TypeAdapter(model_of(client, method, template)).validate_python(body, strict=True)
    return body


def test_the_models_describe_what_the_routes_answer(app_client: TestClient) -> None:
    """Rounds of every rule set at private and shared tables, read every way: the money
    routes and the table and round reads answer pre-encoded JSON that no model validates
    in production, so here each answer is checked against its model."""
    client = app_client
    headers = sign_up(client)
    for rules_id in own_ids():
        table = check(client, "POST", "/api/v1/tables", client.post(
            "/api/v1/tables", json={"rules": rules_id}, headers=headers))["id"]
        check(client, "GET", "/api/v1/tables/{table_id}",
              client.get(f"/api/v1/tables/{table}", headers=headers))
        card = client.get(f"/api/v1/rulecards/{rules_id}", headers=headers).json()
        body: dict[str, Any] = {"wagers": {wager["name"]: wager["min"]
                                           for wager in card["wagers"]}}
        if card["colours"]:
            body["colour"] = card["colours"][0]
        view = check(client, "POST", "/api/v1/tables/{table_id}/rounds", client.post(
            f"/api/v1/tables/{table}/rounds", json=body, headers=headers))
        while view["phase"] != "complete":
            check(client, "GET", "/api/v1/tables/{table_id}",
                  client.get(f"/api/v1/tables/{table}", headers=headers))
            check(client, "GET", "/api/v1/rounds/{round_id}",
                  client.get(f"/api/v1/rounds/{view['id']}", headers=headers))
            view = check(client, "POST", "/api/v1/rounds/{round_id}/actions", client.post(
                f"/api/v1/rounds/{view['id']}/actions", json=view["options"][-1],
                headers=headers))
        check(client, "GET", "/api/v1/rounds/{round_id}",
              client.get(f"/api/v1/rounds/{view['id']}", headers=headers))
        check(client, "GET", "/api/v1/tables/{table_id}",
              client.get(f"/api/v1/tables/{table}", headers=headers))
        check(client, "POST", "/api/v1/display", client.post("/api/v1/display", json={
            "rules": rules_id, "cards": view["cards"], "round": view}, headers=headers))
    admin = make_admin(client)
    shared = check(client, "POST", "/api/v1/admin/tables", client.post(
        "/api/v1/admin/tables", json={"rules": "high-card-flush"}, headers=admin))["id"]
    players = [sign_up(client) for _ in range(2)]
    for seat, player in enumerate(players, start=1):
        check(client, "POST", "/api/v1/tables/{table_id}/seats", client.post(
            f"/api/v1/tables/{shared}/seats", json={"seat": seat}, headers=player))
    for player in players:
        view = check(client, "POST", "/api/v1/tables/{table_id}/rounds", client.post(
            f"/api/v1/tables/{shared}/rounds", json={"wagers": {"ante": 5}},
            headers={**player, "Idempotency-Key": "bet"}))
    replayed = client.post(f"/api/v1/tables/{shared}/rounds", json={"wagers": {"ante": 5}},
                           headers={**players[-1], "Idempotency-Key": "bet"})
    assert replayed.headers["Idempotent-Replay"] == "true"
    check(client, "POST", "/api/v1/tables/{table_id}/rounds", replayed)
    while view["phase"] != "complete":
        player = players[view["to_act"] - 1]
        mine = check(client, "GET", "/api/v1/rounds/{round_id}",
                     client.get(f"/api/v1/rounds/{view['id']}", headers=player))
        check(client, "GET", "/api/v1/tables/{table_id}",
              client.get(f"/api/v1/tables/{shared}", headers=headers))  # a watcher
        view = check(client, "POST", "/api/v1/rounds/{round_id}/actions", client.post(
            f"/api/v1/rounds/{view['id']}/actions", json=mine["options"][-1], headers=player))
    check(client, "GET", "/api/v1/tables/{table_id}",
          client.get(f"/api/v1/tables/{shared}", headers=players[0]))
    check(client, "POST", "/api/v1/me/practice/reset",
          client.post("/api/v1/me/practice/reset", headers=headers))
    name = client.get("/api/v1/me", headers=players[0]).json()["username"]
    check(client, "POST", "/api/v1/admin/cash", client.post(
        "/api/v1/admin/cash", json={"username": name, "amount": 5}, headers=admin))
    for path in ("/api/v1/me", "/api/v1/me/rounds", "/api/v1/tables",
                 "/api/v1/me/trainer-scores", "/api/v1/rules", "/api/v1/rulecards"):
        check(client, "GET", path, client.get(path, headers=headers))
    check(client, "GET", "/api/v1/rounds/{round_id}/recall",
          client.get(f"/api/v1/rounds/{view['id']}/recall", headers=players[0]))
    check(client, "GET", "/api/v1/admin/audit", client.get("/api/v1/admin/audit",
                                                            headers=admin))


# --- SQL only in the services ------------------------------------------------------------------

STATEMENT_BUILDERS = frozenset({
    "select", "insert", "update", "delete", "text", "func", "bindparam", "and_", "or_",
    "not_", "exists", "literal", "literal_column", "column", "table", "union", "union_all",
    "case", "cast", "tuple_", "values", "join", "outerjoin", "lateral", "null", "true",
    "false",
})
SESSIONS = frozenset({"Session", "sessionmaker", "scoped_session", "Query", "aliased",
                      "selectinload", "joinedload", "Connection"})
RUNS_SQL = frozenset({"execute", "exec_driver_sql", "executemany", "executescript", "scalars",
                      "scalar"})
SESSION_WORK = frozenset({"add", "add_all", "delete", "get", "merge", "flush", "query",
                          "refresh", "commit", "rollback", "begin", "connection"})


def receiver_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return receiver_name(node.func)
    return ""


def sql_in(source: str) -> list[str]:
    """Where ``source`` builds or runs SQL: statement builders or sessions imported from
    SQLAlchemy (or psycopg at all), statements run, a session's or connection's work."""
    found = []
    sqlalchemy_aliases = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("psycopg"):
                    found.append(f"line {node.lineno}: import {alias.name}")
                if alias.name == "sqlalchemy":
                    sqlalchemy_aliases.add(alias.asname or alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module:
            module = node.module
            if module.startswith(("psycopg", "sqlalchemy.dialects", "sqlalchemy.sql")):
                found.append(f"line {node.lineno}: from {module} import ...")
            elif module.startswith("sqlalchemy"):
                names = {alias.name for alias in node.names}
                for name in sorted(names & (STATEMENT_BUILDERS | SESSIONS)):
                    found.append(f"line {node.lineno}: from {module} import {name}")
        elif isinstance(node, ast.Attribute):
            if (isinstance(node.value, ast.Name) and node.value.id in sqlalchemy_aliases
                    and node.attr in STATEMENT_BUILDERS | SESSIONS):
                found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, target = node.func.attr, receiver_name(node.func.value).lower()
            session_like = any(word in target for word in ("session", "connection", "cursor"))
            if method in RUNS_SQL or (method in SESSION_WORK and session_like):
                found.append(f"line {node.lineno}: {target}.{method}(...)")
    return found


def test_the_scan_finds_sql() -> None:
    sample = ("import sqlalchemy as sa\nfrom sqlalchemy import select, text\n"
              "from sqlalchemy.orm import Session\nrows = session.execute(select(User))\n"
              "session.add(user)\nself.session.get(User, 1)\nsa.update(User)\n"
              "connection.exec_driver_sql('SELECT 1')\ncursor.execute('PRAGMA x')\n"
              "seen.add(1)\nhandle.flush()\nvalues.get('x')\n")
    assert len(sql_in(sample)) == 9


def python_files() -> Iterator[tuple[str, Path]]:
    for path in sorted(SOURCE.rglob("*.py")):
        yield path.relative_to(SOURCE).as_posix(), path


def test_no_sql_outside_the_services_and_migrations() -> None:
    found = {name: sql_in(path.read_text("utf-8")) for name, path in python_files()
             if not name.startswith(SQL_HOMES)}
    assert {name: lines for name, lines in found.items() if lines} == {}


# --- refusals: domain errors, answered in one place ------------------------------------------

def http_in(source: str) -> list[str]:
    """Where ``source`` speaks HTTP: FastAPI or Starlette imported, an exception raised
    with a status code, anything named HTTP raised."""
    found = []
    for node in ast.walk(ast.parse(source)):
        modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                   else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        found += [f"line {node.lineno}: imports {module}" for module in modules
                  if module.split(".")[0] in ("fastapi", "starlette")]
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            name = receiver_name(node.exc.func)
            status = [arg.value for arg in node.exc.args if isinstance(arg, ast.Constant)
                      and isinstance(arg.value, int) and 100 <= arg.value <= 599]
            if status or "http" in name.lower():
                found.append(f"line {node.lineno}: raise {name}({status})")
    return found


def test_domain_modules_do_not_speak_http() -> None:
    assert len(http_in("from fastapi import HTTPException\nraise ApiError(404, 'x')\n")) == 2
    found = {name: http_in(path.read_text("utf-8")) for name, path in python_files()
             if not name.startswith(HTTP_FACES)}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_every_kind_of_refusal_has_one_status() -> None:
    kinds = [kind for kind in vars(errors).values() if inspect.isclass(kind)
             and issubclass(kind, errors.DomainError) and kind is not errors.DomainError]
    assert len(kinds) >= 7
    assert set(kinds) == set(handlers.STATUS)
    assert all(400 <= status <= 599 for status in handlers.STATUS.values())
    for kind in kinds:
        error = kind("what went wrong")
        assert not hasattr(error, "status") and not hasattr(error, "status_code")
        answer = handlers.answer(error)
        assert answer.status_code == handlers.STATUS[kind]
        assert answer.body == b'{"detail":"what went wrong"}'


def test_server_and_web_do_not_import_each_other() -> None:
    for package, other in (("server/", "feltlab.web"), ("web/", "feltlab.server")):
        for name, path in python_files():
            if not name.startswith(package):
                continue
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                modules = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                           else [node.module or ""] if isinstance(node, ast.ImportFrom)
                           else [])
                assert not [module for module in modules if module.startswith(other)], name


def test_the_application_composes_the_api_and_the_pages(app_client: TestClient,
                                                         sqlite_url: str) -> None:
    """``feltlab.server.app.create_app`` is API v1 alone; ``feltlab.app.create_app`` (what
    ``feltlab serve`` runs) adds the pages beside it."""
    from feltlab.server.app import create_app as create_api

    assert app_client.get("/").status_code == 200
    assert app_client.get("/static/app.css").status_code == 200
    api = create_api(settings_for(sqlite_url), timers=False)
    with TestClient(api) as client:
        assert client.get("/api/v1/rules").status_code == 200
        assert client.get("/").status_code == 404
        assert client.get("/static/app.css").status_code == 404
    api.state.services.engine.dispose()


# --- the environment: read by the settings alone ---------------------------------------------

ENVIRONMENT = frozenset({"environ", "environb", "getenv", "getenvb", "putenv", "unsetenv"})
ENVIRON = frozenset({"environ", "environb"})
MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__",
                      "__delitem__", "__ior__"})
ENVIRONMENT_WRITES = {"__init__.py": ["os.environ['NUMBA_CACHE_DIR']"],
                      "server/settings.py": ["os.environ[WORKER_VARIABLE]"]}
"""The only writes of the environment: Numba's cache folder (which Numba reads from there)
and the settings ``feltlab serve`` hands to uvicorn's workers."""


def environment_in(source: str) -> list[str]:
    """Where ``source`` reads or touches the process's environment: ``os.environ``,
    ``os.getenv``, ``putenv`` and the like, by any name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Name) and node.id in ENVIRONMENT:
            found.append(f"line {node.lineno}: {node.id}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [f"line {node.lineno}: from os import {alias.name}"
                      for alias in node.names if alias.name in ENVIRONMENT | {"*"}]
    return found


def _is_environ(node: ast.expr) -> bool:
    return ((isinstance(node, ast.Attribute) and node.attr in ENVIRON)
            or (isinstance(node, ast.Name) and node.id in ENVIRON))


def _writes_environment(function: ast.expr) -> bool:
    if isinstance(function, ast.Attribute):
        return ((function.attr in MUTATORS and _is_environ(function.value))
                or function.attr in ("putenv", "unsetenv"))
    return isinstance(function, ast.Name) and function.id in ("putenv", "unsetenv")


def environment_writes(source: str) -> list[str]:
    """What ``source`` writes into the environment: an item of ``os.environ`` set or
    deleted, the mapping replaced or changed by a method, ``putenv``/``unsetenv``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        found += [ast.unparse(target) for target in targets if _is_environ(target)
                  or (isinstance(target, ast.Subscript) and _is_environ(target.value))]
        if isinstance(node, ast.Call) and _writes_environment(node.func):
            found.append(ast.unparse(node))
    return found


def test_the_scans_find_the_environment() -> None:
    sample = ("import os\nfrom os import environ, getenv\nos.environ['A'] = '1'\n"
              "environ.update(B='2')\nos.environ |= {'C': '3'}\ndel os.environ['D']\n"
              "os.putenv('E', '5')\nos.environ.setdefault('F', '6')\nx = os.getenv('G')\n"
              "y = os.environ.get('H')\n")
    assert len(environment_writes(sample)) == 6
    assert len(environment_in(sample)) == 10
    assert environment_in("import os\nos.getcwd()\n") == []
    assert environment_writes("x = os.environ.get('A')\nos.environ.copy()\n") == []


def test_only_the_settings_read_the_environment_in_the_server() -> None:
    """:mod:`feltlab.server.settings` is the one module of the server that reads the
    environment; everything else is handed its settings object."""
    found = {name: environment_in(path.read_text("utf-8")) for name, path in python_files()
             if name.startswith("server/") and name != "server/settings.py"}
    assert {name: lines for name, lines in found.items() if lines} == {}
    assert environment_in((SOURCE / "server" / "settings.py").read_text("utf-8"))


def test_nothing_writes_the_environment_but_the_two_allowed_places() -> None:
    """The command line hands settings on as objects (``create_app(settings)``, the
    derived-data cache switched off in process); the environment is written only for
    Numba's cache folder and, through :func:`feltlab.server.settings.hand_to_workers`, for
    uvicorn's workers."""
    found = {name: environment_writes(path.read_text("utf-8"))
             for name, path in python_files()}
    assert {name: lines for name, lines in found.items() if lines} == ENVIRONMENT_WRITES
