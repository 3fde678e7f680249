"""The designer's running computations (SQLAlchemy 2 model on
:class:`~feltlab.server.models.Base`; migration 0014 creates it): the limit on designs
computed at once holds across every worker and host through this table
(:mod:`feltlab.server.services.designer_slots`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from feltlab.server.models import Base


class DesignerJob(Base):
    """A design being computed, in one of the deployment's slots (``slot``: 0 up to the
    setting ``designer_jobs``; the key, so a slot holds one computation), for one account
    (unique: one computation per account). ``holder`` names the server process computing
    it (``host:pid``), which renews ``renewed_at`` while it runs: a row not renewed for
    the lease (a killed worker) frees its slot."""

    __tablename__ = "designer_jobs"

    slot: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), unique=True)
    kind: Mapped[str] = mapped_column(String(20))
    holder: Mapped[str] = mapped_column(String(100))
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    renewed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
