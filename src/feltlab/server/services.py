"""What every request handler needs: the database, the password hasher, the settings,
the metrics and the live-update hub, kept on ``app.state.services``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from argon2 import PasswordHasher
from fastapi import Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from feltlab.server.auth import AuthSettings
from feltlab.server.db import transaction
from feltlab.server.live import Hub
from feltlab.server.metrics import Metrics
from feltlab.server.notify import Announcer


@dataclass
class Services:
    engine: Engine
    sessions: sessionmaker[Session]
    hasher: PasswordHasher
    auth: AuthSettings
    metrics: Metrics = field(default_factory=Metrics)
    hub: Hub = field(default_factory=Hub)
    announcer: Announcer | None = None
    readers: sessionmaker[Session] | None = None
    snapshots: dict[int, Any] = field(default_factory=dict)  # live views shared per table

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A transaction that only reads (beside the writer, on SQLite)."""
        with transaction(self.readers or self.sessions) as session:
            yield session

    def publish(self, table_id: int) -> None:
        """Tell every watcher of the table, in every worker, that it changed."""
        if self.announcer is None:
            self.hub.publish(table_id)
        else:
            self.announcer.publish(table_id)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        with transaction(self.sessions) as session:
            yield session


def services(request: Request) -> Services:
    found: Services = request.app.state.services
    return found
