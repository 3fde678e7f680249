"""What an operator asks feltlab itself, signed with its shared secret
(:mod:`feltlab.server.signatures`): a session for one of its players (the launch), the
end of one, and the wallet calls feltlab made for it (to reconcile with its own wallet's
ledger); and the framed page's trade of its one-time launch code for the session.

A GET signs its path with the query string exactly as sent, a POST its raw body; an
unknown operator is refused with the same 401 as a bad signature (checked all the same,
against a secret nobody has, so the time taken does not tell either). Every answer to a
signed request is signed too, over its raw body with the operator's current secret.
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime
from typing import Annotated, Final, Literal

import orjson
from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import Response

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import services
from feltlab.server.api.operator_responses import (
    Launched,
    OperatorSessionView,
    OperatorTransactions,
)
from feltlab.server.api.schemas import LaunchCodeRequest, LaunchRequest, SessionEndRequest
from feltlab.server.errors import NotFound, Refused, Unauthorized
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import operator_ledger, operator_sessions
from feltlab.server.services.context import Services
from feltlab.server.services.operators import ID_PATTERN, Credentials, credentials
from feltlab.server.signatures import HEADER, SignatureError, message_of, sign, verify

router = APIRouter(prefix="/api/v1/operator", tags=["operator"],
                   route_class=StrictJSONRoute)

_NOBODYS_SECRET: Final = secrets.token_urlsafe(48)
"""What an unknown operator's signature is checked against: nobody has it, and the
refusal is the one a known operator's bad signature gets."""

SignatureHeader = Annotated[str | None, Header(
    alias=HEADER, description="t=<unix seconds>,v1=<hex HMAC-SHA256 under the operator's "
                              "secret of \"<t>.\" + the path and query string as sent>")]


def signed_message(request: Request) -> bytes:
    """What a GET signs: its path and its query string exactly as sent."""
    query = request.scope.get("query_string", b"").decode("latin-1")
    return message_of("GET", request.url.path + (f"?{query}" if query else ""))


def signed_operator(request: Request, signature: SignatureHeader = None) -> Credentials:
    """The credentials of the operator the query names, its signature checked; one 401
    for every way it can fail, a stranger learning nothing from it."""
    return _checked(request, request.query_params.get("operator", ""),
                    signed_message(request), signature, even_disabled=False)


async def signed_body(request: Request, signature: SignatureHeader = None) -> Credentials:
    """The credentials of the operator a POST's JSON body names, its signature over the
    raw body checked (before the body is validated: a stranger learns nothing of it).
    A disabled operator's is checked too: the route refuses it, with 403."""
    raw = await request.body()
    try:
        named = orjson.loads(raw).get("operator", "")
    except (orjson.JSONDecodeError, AttributeError):
        named = ""
    return _checked(request, named if isinstance(named, str) else "", raw, signature,
                    even_disabled=True)


def _checked(request: Request, operator_id: str, message: bytes, signature: str | None,
             even_disabled: bool) -> Credentials:
    found: Services = request.app.state.services
    try:
        if ID_PATTERN.fullmatch(operator_id) is None:
            raise NotFound("not an operator id")
        known = credentials(found.engine, operator_id, even_disabled=even_disabled)
    except (NotFound, Refused):  # unknown or disabled: fail as a bad signature would
        try:
            verify([_NOBODYS_SECRET], signature, message)
            detail = "no secret matches the signature"
        except SignatureError as error:
            detail = str(error)
        raise Unauthorized(detail, challenge=HEADER) from None
    try:
        verify(known.accepted, signature, message)
    except SignatureError as error:
        raise Unauthorized(str(error), challenge=HEADER) from None
    return known


SignedOperator = Annotated[Credentials, Depends(signed_operator)]
SignedBody = Annotated[Credentials, Depends(signed_body)]
ServicesDep = Annotated[Services, Depends(services)]
OperatorId = Annotated[str, Query(pattern=r"^[a-z0-9_-]{1,32}$", min_length=1, max_length=32,
                                  description="The operator's id.")]
From = Annotated[datetime | None, Query(
    alias="from", description="Only calls made at or after this time (ISO 8601; UTC "
                              "unless it names a zone).")]
