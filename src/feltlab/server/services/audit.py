"""The audit log, hash-chained: each line's hash covers its content and the previous
line's hash, so a changed, inserted or deleted line breaks the chain at that point.

Logins, failed logins, balance adjustments, table changes and limit changes are
recorded. :func:`verify_chain` checks a whole log (``feltlab audit verify``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from feltlab.server.clock import aware, now
from feltlab.server.models import AuditRecord
from feltlab.server.services.database import lock_exclusive, session_factory, transaction

if TYPE_CHECKING:  # annotations only: the services' context imports these modules
    from feltlab.server.services.context import Services

GENESIS = "0" * 64
AUDIT_LOCK = 7000002


def line_hash(prev_hash: str, at: datetime, actor: str, kind: str, detail: str) -> str:
    content = json.dumps([prev_hash, aware(at).astimezone(UTC).isoformat(), actor, kind, detail],
                         ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(content.encode("ascii")).hexdigest()


def record(session: Session, actor: str, kind: str, **detail: Any) -> None:
    """Append one line to the chain, in the caller's transaction."""
    lock_exclusive(session, AUDIT_LOCK)
    last = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc()).limit(1)
                           ).one_or_none()
    prev_hash = last.hash if last else GENESIS
    at = now()
    text = json.dumps(detail, sort_keys=True, ensure_ascii=True)
    session.add(AuditRecord(at=at, actor=actor[:64], kind=kind, detail=text,
                            prev_hash=prev_hash,
                            hash=line_hash(prev_hash, at, actor[:64], kind, text)))
    session.flush()


@dataclass(frozen=True)
class ChainReport:
    lines: int
    broken_at: int | None  # id of the first line that does not fit the chain
    reason: str = ""

    @property
    def intact(self) -> bool:
        return self.broken_at is None


def verify_chain(records: Iterable[AuditRecord]) -> ChainReport:
    prev_hash, count = GENESIS, 0
    for line in records:
        count += 1
        if line.prev_hash != prev_hash:
            return ChainReport(count, line.id, "a line before it was changed or deleted")
        expected = line_hash(line.prev_hash, line.at, line.actor, line.kind, line.detail)
        if line.hash != expected:
            return ChainReport(count, line.id, "its content was changed")
        prev_hash = line.hash
    return ChainReport(count, None)


def verify_session(session: Session) -> ChainReport:
    return verify_chain(session.scalars(select(AuditRecord).order_by(AuditRecord.id)))


def verify_database(engine: Engine) -> ChainReport:
    """The whole chain checked (``feltlab audit verify``)."""
    with transaction(session_factory(engine)) as session:
        return verify_session(session)


def read_audit(found: Services, limit: int) -> dict[str, Any]:
    """The latest ``limit`` lines, newest first, and whether the whole chain is intact."""
    with found.read() as session:
        report = verify_session(session)
        lines = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc())
                                .limit(limit))
        return {"intact": report.intact, "lines": report.lines, "broken_at": report.broken_at,
                "latest": [audit_json(line) for line in lines]}


def audit_json(line: AuditRecord) -> dict[str, Any]:
    return {"id": line.id, "at": aware(line.at).isoformat(), "actor": line.actor,
            "kind": line.kind, "detail": json.loads(line.detail), "hash": line.hash}
