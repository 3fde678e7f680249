"""Trainer scores kept for signed-in players: the strategy trainer's accuracy and cost and
the dealer trainer's score, per rule set (see :mod:`feltlab.server.services.scores`).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 13:05:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trainer_scores",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("rules_id", sa.String(length=64), nullable=False),
        sa.Column("right", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("perfect", sa.Integer(), nullable=False),
        sa.Column("cost_micro", sa.BigInteger(), nullable=False),
        sa.Column("millis", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("kind IN ('strategy', 'dealer')", name="trainer_kind_known"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("user_id", "kind", "rules_id", name="one_score_per_rule_set"),
    )


def downgrade() -> None:
    op.drop_table("trainer_scores")
