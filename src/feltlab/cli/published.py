"""Rule sets published into the table server's database, for the commands that load a
rule set by id.

An admin publishes a design from the designer into the server's database; a command finds
it by its id there when ``--database`` or ``FELTLAB_DATABASE_URL`` names that database.
The database is opened (and migrated, as every command on it does) only for an id that
is not a built-in one, so a command on a built-in rule set stays as quick as without.
"""

from __future__ import annotations

from functools import cached_property
from typing import Annotated

import typer

from feltlab.core import registry

Database = Annotated[str | None, typer.Option(
    "--database", help="The table server's database (sqlite:///PATH or postgresql://...) "
                       "to find a published rule set's id in; default "
                       "FELTLAB_DATABASE_URL, if set.")]


class PublishedOnDemand:
    """The registry's source of published rule sets for one command: the database named,
    opened when first asked for an id (``before``: the source the process had, which the
    next command finds again)."""

    def __init__(self, database: str | None, before: registry.PublishedSource | None
                 ) -> None:
        self.database = database
        self.before = before

    @cached_property
    def source(self) -> registry.PublishedSource | None:
        from feltlab.server.settings import named_database_url

        url = self.database or named_database_url()
        if url is None:
            return None
        from feltlab.cli.server import _database, _engine
        from feltlab.server.services.rulesets import on_engine

        return on_engine(_engine(_database(url)))

    def text(self, rules_id: str) -> str | None:
        return None if self.source is None else self.source.text(rules_id)

    def open_ids(self) -> list[str]:
        return [] if self.source is None else self.source.open_ids()


def find_published(database: str | None) -> None:
    """Let the rule-set ids this command loads name rule sets published in ``database``
    (default ``FELTLAB_DATABASE_URL``, if set). A process that already reads published
    rule sets (a server's, running a command in its tests) keeps its own unless
    ``database`` is given."""
    current = registry.published_source()
    kept = current.before if isinstance(current, PublishedOnDemand) else current
    if database is None and kept is not None:
        registry.set_published_source(kept)
    else:
        registry.set_published_source(PublishedOnDemand(database, kept))
