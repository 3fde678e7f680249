"""Each round's number at its table (``rounds.number``, 1 for a table's first round): the
pages count a table's rounds with it, where ``id`` counts every table's. The rounds
already played are numbered by table in the order they were opened.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

BATCH = 10_000


def upgrade() -> None:
    op.add_column("rounds", sa.Column("number", sa.Integer(), nullable=False,
                                      server_default="0"))
    connection = op.get_bind()
    numbers: list[dict[str, int]] = []
    table, count = None, 0
    # numbered in Python: an UPDATE ... FROM a window function needs SQLite 3.33
    for round_id, table_id in connection.execute(sa.text(
            "SELECT id, table_id FROM rounds ORDER BY table_id, id")).all():
        count = count + 1 if table_id == table else 1
        table = table_id
        numbers.append({"round_id": round_id, "number": count})
    update = sa.text("UPDATE rounds SET number = :number WHERE id = :round_id")
    for start in range(0, len(numbers), BATCH):
        connection.execute(update, numbers[start:start + BATCH])


def downgrade() -> None:
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.drop_column("number")
