"""The table server's database: every piece of state lives here (SQLAlchemy 2 models).

The schema itself is created and changed only by the Alembic migrations shipped in
``feltlab/server/migrations``; these classes describe it for queries.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any, TypeVar

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, configure_mappers, mapped_column


class Base(DeclarativeBase):
    pass


def table_of(model: type[Base]) -> Table:
    """The Core table of ``model``: hot paths write through it without the unit of work."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


Model = TypeVar("Model", bound=Base)


@cache
def _mappers_configured() -> None:
    configure_mappers()


def detached(model: type[Model], values: dict[str, Any]) -> Model:
    """A ``model`` object holding ``values``, made without the ORM's event for each
    attribute (many times quicker than the constructor, and hot paths make several a
    request): for rows read and written in Core, never added to a session."""
    _mappers_configured()  # an attribute reads its value once its mapper is configured
    instance: Model = model.__mapper__.class_manager.new_instance()
    instance.__dict__.update(values)
    return instance


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(10), default="player")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    daily_loss_limit: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    excluded_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                            nullable=True)
    pending_daily_loss_limit: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    """A raised daily loss limit waiting out its cooling-off time."""
    pending_limit_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                              nullable=True)
    """When the pending limit takes effect."""
    locked: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    """Locked by an admin: no bets until unlocked (migration 0005)."""

    __table_args__ = (CheckConstraint("role IN ('player', 'admin')", name="role_known"),)


class AuthToken(Base):
    """A login: only the SHA-256 of the bearer token is stored."""

    __tablename__ = "auth_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)


class LoginFailure(Base):
    """A failed login: the username typed and the client that typed it."""

    __tablename__ = "login_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    client: Mapped[str] = mapped_column(String(64), default="", server_default="", index=True)


class Wallet(Base):
    """A ledger account: a player's balance in one currency, or the house's.

    Only house wallets may go below zero, and the database enforces it."""

    __tablename__ = "wallets"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True,
                                                index=True)
    currency: Mapped[str] = mapped_column(String(10))
    house: Mapped[bool] = mapped_column(Boolean, default=False)
    balance: Mapped[int] = mapped_column(BigInteger, default=0)

    __table_args__ = (
        CheckConstraint("house OR balance >= 0", name="balance_not_negative"),
        CheckConstraint("currency IN ('practice', 'cash')", name="currency_known"),
    )


class LedgerTransaction(Base):
    """One money movement: its entries sum to zero."""

    __tablename__ = "ledger_transactions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id"), nullable=True,
                                                 index=True)
    memo: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LedgerEntry(Base):
    __tablename__ = "ledger_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    transaction_id: Mapped[int] = mapped_column(ForeignKey("ledger_transactions.id"),
                                                index=True)
    wallet_id: Mapped[int] = mapped_column(ForeignKey("wallets.id"), index=True)
    amount: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)

    __table_args__ = (CheckConstraint("amount <> 0", name="amount_not_zero"),)


class GameTable(Base):
    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rules_id: Mapped[str] = mapped_column(String(64))
    fingerprint: Mapped[str] = mapped_column(String(64))
    currency: Mapped[str] = mapped_column(String(10))
    shared: Mapped[bool] = mapped_column(Boolean, default=False)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True,
                                                 index=True)
    status: Mapped[str] = mapped_column(String(10), default="open")
    name: Mapped[str] = mapped_column(String(64), default="")
    betting_seconds: Mapped[int] = mapped_column(Integer, default=30)
    decision_seconds: Mapped[int] = mapped_column(Integer, default=30)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seed_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """A private table's secret, never shown: each round's server seed is derived from it
    and the previous round's (:func:`feltlab.server.fairness.next_seed`), so the next
    round's commitment is shown before the player bets (and chooses a client seed)."""
    operator_session_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    """The operator's session that opened the table (migration 0012), if any: whose wallet
    pays its rounds (:mod:`feltlab.server.services.operator_play`)."""


Index("tables_by_operator_session", GameTable.operator_session_id)


class TableSeat(Base):
    """Who sits where at a shared table."""

    __tablename__ = "table_seats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)

    __table_args__ = (UniqueConstraint("table_id", "seat"),
                      UniqueConstraint("table_id", "user_id"))


