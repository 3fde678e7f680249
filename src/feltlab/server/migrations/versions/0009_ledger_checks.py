"""Every house wallet exists before any request needs it, and the ledger's checks are
kept.

A cash bet at a table whose house shard did not exist yet created that wallet inside
the request's transaction; a refused bet rolled it back while the process kept its id,
and later rounds on that shard moved only the player's wallet. Now every shard of every
currency is created here, once, and a request never creates a wallet
(:mod:`feltlab.server.services.ledger` refuses a missing one).

``ledger_checks`` keeps each run of ``feltlab ledger check`` (and of the server's
background check): ``/metrics`` shows the last one without scanning the ledger.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27 12:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

CURRENCIES = ("practice", "cash")
HOUSE_SHARDS = 256  # as feltlab.server.services.ledger.HOUSE_SHARDS when written


def upgrade() -> None:
    op.create_table(
        "ledger_checks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seconds", sa.Double(), nullable=False),
        sa.Column("problems", sa.Integer(), nullable=False),
        sa.Column("report", sa.Text(), nullable=False),
    )
    connection = op.get_bind()
    existing = set(connection.execute(sa.text(
        "SELECT name FROM wallets WHERE house")).scalars())
    names = [(currency, f"house:{currency}" if shard == 0 else f"house:{currency}:{shard}")
             for currency in CURRENCIES for shard in range(HOUSE_SHARDS)]
    wallets = sa.table("wallets", sa.column("name", sa.String),
                       sa.column("currency", sa.String), sa.column("house", sa.Boolean),
                       sa.column("balance", sa.BigInteger))
    missing = [{"name": name, "currency": currency, "house": True, "balance": 0}
               for currency, name in names if name not in existing]
    if missing:
        op.bulk_insert(wallets, missing)


def downgrade() -> None:
    op.drop_table("ledger_checks")
