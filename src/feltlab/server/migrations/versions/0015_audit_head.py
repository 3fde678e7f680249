"""The audit log's head: its line count and last hash in a row of their own, changed in
the transaction of each line (:mod:`feltlab.server.services.audit`), so that deleting the
log's last lines no longer leaves a chain that verifies. A database with lines already
gets the head of the chain it holds.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

GENESIS = "0" * 64
"""The chain's hash before its first line (:data:`feltlab.server.services.audit.GENESIS`)."""


def upgrade() -> None:
    head = op.create_table(
        "audit_head",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("lines", sa.Integer(), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.CheckConstraint("id = 1", name="audit_head_one_row"),
    )
    bind = op.get_bind()
    lines = bind.execute(sa.text("SELECT COUNT(*) FROM audit_log")).scalar_one()
    last = bind.execute(sa.text("SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1")
                        ).scalar()
    op.bulk_insert(head, [{"id": 1, "lines": int(lines), "hash": last or GENESIS}])


def downgrade() -> None:
    op.drop_table("audit_head")
