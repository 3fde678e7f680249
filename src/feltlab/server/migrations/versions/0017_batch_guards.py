"""PostgreSQL's ``feltlab_require(ok, guard)``: the statements layer's batches call it to
refuse themselves from within (a request's last writes run as one statement there, and a
write that had to change a row and changed none must undo the others: raising is the only
way one statement can). Nothing on SQLite, whose batches run one write at a time inside
their transaction.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 11:10:00
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

# SQLSTATE FL001 is feltlab's own: the statements layer reads it back as Unchanged(guard)
REQUIRE = """
CREATE OR REPLACE FUNCTION feltlab_require(ok boolean, guard text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF ok IS NOT TRUE THEN
        RAISE EXCEPTION USING ERRCODE = 'FL001', MESSAGE = guard;
    END IF;
    RETURN true;
END
$$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(REQUIRE)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP FUNCTION IF EXISTS feltlab_require(boolean, text)")
