"""The tables of feltlab as a game supplier (SQLAlchemy 2 models on
:class:`~feltlab.server.models.Base`; whatever needs the whole schema, the migrations'
environment, imports this module too): the operators whose casinos embed feltlab's
tables, and the calls feltlab owes their wallets. The migrations 0010 and 0011 create
them."""

from __future__ import annotations

from datetime import datetime

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
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from feltlab.server.models import Base


class Operator(Base):
    """A casino that embeds feltlab's tables and pays through its own wallet (migration
    0010; :mod:`feltlab.server.services.operators` keeps it). ``currencies`` is a JSON
    object, ISO 4217 code → the minor units one chip is worth; ``frame_origins`` a JSON
    list of the origins allowed to frame the tables. feltlab signs with ``secret`` and
    accepts ``previous_secret`` too while the operator rotates
    (:mod:`feltlab.server.signatures`)."""

    __tablename__ = "operators"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    wallet_url: Mapped[str] = mapped_column(String(500))
    currencies: Mapped[str] = mapped_column(Text)
    timeout_seconds: Mapped[float] = mapped_column(Double, default=3.0)
    frame_origins: Mapped[str] = mapped_column(Text, default="[]")
    secret: Mapped[str] = mapped_column(String(256))
    previous_secret: Mapped[str | None] = mapped_column(String(256), nullable=True)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        CheckConstraint("timeout_seconds >= 0.05 AND timeout_seconds <= 60",
                        name="operator_timeout_in_range"),
    )


class WalletTransaction(Base):
    """A call feltlab owes an operator's wallet (migration 0011; the outbox of
    :mod:`feltlab.server.services.outbox`): written in the same database transaction as
    the round's change it pays for, then sent, and sent again, until the wallet answers
    it clearly. ``transaction_id`` is feltlab's id for it (the wallet applies each once);
    ``amount`` is in the currency's minor units; ``bets`` (a win's) is a JSON list of the
    bets' transaction ids; ``rolled_back`` (a rollback's) the bet's. ``state`` is
    ``pending`` until the wallet answers: ``acknowledged``, ``refused`` (a bet it said no
    to) or ``rolled_back`` (a bet whose rollback it acknowledged). ``flagged``: retried
    for the give-up age without an answer, left for a person."""

    __tablename__ = "wallet_transactions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    transaction_id: Mapped[str] = mapped_column(String(64), unique=True)
    operator_id: Mapped[str] = mapped_column(ForeignKey("operators.id"))
    player: Mapped[str] = mapped_column(String(64))
    session: Mapped[str] = mapped_column(String(255))
    currency: Mapped[str] = mapped_column(String(3))
    kind: Mapped[str] = mapped_column(String(10))
    amount: Mapped[int] = mapped_column(BigInteger)
    round_id: Mapped[int | None] = mapped_column(ForeignKey("rounds.id"), nullable=True)
    bets: Mapped[str] = mapped_column(Text, default="[]")
    rolled_back: Mapped[str | None] = mapped_column(String(64), nullable=True)
    rules: Mapped[str] = mapped_column(String(64), default="")
    state: Mapped[str] = mapped_column(String(12), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_try_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                         nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    flagged: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        CheckConstraint("kind IN ('bet', 'win', 'rollback')", name="wallet_call_kind"),
        CheckConstraint("state IN ('pending', 'acknowledged', 'refused', 'rolled_back')",
                        name="wallet_call_state"),
        CheckConstraint("amount >= 0", name="wallet_call_amount"),
        # the worker's question: which pending calls are due, soonest first
        Index("wallet_transactions_due", "state", "next_try_at"),
        # an operator's calls over a time (reconciliation with its wallet's ledger)
        Index("wallet_transactions_by_operator", "operator_id", "created_at"),
        # a round's calls in order (a win waits for the round's earlier calls)
        Index("wallet_transactions_by_round", "round_id", "id"),
    )


class OperatorPlayer(Base):
    """An operator's player (migration 0012): one of feltlab's accounts, found by the
    operator and the operator's own id for the player. It has no password anybody knows;
    it plays only through its operator's sessions."""

    __tablename__ = "operator_players"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    operator_id: Mapped[str] = mapped_column(ForeignKey("operators.id"))
    player: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (UniqueConstraint("operator_id", "player", name="operator_player_once"),)


class OperatorSession(Base):
    """One launch of a table by an operator (migration 0012): ``session`` is its bearer
    token (its digest in ``auth_tokens``, whose idle time expires it like a player's
    login); the currency (and the minor units a chip is worth), rule set and mode it
    plays; the lobby to go back to; the digest of the one-time code the framed page
    trades for the token, until it is traded or expires."""

    __tablename__ = "operator_sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session: Mapped[str] = mapped_column(String(100), unique=True)
    token_id: Mapped[int] = mapped_column(ForeignKey("auth_tokens.id"), unique=True)
    operator_id: Mapped[str] = mapped_column(ForeignKey("operators.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    player: Mapped[str] = mapped_column(String(64))
    currency: Mapped[str] = mapped_column(String(3))
    chip_value: Mapped[int] = mapped_column(Integer)
    rules_id: Mapped[str] = mapped_column(String(64))
    mode: Mapped[str] = mapped_column(String(4))
    lobby_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    launch_code_hash: Mapped[str | None] = mapped_column(String(64), nullable=True,
                                                         unique=True)
    launch_code_expires_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True),
                                                      nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        CheckConstraint("mode IN ('real', 'demo')", name="operator_session_mode"),
        CheckConstraint("chip_value >= 1", name="operator_session_chip_value"),
        Index("operator_sessions_by_operator", "operator_id", "created_at"),
    )
