"""Checks shared by the server tests: hidden cards, and the ledger's books."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import create_engine, text

from feltlab.server.services.ledger_check import check_ledger

CARD_TOKEN = re.compile(r"^(?:[2-9TJQKA])[shdc]$")


def card_tokens(document: Any) -> set[str]:
    """Every card written anywhere in a JSON document."""
    found: set[str] = set()
    if isinstance(document, dict):
        for value in document.values():
            found |= card_tokens(value)
    elif isinstance(document, list):
        for value in document:
            found |= card_tokens(value)
    elif isinstance(document, str):
        found |= {word for word in document.split() if CARD_TOKEN.match(word)}
    return found


def books(url: str) -> dict[str, Any]:
    """The ledger read straight from the database: entry sum, unbalanced transactions,
    wallets whose balance is not the sum of their entries, negative player wallets."""
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as connection:
        total = connection.execute(text("SELECT COALESCE(SUM(amount), 0) FROM ledger_entries")
                                   ).scalar_one()
        unbalanced = connection.execute(text(
            "SELECT transaction_id FROM ledger_entries GROUP BY transaction_id "
            "HAVING SUM(amount) <> 0")).all()
        disagreeing = connection.execute(text(
            "SELECT w.name FROM wallets w LEFT JOIN (SELECT wallet_id, SUM(amount) AS s "
            "FROM ledger_entries GROUP BY wallet_id) e ON e.wallet_id = w.id "
            "WHERE w.balance <> COALESCE(e.s, 0)")).all()
        negative = connection.execute(text(
            "SELECT name FROM wallets WHERE NOT house AND balance < 0")).all()
    engine.dispose()
    return {"sum": int(total), "unbalanced": len(unbalanced), "disagreeing": len(disagreeing),
            "negative": len(negative)}


def assert_books_balance(url: str) -> None:
    """The books read straight from the database balance, and ``feltlab ledger check``
    (which also holds every round's money to its seats) finds nothing out of line."""
    assert books(url) == {"sum": 0, "unbalanced": 0, "disagreeing": 0, "negative": 0}
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    report = check_ledger(engine)
    engine.dispose()
    assert report.sound, report.problems
