"""The tables of the pit's figures (SQLAlchemy 2 models on
:class:`~feltlab.server.models.Base`; whatever needs the whole schema, the migrations'
environment, imports this module too): one row per settled seat, and the sums of the
days that are over. Migration 0005 creates them; :mod:`feltlab.server.services.figures`
writes the seats' rows and :mod:`feltlab.server.services.reports` the days' sums."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from feltlab.server.models import Base


class SeatFigure(Base):
    """The pit's figures of one settled seat (migration 0005), written when the round
    settles (:func:`feltlab.analysis.figures.seat_figures`): the reports are sums of these
    rows. ``day`` is the settlement's UTC day (``YYYY-MM-DD``), kept for grouping;
    ``costs`` is the JSON list of the seat's decisions as ``[pattern, EV given away in
    main-wager units]``."""

    __tablename__ = "seat_figures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    round_seat_id: Mapped[int] = mapped_column(ForeignKey("round_seats.id"), unique=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("rounds.id"))
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    rules_id: Mapped[str] = mapped_column(String(64))
    currency: Mapped[str] = mapped_column(String(10))
    settled_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    day: Mapped[str] = mapped_column(String(10))
    handle: Mapped[int] = mapped_column(BigInteger)
    win: Mapped[int] = mapped_column(BigInteger)
    theo_win: Mapped[float] = mapped_column(Double)
    expected_win: Mapped[float] = mapped_column(Double)
    variance: Mapped[float] = mapped_column(Double)
    main_stake: Mapped[int] = mapped_column(BigInteger)
    first_seat: Mapped[int] = mapped_column(SmallInteger)
    """1 on the round's first seat, 0 on the others: the reports count rounds by summing
    it (a sum, unlike a count of distinct rounds, adds up across groups)."""
    costs: Mapped[str] = mapped_column(Text, default="[]")

    __table_args__ = (
        # covering, in the order the reports group by: a span of days is read from the
        # index alone, its seats already in order of day, rule set, table and player
        Index("seat_figures_by_day", "currency", "day", "rules_id", "table_id", "user_id",
              "first_seat", "handle", "win", "theo_win", "expected_win", "variance"),
        Index("seat_figures_by_user", "user_id", "settled_at"),
    )


class SeatFigureDay(Base):
    """The sums of ``seat_figures`` by day, rule set, table and player, for days that are
    over (migration 0005): the reports read finished days here and only today's seats
    from ``seat_figures``. Written by the reports themselves, a day at a time, once the
    day has ended (no seat is settled into a past day; ``feltlab db backfill`` clears
    them)."""

    __tablename__ = "seat_figure_days"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    currency: Mapped[str] = mapped_column(String(10))
    day: Mapped[str] = mapped_column(String(10))
    rules_id: Mapped[str] = mapped_column(String(64))
    table_id: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(BigInteger)
    seats: Mapped[int] = mapped_column(BigInteger)
    handle: Mapped[int] = mapped_column(BigInteger)
    win: Mapped[int] = mapped_column(BigInteger)
    theo_win: Mapped[float] = mapped_column(Double)
    expected_win: Mapped[float] = mapped_column(Double)
    variance: Mapped[float] = mapped_column(Double)

    __table_args__ = (UniqueConstraint("currency", "day", "rules_id", "table_id", "user_id",
                                       name="one_sum_per_day_and_seat"),)


class ReportDays(Base):
    """Per currency, the last day whose seats are summed in ``seat_figure_days``."""

    __tablename__ = "report_days"

    currency: Mapped[str] = mapped_column(String(10), primary_key=True)
    summed_through: Mapped[str] = mapped_column(String(10))