To = Annotated[datetime | None, Query(
    description="Only calls made before this time (ISO 8601, exclusive).")]
State = Annotated[Literal["pending", "acknowledged", "refused", "rolled_back"] | None,
                  Query(description="Only calls in this state.")]
Limit = Annotated[int, Query(ge=1, le=operator_ledger.MAX_LIMIT,
                             description="At most this many calls.")]
Before = Annotated[int | None, Query(ge=1, le=2**63 - 1, description=(
    "Only calls older than this cursor: the previous page's next_before."))]


@router.get("/transactions", response_model=OperatorTransactions,
            responses={200: {"headers": {HEADER: {
                "description": "feltlab's signature over the raw body, with the operator's "
                               "current secret", "schema": {"type": "string"}}}},
                       **refusals(401, 422, 503)})
def read_transactions(caller: SignedOperator, found: ServicesDep, operator: OperatorId,
                      start: From = None, to: To = None, state: State = None,
                      limit: Limit = operator_ledger.DEFAULT_LIMIT,
                      before: Before = None) -> Response:
    """Every wallet call feltlab made for the operator, newest first, a page at a time
    (``before`` the previous page's ``next_before``); signed by the operator
    (``Feltlab-Signature`` over the path and query string as sent), and answered signed
    by feltlab (over the raw body)."""
    with found.read_connection() as connection:
        page = operator_ledger.operator_transactions(
            connection, caller.operator_id, start=start, end=to, state=state, limit=limit,
            before=before)
    body = json.dumps(page.as_json(), separators=(",", ":")).encode("utf-8")
    return Response(body, media_type="application/json",
                    headers={HEADER: sign(caller.secret, body)})


def signed_json(caller: Credentials, payload: object, status: int = 200) -> Response:
    """An answer to the operator, signed over its raw body with its current secret."""
    body = orjson.dumps(payload)
    return Response(body, status_code=status, media_type="application/json",
                    headers={HEADER: sign(caller.secret, body)})


_SIGNED_ANSWER = {HEADER: {"description": "feltlab's signature over the raw body, with the "
                                          "operator's current secret",
                           "schema": {"type": "string"}}}


@router.post("/sessions", status_code=201, response_model=Launched,
             responses={201: {"headers": _SIGNED_ANSWER}, **refusals(401, 403, 404, 422)})
def launch_session(caller: SignedBody, body: LaunchRequest, found: ServicesDep,
                   request: Request) -> Response:
    """A session for one of the operator's players (signed by the operator over the raw
    body): its bearer token, and the URL of the page that plays it (frame it on one of
    the operator's frame origins). Real mode stakes through the operator's wallet; demo
    mode plays play money and makes no wallet call."""
    if body.operator != caller.operator_id:  # the signature was checked for this one
        raise Unauthorized("no secret matches the signature", challenge=HEADER)
    launched = operator_sessions.launch(found, body.operator, body.player, body.currency,
                                        body.rules, body.mode, body.lobby_url,
                                        str(request.base_url))
    return signed_json(caller, launched.as_json(), 201)


@router.post("/sessions/{session}/end", response_model=OperatorSessionView,
             responses={200: {"headers": _SIGNED_ANSWER}, **refusals(401, 404, 422)})
def end_session(session: Annotated[str, PathParam(max_length=100)], caller: SignedBody,
                body: SessionEndRequest, found: ServicesDep) -> Response:
    """End one of the operator's sessions (signed over the raw body): its token is
    refused from now on and its live updates close (within a second). Ending it again
    changes nothing."""
    if body.operator != caller.operator_id:
        raise Unauthorized("no secret matches the signature", challenge=HEADER)
    ended = operator_sessions.end_session(found, body.operator, session)
    return signed_json(caller, ended.as_json())


@router.post("/launch", response_model=OperatorSessionView, responses=refusals(401, 422))
def trade_launch_code(body: LaunchCodeRequest, found: ServicesDep) -> dict[str, object]:
    """The framed page's one-time launch code (from its URL's fragment) traded for its
    session: the token, which the page keeps in memory, and what the session plays.
    A code is good once, for a few minutes."""
    return operator_sessions.trade_launch_code(found, body.code).as_json()
