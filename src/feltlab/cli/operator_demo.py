"""``feltlab operator demo``: an operator's integration end to end, on this machine.

It starts the reference operator wallet (``examples/operator_wallet``, so it needs a
clone of the repository) with a fresh secret, registers it as operator ``demo-casino``
in a temporary database (or ``--database``), serves feltlab with its timers on, launches
a signed session for a player and prints what to open. With ``--rounds N`` it plays N
rounds through the API and reconciles them with the wallet's ledger (exit 0 when they
agree, 1 otherwise); without, it serves until Ctrl-C and then stops both servers.
"""

from __future__ import annotations

import contextlib
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any, Final

import typer

from feltlab.cli.demo_processes import (
    DemoUnavailable,
    FeltlabThread,
    WalletProcess,
    check_port_free,
    repository_root,
)
from feltlab.cli.terminal import fail, one_line, output_console

if TYPE_CHECKING:
    from feltlab.cli.demo_rounds import Reconciliation

OPERATOR: Final = "demo-casino"
CURRENCY: Final = "EUR"
CHIP_VALUE: Final = 1
"""Minor units of the currency one chip is worth for the demo operator."""
ACTOR: Final = "cli:operator-demo"
"""Who the audit log names for the demo operator's registration."""
MODES: Final = ("real", "demo")

DemoDatabase = Annotated[str | None, typer.Option(
    "--database", help="Database URL (sqlite:///PATH or postgresql://...); default a "
                       "temporary SQLite database, removed at the end (never "
                       "FELTLAB_DATABASE_URL's or the user's own).")]


def register_operator(database_url: str, wallet: WalletProcess, port: int) -> None:
    """Register :data:`OPERATOR` with the wallet's URL and secret, framed from feltlab's
    own origin. In a database where an earlier demo registered it with the same wallet
    URL, its secret is rotated to the wallet's new one (and it is enabled)."""
    from feltlab.cli.server import _database, _engine
    from feltlab.server.errors import Conflict, DomainError
    from feltlab.server.services.operators import (
        add_operator,
        enable_operator,
        get_operator,
        rotate_secret,
    )

    engine = _engine(_database(database_url))
    try:
        try:
            add_operator(engine, ACTOR, OPERATOR, wallet.url, {CURRENCY: CHIP_VALUE},
                         wallet.secret, timeout_seconds=3.0,
                         frame_origins=(f"http://127.0.0.1:{port}",))
        except Conflict:
            known = get_operator(engine, OPERATOR)
            if known.wallet_url != wallet.url or CURRENCY not in known.currencies:
                raise DemoUnavailable(
                    f"operator {OPERATOR} is already registered in that database with "
                    f"wallet {known.wallet_url} ({', '.join(known.currencies)}); run with "
                    f"another --database, or none (a temporary one)") from None
            rotate_secret(engine, ACTOR, OPERATOR, wallet.secret)
            enable_operator(engine, ACTOR, OPERATOR)
    except DomainError as error:
        raise DemoUnavailable(f"registering operator {OPERATOR}: {error.detail}") from None
    finally:
        engine.dispose()


def show_launch(launched: dict[str, Any], wallet: WalletProcess, server: FeltlabThread,
                player: str, rules: str, mode: str, database: str | None,
                waiting: bool) -> None:
    """The panel: what to open, the session, and where to see the wallet's side."""
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    from feltlab.cli.server import _shown

    def item(label: str, value: str) -> list[Text]:
        return [Text(label, style="bold"), Text(f"  {value}", overflow="fold")]

    shown = _shown(database) if database else "temporary"
    money = "real money through the wallet" if mode == "real" else "play money (no wallet call)"
    parts = [
        *item("Open this page to play (its launch code works once):", launched["url"]),
        *item("Session token (API v1: Authorization: Bearer ...):", launched["session"]),
        *item("feltlab:", f"{server.url} (database: {shown})"),
        *item("Operator wallet:", f"{wallet.url} (log: {wallet.log})"),
        *item("Its ledger (GET /_ledger with the admin token):", wallet.curl_line(player)),
    ]
    if waiting:
        parts.append(Text("Ctrl-C stops both servers.", style="dim"))
    title = f"operator {OPERATOR}: player {player}, {rules}, {money} ({CURRENCY})"
    output_console().print(Panel(Group(*parts), title=title, title_align="left", expand=False))


def play_and_reconcile(wallet: WalletProcess, server: FeltlabThread, session: str,
                       player: str, rules: str, mode: str, rounds: int) -> Reconciliation:
    """Play the rounds, wait for the outbox to send their wins, and reconcile."""
    from feltlab.cli.demo_rounds import play_rounds, reconcile, wait_for_wins

    played = play_rounds(server.url, session, rules, rounds, CHIP_VALUE)

    def read() -> dict[str, Any]:
        return wallet.ledger(player)

    ledger = wait_for_wins(played, read) if mode == "real" else read()
    return reconcile(played, ledger, CURRENCY, mode == "real")


