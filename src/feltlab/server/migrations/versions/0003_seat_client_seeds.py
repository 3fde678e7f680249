"""Each seat's client seed in a round: at a shared table the seated players' seeds are
mixed into the round's one client seed at the deal (see
:func:`feltlab.server.fairness.combine_client_seeds`).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("round_seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client_seed", sa.String(length=64), nullable=False,
                                      server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("round_seats", schema=None) as batch_op:
        batch_op.drop_column("client_seed")
