"""The wallet outbox: every call feltlab owes an operator's wallet (a bet, a win, a
rollback), written in the same transaction as the round's change it pays for and sent
until the wallet answers it clearly (:mod:`feltlab.server.services.outbox`).

A row keeps the call's whole body (so that a retry, hours later, sends the same
``transaction_id`` with the same amount and references), its state, its tries and when
the next is due, and whether it was given up on and left for a person (``flagged``). A
win's bets are a JSON list in a text column, as elsewhere in the schema, so SQLite and
PostgreSQL hold it alike. Three indexes: the due pending calls by time, an operator's
calls by time (to reconcile with its wallet's ledger), a round's calls in order.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27 15:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "wallet_transactions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("transaction_id", sa.String(64), nullable=False, unique=True),
        sa.Column("operator_id", sa.String(32), sa.ForeignKey("operators.id"),
                  nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("session", sa.String(255), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("round_id", sa.Integer(), sa.ForeignKey("rounds.id"), nullable=True),
        sa.Column("bets", sa.Text(), nullable=False),
        sa.Column("rolled_back", sa.String(64), nullable=True),
        sa.Column("rules", sa.String(64), nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_try_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('bet', 'win', 'rollback')", name="wallet_call_kind"),
        sa.CheckConstraint("state IN ('pending', 'acknowledged', 'refused', 'rolled_back')",
                           name="wallet_call_state"),
        sa.CheckConstraint("amount >= 0", name="wallet_call_amount"),
    )
    op.create_index("wallet_transactions_due", "wallet_transactions",
                    ["state", "next_try_at"])
    op.create_index("wallet_transactions_by_operator", "wallet_transactions",
                    ["operator_id", "created_at"])
    op.create_index("wallet_transactions_by_round", "wallet_transactions",
                    ["round_id", "id"])


def downgrade() -> None:
    op.drop_index("wallet_transactions_by_round", table_name="wallet_transactions")
    op.drop_index("wallet_transactions_by_operator", table_name="wallet_transactions")
    op.drop_index("wallet_transactions_due", table_name="wallet_transactions")
    op.drop_table("wallet_transactions")
