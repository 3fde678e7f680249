"""Every answer a test's client receives from API v1 is checked against the response
model its route declares: in production the money routes and the reads send JSON encoded
once (orjson) without building a pydantic object, so the tests hold each body to its
model, strictly (a key the model does not describe, or a value of another type, fails)."""

from __future__ import annotations

from functools import cache
from typing import Any

import httpx
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import TypeAdapter
from starlette.routing import Match


def _routes(app: FastAPI) -> list[APIRoute]:
    try:
        from fastapi.routing import iter_route_contexts
    except ImportError:  # a FastAPI that copies included routes into the app
        return [route for route in app.routes if isinstance(route, APIRoute)]
    return [context.original_route for context in iter_route_contexts(app.routes)
            if isinstance(context.original_route, APIRoute)]


@cache
def _adapter(model: Any) -> TypeAdapter[Any]:
    return TypeAdapter(model)


def route_of(app: FastAPI, method: str, path: str) -> APIRoute | None:
    """The API route that answers ``method`` ``path``, if any."""
    scope = {"type": "http", "method": method, "path": path, "root_path": ""}
    for route in _routes(app):
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return route
    return None


def check_answer(app: FastAPI, response: httpx.Response) -> None:
    """Hold a successful JSON answer of API v1 to its route's response model."""
    request = response.request
    if not (200 <= response.status_code < 300 and request.url.path.startswith("/api/v1")
            and response.headers.get("content-type", "").startswith("application/json")):
        return
    route = route_of(app, request.method, request.url.path)
    if route is None or route.response_model is None:
        return
    try:
        _adapter(route.response_model).validate_python(response.json(), strict=True)
    except Exception as error:
        raise AssertionError(f"{request.method} {request.url.path} answered what its "
                             f"model does not describe: {error}") from None


class CheckingClient(TestClient):
    """A test client that checks every answer (see the module's text)."""

    def request(self, method: str, url: httpx.URL | str, **kwargs: Any) -> httpx.Response:  # type: ignore[override]
        response = super().request(method, url, **kwargs)
        assert isinstance(self.app, FastAPI)
        check_answer(self.app, response)
        return response
