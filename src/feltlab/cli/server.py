"""The server's commands: ``serve``, ``db upgrade``, ``db backfill``, ``admin create``,
``verify`` and ``audit verify`` (``register(app)`` adds them to the CLI)."""

from __future__ import annotations

import getpass
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from feltlab.server.settings import Settings

GRACEFUL_SECONDS = 10
"""At SIGTERM, requests still running after this long are cancelled (a backstop: live
watchers close at once, and money requests commit or roll back as a whole)."""

Database = Annotated[str | None, typer.Option(
    "--database", help="Database URL (sqlite:///PATH or postgresql://...); default "
                       "FELTLAB_DATABASE_URL or SQLite in the user's data folder.")]

PublishedHead = Annotated[str | None, typer.Option(
    "--head", help="An audit head's hash kept outside the database (the server's log, the "
                   "console): it must still be one of the log's lines.")]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def _settings(database: str | None) -> Settings:
    """The server's settings from the environment (:mod:`feltlab.server.settings`), on
    ``database`` when given, its URL checked and normalised."""
    from dataclasses import replace

    from feltlab.server.services.database import DatabaseURLError, normalise_url
    from feltlab.server.settings import SettingsError, from_environment

    try:
        found = from_environment()
        return replace(found, database_url=normalise_url(database or found.database_url))
    except (SettingsError, DatabaseURLError) as error:
        raise _fail(str(error)) from None


def _database(database: str | None) -> str:
    return _settings(database).database_url


def _engine(url: str) -> Engine:
    from sqlalchemy.exc import SQLAlchemyError

    from feltlab.server.migrate import upgrade
    from feltlab.server.services.database import make_engine

    engine = make_engine(url)
    try:
        upgrade(engine)
    except (SQLAlchemyError, OSError) as error:
        raise _fail(f"cannot open the database {_shown(url)}: "
                    f"{str(getattr(error, 'orig', error)).splitlines()[0]}") from None
    return engine


