"""Rule sets published by admins: stored once and never changed (a change is a new id),
audit-logged, listed and dealt like the built-in ones, and withdrawable from new tables.
What a rule set must pass to be published is :mod:`.publish_checks`'s.

The registry (:mod:`feltlab.core.registry`) reads them through :class:`DatabaseRuleSets`,
so every part of feltlab that loads a rule set by id (the engine, the rounds, the views)
finds a published one without knowing where it came from.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from feltlab.core import registry
from feltlab.core.rules import Rules, RulesError, load_published, parse_rules
from feltlab.server.auth import Caller
from feltlab.server.clock import aware, now
from feltlab.server.errors import Conflict, Refused, not_found
from feltlab.server.models import PublishedRuleSet
from feltlab.server.services import audit, publish_checks
from feltlab.server.services.context import Services
from feltlab.server.services.database import session_factory, transaction


class Reads(Protocol):
    def read(self) -> AbstractContextManager[Session]:
        """A transaction that only reads."""

log = logging.getLogger("feltlab.server")


class DatabaseRuleSets:
    """The registry's source of published rule sets: this worker's database (or the one a
    command names: :func:`on_engine`)."""

    def __init__(self, found: Reads) -> None:
        self.found = found

    def text(self, rules_id: str) -> str | None:
        with self.found.read() as session:
            stored = session.get(PublishedRuleSet, rules_id)
            return None if stored is None else stored.toml

    def open_ids(self) -> list[str]:
        with self.found.read() as session:
            return list(session.scalars(
                select(PublishedRuleSet.id).where(PublishedRuleSet.withdrawn_at.is_(None))
                .order_by(PublishedRuleSet.id)))


def install(found: Services) -> None:
    """Make this worker's published rule sets known to the registry."""
    registry.set_published_source(DatabaseRuleSets(found))


def review_published(found: Services) -> None:
    """At start-up: log each published rule set (not withdrawn) over the house exposure
    limit, which opens no table (published before the limit, or under a higher one)."""
    for rules_id in DatabaseRuleSets(found).open_ids():
        try:
            rules = load_published(rules_id)
        except RulesError as error:
            log.warning("published rule set %s does not load: %s", rules_id, error)
            continue
        problem = None if rules is None else publish_checks.exposure_problem(
            rules, found.exposure_limit)
        if problem is not None:
            log.warning("published rule set %s opens no new table: %s", rules_id, problem)


@dataclass(frozen=True)
class _EngineReads:
    sessions: sessionmaker[Session]

    def read(self) -> AbstractContextManager[Session]:
        return transaction(self.sessions)


def on_engine(engine: Engine) -> DatabaseRuleSets:
    """The published rule sets of the database behind ``engine``, for a process that serves
    nothing (a command of the command line)."""
    return DatabaseRuleSets(_EngineReads(session_factory(engine)))


@dataclass(frozen=True)
class Published:
    """A publication's answer, and whether it stored something new (201) or found the
    same rule set already there (200)."""

    entry: dict[str, Any]
    created: bool


def _design(text: str) -> Rules:
    try:
        return parse_rules(text, "rules")
    except (RulesError, ValueError) as error:
        raise Refused(str(error)) from None


def publish_checks_of(found: Services, text: str) -> dict[str, Any]:
    """What publishing ``text`` would find (:func:`.publish_checks.checks`)."""
    return publish_checks.checks(_design(text), found.exposure_limit).to_json()


def publish(found: Services, admin: Caller, text: str, allow_player_edge: bool = False
            ) -> Published:
    """Store a new rule set under its own id. The same content again answers the stored
    entry; an id that is taken (a built-in, or published with other content) is a
    conflict; a rule set that does not validate is refused naming the field, and so is
    one over the house exposure limit, or favouring the player without
    ``allow_player_edge`` (:func:`.publish_checks.require_publishable`)."""
    rules = _design(text)
    if rules.id in registry.builtin_ids():
        raise Conflict(f"the id {rules.id!r} is a built-in rule set's; give the design an id "
                       "of its own")
    with found.read() as session:  # a taken id first: no check would let it through
        _check_not_taken(session.get(PublishedRuleSet, rules.id), rules)
    favoured = publish_checks.require_publishable(rules, found.exposure_limit,
                                                  allow_player_edge)
    with found.transaction() as session:
        stored = session.get(PublishedRuleSet, rules.id, with_for_update=True)
        if stored is not None:
            _check_not_taken(stored, rules)
            return Published(entry_json(stored), created=False)
        stored = PublishedRuleSet(id=rules.id, name=rules.name, game=rules.game,
                                  fingerprint=rules.fingerprint, toml=text,
                                  published_by=admin.username, published_at=now())
        session.add(stored)
        session.flush()
        allowed = {"allow_player_edge": True,
                   "player_edges": {name: float(edge) for name, edge in favoured.items()}
                   } if favoured else {}
        audit.record(session, admin.username, "ruleset_published", rules=rules.id,
                     fingerprint=rules.fingerprint, game=rules.game, **allowed)
        return Published(entry_json(stored), created=True)


def _check_not_taken(stored: PublishedRuleSet | None, rules: Rules) -> None:
    if stored is not None and stored.fingerprint != rules.fingerprint:
        raise Conflict(f"the id {rules.id!r} is taken by a published rule set with other "
                       "content; a published rule set never changes: give it a new id")


def withdraw(found: Services, admin: Caller, rules_id: str) -> dict[str, Any]:
    """Stop new tables from using a published rule set (its rounds still settle and
    verify; tables already open keep it)."""
    with found.transaction() as session:
        stored = session.get(PublishedRuleSet, rules_id[:64], with_for_update=True)
        if stored is None:
            raise not_found(f"published rule set {rules_id[:64]!r}")
        if stored.withdrawn_at is None:
            stored.withdrawn_at = now()
            audit.record(session, admin.username, "ruleset_withdrawn", rules=stored.id,
                         fingerprint=stored.fingerprint)
        return entry_json(stored)


def list_published(found: Services) -> list[dict[str, Any]]:
    """Every published rule set, withdrawn ones included, in id order."""
    with found.read() as session:
        return [entry_json(stored) for stored in
                session.scalars(select(PublishedRuleSet).order_by(PublishedRuleSet.id))]


def entry_json(stored: PublishedRuleSet) -> dict[str, Any]:
    withdrawn = stored.withdrawn_at
    return {"id": stored.id, "name": stored.name, "game": stored.game,
            "fingerprint": stored.fingerprint, "published_by": stored.published_by,
            "published_at": aware(stored.published_at).isoformat(),
            "withdrawn_at": None if withdrawn is None else aware(withdrawn).isoformat()}
