"""API v1's contract for refusals, declared in one place so that ``/openapi.json`` tells
the truth: every refusal is the one error model :class:`ErrorBody` (``{"detail": "one
sentence"}``, as :mod:`feltlab.server.handlers` answers it), and every route declares each
status it can answer.

A route declares the refusals of its own domain with :func:`refusals` (a missing table
404, a seat taken 409, too many logins 429)::

    @router.post("/tables/{table_id}/seats", responses=refusals(404, 409))

and :func:`declare_refusals` makes the application's document add to every operation
what every operation of its kind answers, so that no route can forget them:

- 401 and 503 (the sign-in reads the database) to an operation that needs a signed-in
  caller (it has ``security``: the bearer token of :mod:`feltlab.server.api.deps`); 403
  too when it changes something (the session cookie's CSRF header, a self-exclusion);
- 422 to an operation that takes parameters or a body, and 413 and 422 to every
  ``POST``, ``PUT``, ``PATCH`` and ``DELETE`` (the body limit and the strict JSON reader
  answer them before any route runs).

A router whose every route refuses alike declares it once (the admin router:
``APIRouter(..., responses=refusals(403))``).

An unsupported method is answered 405 with an ``Allow`` header naming the methods the
document declares at that path (:func:`allowed_methods`).
"""

from __future__ import annotations

import re
from typing import Any, Final

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict

Responses = dict[int | str, dict[str, Any]]


class ErrorBody(BaseModel):
    """A refusal: one sentence saying what was wrong. Nothing the request asked for was
    done."""

    model_config = ConfigDict(title="Error", json_schema_extra={
        "examples": [{"detail": "table 7 does not exist or is not yours"}]})

    detail: str


MEANING: Final[dict[int, str]] = {
    400: "The request was refused",
    401: "Not signed in: the bearer token (or session cookie) is missing, unknown, revoked "
         "or idle",
    403: "Signed in but not allowed: an admin's route, a missing or wrong X-CSRF-Token "
         "with the session cookie, or a self-excluded player's stake",
    404: "What the request names does not exist, or is not the caller's",
    409: "The request conflicts with the current state (a balance, a turn, a seat, a limit, "
         "an Idempotency-Key in use); nothing was changed",
    413: "The request body is over 64 KiB",
    422: "The request is not valid: the first problem is named (a field out of bounds, "
         "a value the rules refuse, ambiguous JSON)",
    429: "Too many attempts; try again after the Retry-After header's seconds",
    503: "The database is busy; nothing was changed, try again after Retry-After",
}
"""What each refusal status means, as ``/openapi.json`` describes it."""

RETRY_AFTER: Final = {"Retry-After": {"description": "Seconds to wait before trying again",
                                      "schema": {"type": "integer"}}}
WITH_BODY: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def refusals(*statuses: int) -> Responses:
    """The ``responses=`` of a route that refuses with ``statuses``, each answered with
    :class:`ErrorBody`.

    >>> sorted(refusals(409, 404))
    [404, 409]
    >>> refusals(429)[429]["headers"]["Retry-After"]["schema"]
    {'type': 'integer'}
    """
    declared: Responses = {}
    for status in sorted(set(statuses)):
        declared[status] = {"model": ErrorBody, "description": MEANING[status]}
        if status in (429, 503):
            declared[status]["headers"] = RETRY_AFTER
    return declared


def implied_statuses(method: str, operation: dict[str, Any]) -> set[int]:
    """The refusals an operation of the OpenAPI document answers by its kind (see the
    module's description): signed in (it has ``security``), changing something, with
    parameters or a body.

    >>> sorted(implied_statuses("get", {"security": [{"bearer": []}]}))
    [401, 503]
    >>> sorted(implied_statuses("post", {"requestBody": {}}))
    [413, 422]
    """
    statuses: set[int] = set()
    changes = method.upper() in WITH_BODY
    if operation.get("security"):
        statuses |= {401, 503, 403} if changes else {401, 503}
    if operation.get("parameters") or operation.get("requestBody") or changes:
        statuses.add(422)
    if changes:
        statuses.add(413)
    return statuses


def declare_refusals(app: FastAPI) -> None:
    """Make ``app``'s OpenAPI document declare on every operation the refusals its kind
    implies beside those its route declares, each answered with :class:`ErrorBody` (in
    place of FastAPI's own validation error, which this server never answers)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            complete(generate())
        return app.openapi_schema or generate()

    app.openapi = openapi  # type: ignore[method-assign]


def complete(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with every operation's refusals declared as :class:`ErrorBody`."""
    error = {"$ref": f"#/components/schemas/{ErrorBody.__name__}"}
    for operations in document.get("paths", {}).values():
        for method, operation in operations.items():
            answers = operation.setdefault("responses", {})
            declared = {int(status) for status in answers if str(status).isdigit()}
            for status in sorted(implied_statuses(method, operation) | declared):
                if status < 400:
                    continue
                said = answers.get(str(status), {}).get("description")
                if said in (None, "Validation Error", "Additional Response"):
                    said = MEANING.get(status, "The request was refused")
                answers[str(status)] = {"description": said,
                                        "content": {"application/json": {"schema": error}}}
                if status in (429, 503):
                    answers[str(status)]["headers"] = RETRY_AFTER
            operation["responses"] = dict(sorted(answers.items()))
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas[ErrorBody.__name__] = ErrorBody.model_json_schema()
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    return document


def allowed_methods(document: dict[str, Any], path: str) -> list[str]:
    """The methods ``document`` declares at ``path`` (for a 405's ``Allow``), with HEAD
    beside GET.

    >>> allowed_methods({"paths": {"/t/{n}": {"get": {}, "delete": {}}}}, "/t/3")
    ['DELETE', 'GET', 'HEAD']
    """
    methods: set[str] = set()
    for template, operations in document.get("paths", {}).items():
        pattern = re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, path):
            methods |= {method.upper() for method in operations}
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)