class Round(Base):
    __tablename__ = "rounds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), index=True)
    rules_id: Mapped[str] = mapped_column(String(64))
    fingerprint: Mapped[str] = mapped_column(String(64))
    currency: Mapped[str] = mapped_column(String(10))
    server_seed: Mapped[str] = mapped_column(String(64))
    commitment: Mapped[str] = mapped_column(String(64))
    client_seed: Mapped[str] = mapped_column(String(64), default="")
    phase: Mapped[str] = mapped_column(String(10), index=True)
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                          nullable=True)
    log: Mapped[str] = mapped_column(Text, default="", server_default="")
    """The round's actions as one JSON array (migration 0004), so that loading a round is
    one read; "" for a round from before it, whose log is read from its events."""
    figures_pending: Mapped[bool] = mapped_column(Boolean, default=False,
                                                  server_default="0")
    """Settled, its pit's figures not written yet (see
    :mod:`feltlab.server.services.figures`; migration 0008)."""
    number: Mapped[int] = mapped_column(Integer, server_default="0")
    """The round's number at its table, 1 for its first (migration 0016): what a player
    counts; ``id`` is the round's name across every table. Written with the round (see
    :mod:`feltlab.server.services.round_writes`)."""

    __table_args__ = (
        # a seed deals one round only; a table plays one round at a time: a request that
        # raced another to open a round is refused here and runs again (migration 0008)
        Index("rounds_seed_once", "server_seed", unique=True),
        Index("rounds_newest_by_table", "table_id", "id"),
        Index("rounds_figures_pending", "figures_pending"),
    )


Index("rounds_one_unfinished", Round.table_id, unique=True,
      sqlite_where=Round.phase != "complete", postgresql_where=Round.phase != "complete")
"""A table plays one round at a time (its rounds still being played: one at most)."""


class RoundSeat(Base):
    """One player's part in a round: stakes and balances in the round's currency."""

    __tablename__ = "round_seats"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    staked: Mapped[int] = mapped_column(BigInteger, default=0)
    balance_before: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    total: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    client_seed: Mapped[str] = mapped_column(String(64), default="", server_default="")
    """The seed the player gave with the bet ("" for none); shared tables mix them."""

    __table_args__ = (UniqueConstraint("round_id", "seat"),
                      UniqueConstraint("round_id", "user_id"))


class RoundEvent(Base):
    """The round's append-only log: one engine action per row, in order."""

    __tablename__ = "round_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (UniqueConstraint("round_id", "seq"),)


class IdempotencyKey(Base):
    """The answer given to a money-moving request, replayed for a retry with its key."""

    __tablename__ = "idempotency_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    key: Mapped[str] = mapped_column(String(100))
    request_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (UniqueConstraint("user_id", "key"),)


class TrainerScore(Base):
    """One player's score at one trainer and rule set (migration 0002)."""

    __tablename__ = "trainer_scores"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    kind: Mapped[str] = mapped_column(String(10))
    rules_id: Mapped[str] = mapped_column(String(64))
    right: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer, default=0)
    rounds: Mapped[int] = mapped_column(Integer, default=0)
    perfect: Mapped[int] = mapped_column(Integer, default=0)
    cost_micro: Mapped[int] = mapped_column(BigInteger, default=0)
    millis: Mapped[int] = mapped_column(BigInteger, default=0)

    __table_args__ = (
        CheckConstraint("kind IN ('strategy', 'dealer')", name="trainer_kind_known"),
        UniqueConstraint("user_id", "kind", "rules_id", name="one_score_per_rule_set"),
    )


class AuditRecord(Base):
    """One line of the hash-chained audit log."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    actor: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(40))
    detail: Mapped[str] = mapped_column(Text)
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64), unique=True)


class AuditHead(Base):
    """The audit log's head, one row (migration 0015): its line count and last hash,
    changed in the transaction of each line, so that a log cut short no longer verifies."""

    __tablename__ = "audit_head"
    __table_args__ = (CheckConstraint("id = 1", name="audit_head_one_row"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    lines: Mapped[int] = mapped_column(Integer)
    hash: Mapped[str] = mapped_column(String(64))


class PublishedRuleSet(Base):
    """A rule set an admin published: immutable once stored (a change is a new id); a
    withdrawn one opens no new table but still settles and verifies its rounds."""

    __tablename__ = "published_rulesets"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    game: Mapped[str] = mapped_column(String(64))
    fingerprint: Mapped[str] = mapped_column(String(64))
    toml: Mapped[str] = mapped_column(Text)
    published_by: Mapped[str] = mapped_column(String(64))
    published_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    withdrawn_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                          nullable=True)


class LedgerCheck(Base):
    """One run of ``feltlab ledger check`` (or the server's background check): when, how
    long, and what it found out of line (``report``: the problems as JSON)."""

    __tablename__ = "ledger_checks"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    checked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seconds: Mapped[float] = mapped_column(Double)
    problems: Mapped[int] = mapped_column(Integer)
    report: Mapped[str] = mapped_column(Text)
