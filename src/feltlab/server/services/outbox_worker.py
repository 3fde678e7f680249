"""The wallet outbox's worker: a daemon thread in each server process that sends the
calls :mod:`feltlab.server.services.outbox` holds as they fall due, outside any database
transaction, and records each answer (a batch's answers in one transaction)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from datetime import datetime
from typing import Final

from sqlalchemy import Engine

from feltlab.server.clock import now as clock_now
from feltlab.server.errors import NotFound
from feltlab.server.services.outbox import OutboxSettings, WalletCall, claim, record_all
from feltlab.server.services.wallet_client import (
    OperatorWallet,
    Outcome,
    Unclear,
    WalletClient,
    wallet_of,
)

log = logging.getLogger("feltlab.server")
DEFAULT_SETTINGS: Final = OutboxSettings()


def send(client: WalletClient, wallet: OperatorWallet, call: WalletCall) -> Outcome:
    """One try of ``call`` at the wallet (no database transaction is open meanwhile)."""
    round_id = str(call.round_id) if call.round_id is not None else ""
    if call.kind == "bet":
        return client.bet(wallet, call.transaction_id, call.player, call.currency,
                          call.amount, round_id, call.session, call.rules)
    if call.kind == "win":
        return client.win(wallet, call.transaction_id, call.player, call.currency,
                          call.amount, round_id, call.bets, call.session)
    return client.rollback(wallet, call.transaction_id, call.rolled_back or "", call.player,
                           call.currency, round_id, call.session)


WALLET_KEPT_SECONDS: Final = 10.0
"""How long the worker keeps an operator's wallet (its URL, timeout and secrets)."""


class OutboxWorker:
    """A daemon thread that sends the due calls: every
    :attr:`~OutboxSettings.tick_seconds` (at once after a full batch) it claims a batch,
    calls the wallets outside any database transaction, and records each answer. An
    error is logged and the loop goes on; the row is sent again once its claim lapses.
    ``clock`` is the time it works by (tests move it)."""

    def __init__(self, engine: Engine, client: WalletClient,
                 settings: OutboxSettings = DEFAULT_SETTINGS,
                 clock: Callable[[], datetime] = clock_now, name: str = "wallet-outbox"
                 ) -> None:
        self.engine, self.client, self.settings, self.clock = engine, client, settings, clock
        self.name = name
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wallets: dict[str, tuple[float, OperatorWallet | Unclear]] = {}

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def run_once(self) -> int:
        """Claim, send and record one batch (the answers in one transaction); answers how
        many calls were sent. A call whose answer is not recorded (the process died, the
        database was away) is sent again once its claim lapses: the wallet applies each
        transaction id once."""
        calls = claim(self.engine, self.clock(), self.settings)
        answers = [(call.transaction_id, self._send(call)) for call in calls]
        if answers:
            try:
                record_all(self.engine, answers, self.clock(), self.settings)
            except Exception:  # the claim lapses and the calls are sent again
                log.exception("the answers to %d wallet calls could not be recorded",
                              len(answers))
        return len(calls)

    def _send(self, call: WalletCall) -> Outcome:
        wallet = self._wallet(call.operator_id)
        if isinstance(wallet, Unclear):
            return wallet
        return send(self.client, wallet, call)

    def _wallet(self, operator_id: str) -> OperatorWallet | Unclear:
        """The operator's wallet, read again every :data:`WALLET_KEPT_SECONDS` (two reads
        of the registry for each win cost more than the win's own call; a rotated secret
        is taken up within that time, and the operator accepts both meanwhile)."""
        moment = time.monotonic()
        kept = self._wallets.get(operator_id)
        if kept is not None and moment - kept[0] < WALLET_KEPT_SECONDS:
            return kept[1]
        wallet: OperatorWallet | Unclear
        try:
            wallet = wallet_of(self.engine, operator_id, even_disabled=True)
        except NotFound as error:  # removed: nothing is signed
            wallet = Unclear(f"operator: {error}")
        self._wallets[operator_id] = moment, wallet
        return wallet

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                sent = self.run_once()
            except Exception:  # the database away a moment: try again next tick
                log.exception("the wallet outbox worker's batch failed; retrying")
                sent = 0
            if sent < self.settings.batch:
                self._stop.wait(self.settings.tick_seconds)
