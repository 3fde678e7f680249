"""The operators' players and their sessions: what a signed launch creates.

An operator's player is one of feltlab's accounts, found by (operator, player id): the
same id at two operators is two players. The account has no password anybody knows and
signs in only through its operator's launch. A session is one launch: its bearer token
(an ``auth_tokens`` row, so it idles out like any player's), the currency, rule set and
mode (``real``: the operator's wallet pays; ``demo``: play money) it is for, the lobby to
go back to, and the one-time launch code the framed page trades for the token. A table
opened by a session names it (``tables.operator_session_id``), so that every round of
it knows whose wallet to call.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27 18:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "operator_players",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("operator_id", sa.String(32), sa.ForeignKey("operators.id"),
                  nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("operator_id", "player", name="operator_player_once"),
    )
    op.create_table(
        "operator_sessions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("session", sa.String(100), nullable=False, unique=True),
        sa.Column("token_id", sa.Integer(), sa.ForeignKey("auth_tokens.id"),
                  nullable=False, unique=True),
        sa.Column("operator_id", sa.String(32), sa.ForeignKey("operators.id"),
                  nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("chip_value", sa.Integer(), nullable=False),
        sa.Column("rules_id", sa.String(64), nullable=False),
        sa.Column("mode", sa.String(4), nullable=False),
        sa.Column("lobby_url", sa.String(500), nullable=True),
        sa.Column("launch_code_hash", sa.String(64), nullable=True, unique=True),
        sa.Column("launch_code_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("mode IN ('real', 'demo')", name="operator_session_mode"),
        sa.CheckConstraint("chip_value >= 1", name="operator_session_chip_value"),
    )
    op.create_index("operator_sessions_by_operator", "operator_sessions",
                    ["operator_id", "created_at"])
    # no foreign key: SQLite cannot add one to an existing table; the index finds them
    op.add_column("tables", sa.Column("operator_session_id", sa.Integer(), nullable=True))
    op.create_index("tables_by_operator_session", "tables", ["operator_session_id"])


def downgrade() -> None:
    op.drop_index("tables_by_operator_session", table_name="tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("operator_session_id")
    op.drop_index("operator_sessions_by_operator", table_name="operator_sessions")
    op.drop_table("operator_sessions")
    op.drop_table("operator_players")
