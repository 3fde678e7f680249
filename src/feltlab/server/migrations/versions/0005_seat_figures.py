"""The pit's figures of every settled seat (handle, win, theoretical and expected win,
variance), the table the reports sum, with its sums by day for the days that are over;
and an admin's lock on an account.

Rounds settled before this revision get their figures from ``feltlab db backfill``
(which replays each round through the engine and the exact math, showing its progress):
a migration cannot load the game's solvers.

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-25 00:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seat_figures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_seat_id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("rules_id", sa.String(length=64), nullable=False),
        sa.Column("currency", sa.String(length=10), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("handle", sa.BigInteger(), nullable=False),
        sa.Column("win", sa.BigInteger(), nullable=False),
        sa.Column("theo_win", sa.Double(), nullable=False),
        sa.Column("expected_win", sa.Double(), nullable=False),
        sa.Column("variance", sa.Double(), nullable=False),
        sa.Column("main_stake", sa.BigInteger(), nullable=False),
        sa.Column("first_seat", sa.SmallInteger(), nullable=False),
        sa.Column("costs", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["round_seat_id"], ["round_seats.id"]),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"]),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"]),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("round_seat_id"),
    )
    op.create_index("seat_figures_by_day", "seat_figures",
                    ["currency", "day", "rules_id", "table_id", "user_id", "first_seat",
                     "handle", "win", "theo_win", "expected_win", "variance"])
    op.create_index("seat_figures_by_user", "seat_figures", ["user_id", "settled_at"])
    op.create_table(
        "seat_figure_days",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("currency", sa.String(length=10), nullable=False),
        sa.Column("day", sa.String(length=10), nullable=False),
        sa.Column("rules_id", sa.String(length=64), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("rounds", sa.BigInteger(), nullable=False),
        sa.Column("seats", sa.BigInteger(), nullable=False),
        sa.Column("handle", sa.BigInteger(), nullable=False),
        sa.Column("win", sa.BigInteger(), nullable=False),
        sa.Column("theo_win", sa.Double(), nullable=False),
        sa.Column("expected_win", sa.Double(), nullable=False),
        sa.Column("variance", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("currency", "day", "rules_id", "table_id", "user_id",
                            name="one_sum_per_day_and_seat"),
    )
    op.create_table(
        "report_days",
        sa.Column("currency", sa.String(length=10), nullable=False),
        sa.Column("summed_through", sa.String(length=10), nullable=False),
        sa.PrimaryKeyConstraint("currency"),
    )
    # a plain ADD COLUMN: a batch would copy the users table, which other tables reference
    op.add_column("users", sa.Column("locked", sa.Boolean(), nullable=False,
                                     server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("locked")
    op.drop_table("report_days")
    op.drop_table("seat_figure_days")
    op.drop_index("seat_figures_by_user", table_name="seat_figures")
    op.drop_index("seat_figures_by_day", table_name="seat_figures")
    op.drop_table("seat_figures")
