"""Each round keeps its whole action log in one column beside its event rows, so that
loading a round is one read (the event rows stay the append-only record).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25 00:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("log", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.drop_column("log")
