"""The designer's running computations: one row a design being computed, in one of the
deployment's slots (the key), one per account (unique), renewed while it runs so that a
killed worker's slot frees itself once its lease runs out
(:mod:`feltlab.server.services.designer_slots`).

Revision ID: 0014
Revises: 0012
Create Date: 2026-11-28 20:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "designer_jobs",
        sa.Column("slot", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False,
                  unique=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("holder", sa.String(100), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("renewed_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("designer_jobs")
