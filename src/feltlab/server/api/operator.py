"""What an operator asks feltlab itself, signed with its shared secret
(:mod:`feltlab.server.signatures`): the wallet calls feltlab made for it, to reconcile
with its own wallet's ledger.

The request signs its path with the query string exactly as sent; an unknown or disabled
operator is refused with the same 401 as a bad signature (checked all the same, against a
secret nobody has, so the time taken does not tell either). The answer is signed too,
over its raw body with the operator's current secret.
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime
from typing import Annotated, Final, Literal

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import Response

from feltlab.server.api.contract import refusals
from feltlab.server.api.deps import services
from feltlab.server.api.responses import OperatorTransactions
from feltlab.server.errors import NotFound, Refused, Unauthorized
from feltlab.server.middleware import StrictJSONRoute
from feltlab.server.services import operator_ledger
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
    found: Services = request.app.state.services
    operator_id = request.query_params.get("operator", "")
    message = signed_message(request)
    try:
        if ID_PATTERN.fullmatch(operator_id) is None:
            raise NotFound("not an operator id")
        known = credentials(found.engine, operator_id)
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
