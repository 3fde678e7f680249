"""The operators: casinos that embed feltlab's tables and pay through their own wallets.

The first slice of feltlab as a game supplier: each operator's wallet URL, the currencies
it plays in (ISO 4217 code → minor units one chip is worth, as a JSON object), how long
its wallet may take to answer, the origins allowed to frame the tables (a JSON list), and
its two live secrets (:mod:`feltlab.server.signatures` signs with ``secret`` and accepts
``previous_secret`` too while the operator rotates). The JSON sits in text columns, as
elsewhere in the schema, so SQLite and PostgreSQL hold it alike.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27 15:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "operators",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("wallet_url", sa.String(500), nullable=False),
        sa.Column("currencies", sa.Text(), nullable=False),
        sa.Column("timeout_seconds", sa.Double(), nullable=False),
        sa.Column("frame_origins", sa.Text(), nullable=False),
        sa.Column("secret", sa.String(256), nullable=False),
        sa.Column("previous_secret", sa.String(256), nullable=True),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("timeout_seconds >= 0.05 AND timeout_seconds <= 60",
                           name="operator_timeout_in_range"),
    )


def downgrade() -> None:
    op.drop_table("operators")
