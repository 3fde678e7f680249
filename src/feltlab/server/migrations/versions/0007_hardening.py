"""Hardening: a raised daily loss limit waits 24 hours (pending), failed logins name the
client that made them (throttled by client and username together), and a private table
draws its next round's seed in advance so that the commitment is shown before the bet.

Revision ID: 0007
Revises: 0003
Create Date: 2026-11-25 00:20:00
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("pending_daily_loss_limit", sa.BigInteger(),
                                      nullable=True))
        batch_op.add_column(sa.Column("pending_limit_at", sa.DateTime(timezone=True),
                                      nullable=True))
    with op.batch_alter_table("login_failures", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client", sa.String(length=64), nullable=False,
                                      server_default=""))
        batch_op.create_index(batch_op.f("ix_login_failures_client"), ["client"],
                              unique=False)
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.add_column(sa.Column("next_server_seed", sa.String(length=64),
                                      nullable=True))
    tables = sa.table("tables", sa.column("id", sa.Integer()),
                      sa.column("shared", sa.Boolean()),
                      sa.column("next_server_seed", sa.String()))
    connection = op.get_bind()
    private = connection.execute(sa.select(tables.c.id).where(tables.c.shared.is_(False)))
    for (table_id,) in private.all():  # each private table's next seed, drawn now
        connection.execute(sa.update(tables).where(tables.c.id == table_id)
                           .values(next_server_seed=secrets.token_hex(32)))


def downgrade() -> None:
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_column("next_server_seed")
    with op.batch_alter_table("login_failures", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_login_failures_client"))
        batch_op.drop_column("client")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("pending_limit_at")
        batch_op.drop_column("pending_daily_loss_limit")
