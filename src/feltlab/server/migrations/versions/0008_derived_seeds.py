"""A private table's seeds derived, not drawn and written one by one: the table keeps a
secret seed key, and each round's server seed is HMAC-SHA256 of that key over the
previous round's seed (see :func:`feltlab.server.fairness.next_seed`), so that a bet
writes no seed back to its table. Two indexes let the database hold the invariants the
money path relied on reading again: a server seed is used once, and a table has at most
one unfinished round (a bet that raced another is refused by them and runs again). A
third finds a table's newest round at once.

A settled round is marked ``figures_pending`` until the pit's figures of its seats are
written, off the money path (see :mod:`feltlab.server.services.figures`).

The existing ``next_server_seed`` of each private table becomes its seed key (a secret
never shown: only the commitment of a seed derived from it is), so a commitment shown
before this migration is not the one the next round uses.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 03:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

UNFINISHED = "phase <> 'complete'"


def upgrade() -> None:
    connection = op.get_bind()
    crowded = connection.execute(sa.text(
        f"SELECT table_id FROM rounds WHERE {UNFINISHED} GROUP BY table_id "
        "HAVING COUNT(*) > 1")).scalars().all()
    if crowded:
        raise RuntimeError(f"tables {sorted(crowded)} have more than one unfinished round; "
                           "finish or void all but one before upgrading")
    # native on both databases (a batch copy of the table would trip its foreign keys)
    op.execute("ALTER TABLE tables RENAME COLUMN next_server_seed TO seed_key")
    op.create_index("rounds_seed_once", "rounds", ["server_seed"], unique=True)
    op.create_index("rounds_one_unfinished", "rounds", ["table_id"], unique=True,
                    sqlite_where=sa.text(UNFINISHED), postgresql_where=sa.text(UNFINISHED))
    op.create_index("rounds_newest_by_table", "rounds", ["table_id", "id"])
    op.add_column("rounds", sa.Column("figures_pending", sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
    op.create_index("rounds_figures_pending", "rounds", ["figures_pending"])


def downgrade() -> None:
    op.drop_index("rounds_figures_pending", table_name="rounds")
    with op.batch_alter_table("rounds", schema=None) as batch_op:
        batch_op.drop_column("figures_pending")
    op.drop_index("rounds_newest_by_table", table_name="rounds")
    op.drop_index("rounds_one_unfinished", table_name="rounds")
    op.drop_index("rounds_seed_once", table_name="rounds")
    op.execute("ALTER TABLE tables RENAME COLUMN seed_key TO next_server_seed")
