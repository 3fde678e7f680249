"""Alembic environment: the engine comes from :func:`feltlab.server.migrate.alembic_config`."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Engine

from feltlab.server import (  # noqa: F401  (tables on Base)
    designer_models,
    figure_models,
    operator_models,
)
from feltlab.server.models import Base

engine: Engine = context.config.attributes["engine"]
with engine.connect() as connection:
    if engine.dialect.name == "postgresql":  # one migrator at a time across workers
        connection.exec_driver_sql("SELECT pg_advisory_lock(7000001)")
    context.configure(connection=connection, target_metadata=Base.metadata,
                      render_as_batch=engine.dialect.name == "sqlite")
    with context.begin_transaction():
        context.run_migrations()
    if engine.dialect.name == "postgresql":
        connection.exec_driver_sql("SELECT pg_advisory_unlock(7000001)")
    connection.commit()
