"""What the two money routes a game plays through do once their request is read: a bet
(``POST /api/v1/tables/{id}/rounds``) and a decision (``POST /api/v1/rounds/{id}/actions``).
Their FastAPI routes (:mod:`~feltlab.server.api.tables`, :mod:`~feltlab.server.api.rounds`)
and the money lane (:mod:`~feltlab.server.api.money_lane`) both call these, so that a
request does the same whichever read it."""

from __future__ import annotations

from feltlab.server.api.money import (
    EncodedJSON,
    in_wallet_thread,
    in_writer_thread,
    money_request_of,
)
from feltlab.server.api.schemas import ActionRequest, RoundRequest
from feltlab.server.errors import Refused
from feltlab.server.fairness import FairnessError, check_client_seed
from feltlab.server.services import operator_play, play
from feltlab.server.services.context import Services
from feltlab.server.services.operator_sessions import is_session_token


async def bet(found: Services, token: str, table_id: int, body: RoundRequest, path: str,
              key: str | None) -> EncodedJSON:
    """The caller's bet at table ``table_id`` (``path`` and ``key``: the request's path
    and Idempotency-Key header); an operator's session's wallet pays it."""
    try:
        client_seed = check_client_seed(body.client_seed or "")
    except FairnessError as error:
        raise Refused(str(error)) from None
    placed = play.Wagers(body.wagers, body.colour, client_seed)
    sent = money_request_of("POST", path, key, body.model_dump())
    if is_session_token(token):
        return await in_wallet_thread(found, operator_play.bet, found, token, table_id,
                                      placed, sent)
    return await in_writer_thread(found, play.bet, found, token, table_id, placed, sent)


async def decide(found: Services, token: str, round_id: int, body: ActionRequest, path: str,
                 key: str | None) -> EncodedJSON:
    """The caller's decision in round ``round_id``; a raise, play or bet is debited
    here, by an operator's session's wallet for its rounds."""
    decision = body.model_dump()
    sent = money_request_of("POST", path, key, decision)
    if is_session_token(token):
        return await in_wallet_thread(found, operator_play.decide, found, token, round_id,
                                      decision, sent)
    return await in_writer_thread(found, play.decide, found, token, round_id, decision,
                                  sent)