def _shown(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def register(app: typer.Typer) -> None:
    """Add the server's commands to ``app``."""

    @app.command("serve")
    def serve_command(
        host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(min=1, max=65535, help="Port.")] = 8000,
        database: Database = None,
        workers: Annotated[int, typer.Option(min=1, max=64, help="Worker processes.")] = 1,
        forwarded_allow_ips: Annotated[str | None, typer.Option(
            help="Proxies whose X-Forwarded-Proto/-For are believed, by uvicorn and the "
                 "login throttle (comma-separated "
                 "addresses, or *); default FORWARDED_ALLOW_IPS or 127.0.0.1.")] = None,
    ) -> None:
        """Run the table server (API v1 under /api/v1, OpenAPI at /openapi.json)."""
        from dataclasses import replace

        import uvicorn

        from feltlab.server import logs
        from feltlab.server.metrics import clear_folder, metrics_folder
        from feltlab.server.settings import hand_to_workers, proxies

        logs.configure()  # this process's lines (the migrations', warnings) as JSON too
        settings = replace(_settings(database), warm=True)
        if forwarded_allow_ips is not None:  # the login throttle trusts the same proxies
            auth = replace(settings.auth, trusted_proxies=proxies(forwarded_allow_ips)
                           or settings.auth.trusted_proxies)
            settings = replace(settings, auth=auth)
        url = settings.database_url
        _engine(url)  # migrate once before the workers start
        hand_to_workers(settings)  # the workers build the app from an import string
        clear_folder(metrics_folder(url))  # /metrics counts from this start
        typer.echo(f"feltlab table server on http://{host}:{port}/ (database {_shown(url)})",
                   err=True)
        uvicorn.run("feltlab.app:create_from_environment", factory=True, host=host,
                    port=port, workers=workers, log_level="warning", access_log=False,
                    forwarded_allow_ips=",".join(settings.auth.trusted_proxies),
                    log_config=logs.LOG_CONFIG,
                    timeout_graceful_shutdown=GRACEFUL_SECONDS)

    db_app = typer.Typer(help="The server's database.", no_args_is_help=True)
    app.add_typer(db_app, name="db")

    @db_app.command("upgrade")
    def db_upgrade_command(database: Database = None) -> None:
        """Apply the schema migrations (serve does this itself at start-up)."""
        from feltlab.server.migrate import current_revision

        url = _database(database)
        engine = _engine(url)
        typer.echo(f"database {_shown(url)} at revision {current_revision(engine)}")

    @db_app.command("backfill")
    def db_backfill_command(database: Database = None) -> None:
        """Write the pit's figures of every settled round that has none (rounds settled
        before the figures existed), replaying each through the engine and the exact
        math; shows its progress."""
        from rich.progress import Progress

        from feltlab.server.services.database import session_factory
        from feltlab.server.services.figures import backfill

        engine = _engine(_database(database))
        with Progress(transient=False) as progress:
            task = progress.add_task("rounds", total=None)

            def shown(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            done = backfill(session_factory(engine), shown)
        engine.dispose()
        typer.echo(f"figures written for {done} round{'s' if done != 1 else ''}")

    admin_app = typer.Typer(help="Administer the server's accounts.", no_args_is_help=True)
    app.add_typer(admin_app, name="admin")

    @admin_app.command("create")
    def admin_create_command(
        name: Annotated[str, typer.Argument(help="The admin's username.")],
        database: Database = None,
        password_stdin: Annotated[bool, typer.Option(
            "--password-stdin", help="Read the password from standard input.")] = False,
    ) -> None:
        """Create an admin account (the password is asked for, or read from stdin)."""
        from feltlab.server.auth import password_hasher
        from feltlab.server.errors import DomainError
        from feltlab.server.services.accounts import create_admin

        settings = _settings(database)
        engine = _engine(settings.database_url)
        if password_stdin or not sys.stdin.isatty():
            password = sys.stdin.readline().rstrip("\n")
        else:
            password = getpass.getpass("Password: ")
            if getpass.getpass("Again: ") != password:
                raise _fail("the two passwords differ")
        try:
            create_admin(engine, password_hasher(settings.auth), name, password)
        except DomainError as error:
            raise _fail(error.detail) from None
        typer.echo(f"admin {name} created")

    @app.command("verify")
    def verify_command(
        round_file: Annotated[Path, typer.Argument(
            metavar="ROUND.json", help="A complete round as GET /api/v1/rounds/ID answers.")],
    ) -> None:
        """Check a round: seed against commitment, the deck, every card, the settlement."""
        from feltlab.core.jsonio import loads
        from feltlab.server.verify import VerifyError, verify_round

        try:
            text = round_file.read_text("utf-8")
            summary = verify_round(loads(text))
        except OSError as error:
            raise _fail(f"cannot read {round_file}: {error.strerror}") from None
        except (VerifyError, ValueError) as error:
            raise _fail(f"{round_file}: {error}") from None
        typer.echo(json.dumps(summary, indent=2))

    audit_app = typer.Typer(help="The hash-chained audit log.", no_args_is_help=True)
    app.add_typer(audit_app, name="audit")

    @audit_app.command("verify")
    def audit_verify_command(database: Database = None, head: PublishedHead = None) -> None:
        """Check the audit log's hash chain and its head (cut short, rewritten, stale);
        exit 1 and say what is wrong if it is broken."""
        from feltlab.server.services.audit import verify_database

        published = None if head is None else head.strip().lower()
        if published is not None and not re.fullmatch(r"[0-9a-f]{64}", published):
            raise _fail("--head must be a head's hash: 64 hex digits")
        report = verify_database(_engine(_database(database)), published)
        if report.intact and report.head is not None:
            found = ("" if report.published_at is None
                     else f"; the published head is line {report.published_at}")
            typer.echo(f"audit log intact: {report.lines} lines, head {report.head.hash}"
                       f"{found}")
            return
        where = "" if report.broken_at is None else f" at line id {report.broken_at}"
        typer.echo(f"audit log BROKEN{where}: {report.reason}", err=True)
        raise typer.Exit(1)
