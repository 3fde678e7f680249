"""The wallet outbox as the operator's console shows it: the calls feltlab owes (or owed)
the operators' wallets, newest first, and a person's two hand changes to a pending one
(:func:`feltlab.server.services.outbox.retry_now` and
:func:`~feltlab.server.services.outbox.resolve_by_hand`, which write the audit log).

The outbox's own logic stays in :mod:`feltlab.server.services.outbox`; this module only
reads its rows for a person and hands them out as JSON, with each call's age, so that a
console shows at a glance how long a player's money has been waiting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import false, select, true

from feltlab.server.clock import aware, now
from feltlab.server.errors import Refused
from feltlab.server.models import table_of
from feltlab.server.operator_models import WalletTransaction
from feltlab.server.services import outbox
from feltlab.server.services.context import Services

_CALLS: Final = table_of(WalletTransaction)
STATES: Final = (outbox.PENDING, outbox.ACKNOWLEDGED, outbox.REFUSED, outbox.ROLLED_BACK)
MAX_LIMIT: Final = 500


def _moment(value: datetime | None) -> str | None:
    return None if value is None else aware(value).astimezone(UTC).isoformat()


def call_json(call: Mapping[Any, Any], at: datetime) -> dict[str, Any]:
    """A call (a row of ``wallet_transactions``, or an outbox
    :class:`~feltlab.server.services.outbox.WalletCall` as a mapping) as the console's
    JSON; ``age_seconds`` is its age at ``at``."""
    created = aware(call["created_at"])
    return {"transaction_id": call["transaction_id"], "operator": call["operator_id"],
            "kind": call["kind"], "player": call["player"], "currency": call["currency"],
            "amount": int(call["amount"]),
            "round_id": None if call["round_id"] is None else int(call["round_id"]),
            "state": call["state"], "attempts": int(call["attempts"]),
            "next_try_at": _moment(call["next_try_at"]), "last_error": call["last_error"],
            "flagged": bool(call["flagged"]), "created_at": _moment(created),
            "updated_at": _moment(call["updated_at"]),
            "age_seconds": max((at - created).total_seconds(), 0.0)}


def list_calls(found: Services, *, state: str | None = None, flagged: bool | None = None,
               operator: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
    """Up to ``limit`` wallet calls, newest first: in ``state``, flagged or not, of
    ``operator``, as far as each is given."""
    if not 1 <= limit <= MAX_LIMIT:
        raise Refused(f"limit must be from 1 to {MAX_LIMIT}, got {limit}")
    if state is not None and state not in STATES:
        raise Refused(f"state must be one of {', '.join(STATES)}, got {state[:20]!r}")
    query = select(_CALLS)
    if state is not None:
        query = query.where(_CALLS.c.state == state)
    if flagged is not None:
        query = query.where(_CALLS.c.flagged == (true() if flagged else false()))
    if operator is not None:
        query = query.where(_CALLS.c.operator_id == operator)
    with found.read_connection() as connection:
        rows = list(connection.execute(query.order_by(_CALLS.c.id.desc()).limit(limit))
                    .mappings())
    at = now()
    return [call_json(row, at) for row in rows]


def retry_now(found: Services, transaction_id: str, actor: str) -> dict[str, Any]:
    """A pending call (flagged or not) due at once, in ``actor``'s name in the audit log;
    :class:`~feltlab.server.errors.NotFound` for an unknown transaction id,
    :class:`~feltlab.server.errors.Conflict` for a call no longer pending."""
    call = outbox.retry_now(found.engine, transaction_id, actor)
    return call_json(asdict(call), now())


def resolve_by_hand(found: Services, transaction_id: str, actor: str, note: str
                    ) -> dict[str, Any]:
    """A pending call settled with the operator outside the outbox: acknowledged, never
    sent again, ``note`` in its row and in the audit log under ``actor``'s name."""
    call = outbox.resolve_by_hand(found.engine, transaction_id, actor, note)
    return call_json(asdict(call), now())