def show_reconciliation(found: Reconciliation) -> None:
    from feltlab.cli.demo_rounds import balance_line, reconciliation_table

    console = output_console()
    console.print(reconciliation_table(found, CURRENCY))
    console.print(balance_line(found))
    console.print("reconciliation: feltlab and the wallet agree" if found.agrees else
                  "reconciliation: feltlab and the wallet DISAGREE")


def serve_until_interrupted(wallet: WalletProcess, server: FeltlabThread) -> int:
    """Wait for Ctrl-C (0), or for either server to stop by itself (1)."""
    try:
        while wallet.alive() and server.alive():
            time.sleep(0.25)
    except KeyboardInterrupt:
        typer.echo("stopping both servers", err=True)
        return 0
    if not wallet.alive():
        typer.echo(f"error: the operator wallet stopped by itself; its log ends: "
                   f"{one_line(wallet.log_tail())}", err=True)
    else:
        typer.echo("error: feltlab's server stopped by itself", err=True)
    return 1


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM stops the demo as Ctrl-C does (both servers stopped cleanly)."""
    def interrupt(number: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave SIGTERM as it is
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_demo(root: Path, port: int, wallet_port: int, database: str | None, rules: str,
             mode: str, player: str, rounds: int) -> int:
    """Start both servers, launch, then play and reconcile or wait; stop both; the exit
    status."""
    import httpx

    from feltlab.cli.demo_rounds import DemoFailed, launch

    with (tempfile.TemporaryDirectory(prefix="feltlab-demo-", ignore_cleanup_errors=True)
          as folder, sigterm_as_interrupt()):
        url = database or f"sqlite:///{Path(folder) / 'feltlab.sqlite3'}"
        wallet = WalletProcess(root, wallet_port, Path(folder))
        server = FeltlabThread(url, port)
        try:
            wallet.start()
            register_operator(url, wallet, port)
            server.start()
            launched = launch(server.url, OPERATOR, wallet.secret, player, CURRENCY, rules,
                              mode)
            show_launch(launched, wallet, server, player, rules, mode, database, not rounds)
            if not rounds:
                return serve_until_interrupted(wallet, server)
            found = play_and_reconcile(wallet, server, launched["session"], player, rules,
                                       mode, rounds)
            show_reconciliation(found)
            return 0 if found.agrees else 1
        except (DemoUnavailable, DemoFailed) as error:
            typer.echo(f"error: {one_line(str(error))}", err=True)
            return 1
        except httpx.HTTPError as error:  # a server that stopped answering
            typer.echo(f"error: {one_line(f'{type(error).__name__}: {error}')}", err=True)
            return 1
        except KeyboardInterrupt:
            typer.echo("interrupted: stopping both servers", err=True)
            return 130
        finally:
            server.stop()
            wallet.stop()


def register(operator_app: typer.Typer) -> None:
    """Add ``operator demo`` to the ``operator`` commands."""

    @operator_app.command("demo")
    def operator_demo_command(
        port: Annotated[int, typer.Option(min=1, max=65535, help="feltlab's port.")] = 8000,
        wallet_port: Annotated[int, typer.Option(
            min=1, max=65535, help="The operator wallet's port.")] = 8001,
        database: DemoDatabase = None,
        rules: Annotated[str, typer.Option(help="The rule set the session plays.")
                         ] = "high-card-flush",
        mode: Annotated[str, typer.Option(
            help="real (money through the wallet) or demo (play money).")] = "real",
        player: Annotated[str, typer.Option(help="The operator's player id.")
                          ] = "demo-player",
        rounds: Annotated[int, typer.Option(
            min=0, help="Play this many rounds, reconcile them with the wallet's ledger "
                        "and stop (exit 1 if they disagree); 0: serve until Ctrl-C.")] = 0,
    ) -> None:
        """An operator's integration end to end: run the reference operator wallet and
        feltlab, register the wallet as operator demo-casino, launch a signed session and
        print the page to open.

        Needs a clone of the repository (the wallet is examples/operator_wallet). The
        database is a temporary SQLite one unless --database is given; the wallet's ledger
        is always temporary. With --rounds N, plays N rounds itself (10 on the ante,
        always the last option) and reconciles them with the wallet's ledger.
        """
        if mode not in MODES:
            fail(f"--mode: expected real or demo, got {mode!r}")
        if port == wallet_port:
            fail("--port and --wallet-port must differ")
        try:
            root = repository_root()
            check_port_free(port, "--port")
            check_port_free(wallet_port, "--wallet-port")
        except DemoUnavailable as error:
            fail(str(error))
        if database is not None:
            from feltlab.cli.server import _database

            database = _database(database)
        raise typer.Exit(run_demo(root, port, wallet_port, database, rules, mode, player,
                                  rounds))
