"""The audit log, hash-chained: each line's hash covers its content and the previous
line's hash, so a changed, inserted or deleted line breaks the chain at that point. Its
head (line count and last hash) is anchored: kept in a row changed in the transaction of
each line, so that deleting the last lines is found too, and written to the server's log
at each change, a copy the database cannot rewrite (``feltlab audit verify --head``).

Logins, failed logins, balance adjustments, table changes and limit changes are
recorded. :func:`verify_chain` checks a whole log (``feltlab audit verify``).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine, event, select
from sqlalchemy.orm import Session

from feltlab.server.clock import aware, now
from feltlab.server.models import AuditHead, AuditRecord
from feltlab.server.services.database import lock_exclusive, session_factory, transaction

if TYPE_CHECKING:  # annotations only: the services' context imports these modules
    from feltlab.server.services.context import Services

GENESIS = "0" * 64
AUDIT_LOCK = 7000002
HEAD_ROW = 1
_PENDING_HEAD = "feltlab_audit_head"
"""Where a transaction keeps the head it moved the log to, logged once it commits."""

log = logging.getLogger("feltlab.server")


@dataclass(frozen=True)
class Head:
    """The log's head: how many lines it has and the last one's hash."""

    lines: int
    hash: str

    def as_json(self) -> dict[str, Any]:
        return {"lines": self.lines, "hash": self.hash}


def line_hash(prev_hash: str, at: datetime, actor: str, kind: str, detail: str) -> str:
    content = json.dumps([prev_hash, aware(at).astimezone(UTC).isoformat(), actor, kind, detail],
                         ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(content.encode("ascii")).hexdigest()


def record(session: Session, actor: str, kind: str, **detail: Any) -> None:
    """Append one line to the chain, and move its head, in the caller's transaction; the
    new head goes to the server's log once the transaction commits."""
    lock_exclusive(session, AUDIT_LOCK)
    head = session.get(AuditHead, HEAD_ROW, populate_existing=True)
    if head is None:  # gone: the chain starts again, and no longer verifies
        head = AuditHead(id=HEAD_ROW, lines=0, hash=GENESIS)
        session.add(head)
    at = now()
    text = json.dumps(detail, sort_keys=True, ensure_ascii=True)
    line = AuditRecord(at=at, actor=actor[:64], kind=kind, detail=text, prev_hash=head.hash,
                       hash=line_hash(head.hash, at, actor[:64], kind, text))
    session.add(line)
    head.lines, head.hash = head.lines + 1, line.hash
    session.flush()
    session.info[_PENDING_HEAD] = Head(head.lines, head.hash)


@event.listens_for(Session, "after_commit")
def _log_head(session: Session) -> None:
    """Every change of the head to the server's log: a copy the database cannot rewrite,
    for ``feltlab audit verify --head``."""
    head = session.info.pop(_PENDING_HEAD, None)
    if isinstance(head, Head):
        log.info("audit_head", extra={"fields": head.as_json()})


@event.listens_for(Session, "after_rollback")
def _forget_head(session: Session) -> None:
    session.info.pop(_PENDING_HEAD, None)


@dataclass(frozen=True)
class ChainReport:
    lines: int
    broken_at: int | None  # id of the first line that does not fit the chain
    reason: str = ""
    head: Head | None = None
    """The chain's own head, read to its end (None when it broke before)."""
    published_at: int | None = None
    """Which line (counted from 1) has the hash of the published head looked for."""

    @property
    def intact(self) -> bool:
        return not self.reason


def verify_chain(records: Iterable[AuditRecord], anchor: Head | None,
                 published: str | None = None) -> ChainReport:
    """Check every line's hash and link, then the chain's head against its ``anchor`` (the
    head row; None if it is missing) and, if given, that the ``published`` head's hash (a
    copy kept outside the database) is still one of its lines."""
    prev_hash, count, published_at = GENESIS, 0, None
    for line in records:
        count += 1
        if line.prev_hash != prev_hash:
            return ChainReport(count, line.id, "a line before it was changed or deleted")
        expected = line_hash(line.prev_hash, line.at, line.actor, line.kind, line.detail)
        if line.hash != expected:
            return ChainReport(count, line.id, "its content was changed")
        prev_hash = line.hash
        if line.hash == published:
            published_at = count
    chain = Head(count, prev_hash)
    problems = [_against_anchor(chain, anchor)]
    if published is not None and published_at is None:
        problems.append(f"the published head {published} is not in the log ({count} lines): "
                        "lines up to it were changed or deleted")
    return ChainReport(count, None, "; ".join(problem for problem in problems if problem),
                       chain, published_at)


def _against_anchor(chain: Head, anchor: Head | None) -> str:
    """What is wrong with the chain's head against the head row (nothing: "")."""
    if anchor is None:
        return f"the head row is missing (the log has {chain.lines} lines)"
    if anchor.lines > chain.lines:
        return (f"the log was cut short: its head says {anchor.lines} lines, the log has "
                f"{chain.lines} (the last {anchor.lines - chain.lines} were deleted)")
    if anchor.lines < chain.lines:
        return (f"the head is stale: it says {anchor.lines} lines, the log has "
                f"{chain.lines} (lines were added without it)")
    if anchor.hash != chain.hash:
        return (f"the head's hash is not that of line {chain.lines}: the log or its head "
                "was rewritten")
    return ""


def stored_head(session: Session) -> Head | None:
    row = session.get(AuditHead, HEAD_ROW)
    return None if row is None else Head(row.lines, row.hash)


def verify_session(session: Session, published: str | None = None) -> ChainReport:
    return verify_chain(session.scalars(select(AuditRecord).order_by(AuditRecord.id)),
                        stored_head(session), published)


def verify_database(engine: Engine, published: str | None = None) -> ChainReport:
    """The whole chain checked, and its head (``feltlab audit verify [--head HASH]``)."""
    with transaction(session_factory(engine)) as session:
        return verify_session(session, published)


def read_audit(found: Services, limit: int) -> dict[str, Any]:
    """The latest ``limit`` lines, newest first, whether the whole chain and its head are
    intact (why not, if not), and the head as the database keeps it."""
    with found.read() as session:
        report = verify_session(session)
        head = stored_head(session)
        lines = session.scalars(select(AuditRecord).order_by(AuditRecord.id.desc())
                                .limit(limit))
        return {"intact": report.intact, "lines": report.lines, "broken_at": report.broken_at,
                "reason": report.reason, "head": None if head is None else head.as_json(),
                "latest": [audit_json(line) for line in lines]}


def audit_json(line: AuditRecord) -> dict[str, Any]:
    return {"id": line.id, "at": aware(line.at).isoformat(), "actor": line.actor,
            "kind": line.kind, "detail": json.loads(line.detail), "hash": line.hash}
