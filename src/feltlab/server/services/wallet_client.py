"""feltlab's calls to an operator's wallet (seamless wallet): ``balance``, ``bet``, ``win``
and ``rollback``, each ``POST <wallet_url>/<name>`` with a signed JSON body, each answer's
signature checked.

Every call ends in one of three typed outcomes, never an exception, because what the
money path does next depends only on which: :class:`Applied` (a correctly signed HTTP 200
with an integer ``balance``), :class:`Refused` (a correctly signed answer carrying an
``error``: the wallet said no, and will say no again to the same transaction id) and
:class:`Unclear` (anything else: a timeout, a 5xx, a dropped connection, malformed JSON,
a bad, missing or stale signature on the answer). An unclear bet may or may not have been
debited, so the caller rolls it back; an unclear win is retried under the same
transaction id (the wallet applies each id once).

The body is encoded once (orjson) and those very bytes are signed and sent: re-encoding
could change a byte and break the signature. Each call gets a fresh ``request_id``; a retry
repeats the ``transaction_id``.

The money path calls from many threads, so each operator has one pool of connections kept
alive between calls (:mod:`~feltlab.server.services.wallet_http`), a bounded number of calls
in flight (a thread that cannot get a slot within :attr:`ClientSettings.slot_wait_seconds`
gives up with ``Unclear("busy")`` rather than queue behind a slow wallet), and a circuit
breaker: after :attr:`ClientSettings.breaker_threshold` unclear outcomes in a row, calls
fail at once with ``Unclear("circuit open")`` for a cool-down, then one trial call is let
through, and its outcome closes the circuit or opens it again. A wallet that is down thus
costs a player's request nothing but the answer, not a timeout each.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

import orjson
from sqlalchemy import Engine

from feltlab.server.services.operators import credentials, get_operator
from feltlab.server.services.wallet_http import KeptConnections, NetworkFailure, Reply
from feltlab.server.signatures import HEADER, SignatureError, sign, verify

CallName = Literal["balance", "bet", "win", "rollback"]
JsonValue = str | int | Sequence[str]
BUSY: Final = "busy"
CIRCUIT_OPEN: Final = "circuit open"


@dataclass(frozen=True)
class ClientSettings:
    """How the client treats every operator's wallet."""

    max_concurrent: int = 16
    """Calls in flight to one operator at most (also its pool's connections)."""
    slot_wait_seconds: float = 0.25
    """How long a call waits for a free slot before it is ``Unclear("busy")``."""
    breaker_threshold: int = 5
    """Unclear outcomes in a row that open an operator's circuit."""
    breaker_cooldown_seconds: float = 10.0
    """How long an open circuit fails calls at once before a trial call goes through."""
    rollback_grace_seconds: float = 10.0
    """How long after a bet's call must have ended (its timeout) the rollback queued
    behind it falls due, unless the request recorded the answer first (it crashed)."""


@dataclass(frozen=True)
class Applied:
    """The wallet did it (or had done it already: a retry is answered the same way)."""

    balance: int


@dataclass(frozen=True)
class Refused:
    """The wallet said no, in a correctly signed answer; ``error`` is its reason
    (``INSUFFICIENT_FUNDS``, ``PLAYER_BLOCKED``, ``LIMIT_EXCEEDED``, ``SESSION_EXPIRED``
    or another), ``balance`` the player's balance if it told."""

    error: str
    balance: int | None


@dataclass(frozen=True)
class Unclear:
    """No clear answer: the call may or may not have been applied; ``reason`` says why."""

    reason: str


Outcome = Applied | Refused | Unclear


@dataclass(frozen=True)
class OperatorWallet:
    """What a call needs of an operator: where its wallet is, how long to wait for it, and
    the secrets (sign with ``secret``, accept an answer signed with any of ``accepted``)."""

    operator_id: str
    url: str
    timeout_seconds: float
    secret: str = field(repr=False)
    accepted: tuple[str, ...] = field(repr=False)


def wallet_of(engine: Engine, operator_id: str, even_disabled: bool = False
              ) -> OperatorWallet:
    """The operator's wallet from the registry (refused if the operator is disabled,
    unless ``even_disabled``: what feltlab owes a disabled operator is still paid)."""
    view = get_operator(engine, operator_id)
    keys = credentials(engine, operator_id, even_disabled=even_disabled)
    return OperatorWallet(view.id, view.wallet_url, view.timeout_seconds, keys.secret,
                          keys.accepted)


def classify(status: int, body: bytes, signature: str | None,
             accepted: Sequence[str], now: float | None = None) -> Outcome:
    """The outcome of an answer: its status, raw body and ``Feltlab-Signature`` header.

    >>> classify(503, b"", None, ["s" * 32])
    Unclear(reason='HTTP 503')
    >>> body = b'{"balance":7}'
    >>> classify(200, body, sign("s" * 32, body), ["s" * 32])
    Applied(balance=7)
    >>> classify(200, body, sign("t" * 32, body), ["s" * 32])
    Unclear(reason='answer signature: no secret matches the signature')
    """
    if status != 200 and not 400 <= status < 500:
        return Unclear(f"HTTP {status}")
    try:
        verify(accepted, signature, body, now=now)
    except SignatureError as error:
        return Unclear(f"answer signature: {error}")
    try:
        answer = orjson.loads(body)
    except orjson.JSONDecodeError:
        return Unclear(f"HTTP {status}: malformed JSON")
    if not isinstance(answer, dict):
        return Unclear(f"HTTP {status}: the answer is not a JSON object")
    reason, told = answer.get("error"), answer.get("balance")
    balance = told if isinstance(told, int) and not isinstance(told, bool) else None
    if isinstance(reason, str) and reason:
        return Refused(reason, balance)
    if status == 200 and balance is not None:
        return Applied(balance)
    return Unclear(f"HTTP {status}: no balance and no error in the answer")


class _Line:
    """One operator's pooled connections, its slots and its circuit breaker."""

    def __init__(self, settings: ClientSettings) -> None:
        self.http = KeptConnections(settings.max_concurrent)
        self.slots = threading.BoundedSemaphore(settings.max_concurrent)
        self.lock = threading.Lock()
        self.unclear_in_a_row = 0
        self.opened_at: float | None = None
        self.trial_running = False


Send = Callable[[str, bytes, dict[str, str], float], Reply]
"""A POST of a body with headers and a timeout, as :class:`WalletClient` sends it (a stand-in
for the network in tests); it raises one of :data:`~wallet_http.NetworkFailure` when no
whole answer came back."""


class WalletClient:
    """Calls to operators' wallets, one pool of kept-alive connections an operator
    (:mod:`~feltlab.server.services.wallet_http`), shared by the threads.
    ``clock`` (monotonic seconds) times the circuit breaker; ``send`` stands in for the
    network in tests."""

    def __init__(self, settings: ClientSettings = ClientSettings(),
                 clock: Callable[[], float] = time.monotonic,
                 send: Send | None = None) -> None:
        self.settings, self._clock, self._send = settings, clock, send
        self._lines: dict[str, _Line] = {}
        self._lines_lock = threading.Lock()

    # --- the four calls --------------------------------------------------------------------

    def balance(self, wallet: OperatorWallet, player: str, currency: str, session: str
                ) -> Outcome:
        return self.call(wallet, "balance", {"player": player, "currency": currency,
                                             "session": session})

    def bet(self, wallet: OperatorWallet, transaction_id: str, player: str, currency: str,
            amount: int, round_id: str, session: str, rules: str) -> Outcome:
        if amount <= 0:
            raise ValueError(f"a bet's amount is more than 0, got {amount}")
        return self.call(wallet, "bet", {
            "transaction_id": transaction_id, "player": player, "currency": currency,
            "amount": amount, "round_id": round_id, "session": session, "rules": rules})

    def win(self, wallet: OperatorWallet, transaction_id: str, player: str, currency: str,
            amount: int, round_id: str, bets: Sequence[str], session: str) -> Outcome:
        if amount < 0:
            raise ValueError(f"a win's amount is 0 or more, got {amount}")
        return self.call(wallet, "win", {
            "transaction_id": transaction_id, "player": player, "currency": currency,
            "amount": amount, "round_id": round_id, "bets": list(bets), "session": session})

    def rollback(self, wallet: OperatorWallet, transaction_id: str, rolled_back: str,
                 player: str, currency: str, round_id: str, session: str) -> Outcome:
        return self.call(wallet, "rollback", {
            "transaction_id": transaction_id, "rolled_back": rolled_back, "player": player,
            "currency": currency, "round_id": round_id, "session": session})

    # --- the machinery ---------------------------------------------------------------------

    def call(self, wallet: OperatorWallet, name: CallName,
             fields: Mapping[str, JsonValue]) -> Outcome:
        """``POST <wallet.url>/<name>`` with ``fields`` and a fresh ``request_id``; never
        raises for anything the wallet or the network does."""
        line = self._line(wallet.operator_id)
        if not self._admit(line):
            return Unclear(CIRCUIT_OPEN)
        if not line.slots.acquire(timeout=self.settings.slot_wait_seconds):
            self._settle_trial(line)
            return Unclear(BUSY)
        try:
            outcome = self._post(line, wallet, name, fields)
        finally:
            line.slots.release()
        self._note(line, outcome)
        return outcome

    def _post(self, line: _Line, wallet: OperatorWallet, name: CallName,
              fields: Mapping[str, JsonValue]) -> Outcome:
        body = orjson.dumps({"request_id": secrets.token_hex(16), **fields})
        headers = {"content-type": "application/json", HEADER: sign(wallet.secret, body)}
        url = f"{wallet.url}/{name}"
        try:
            send = self._send or line.http.post
            reply = send(url, body, headers, wallet.timeout_seconds)
        except TimeoutError as error:
            return Unclear(f"timeout ({type(error).__name__})")
        except NetworkFailure as error:
            return Unclear(f"connection: {type(error).__name__}: {error}")
        return classify(reply.status, reply.body, reply.signature, wallet.accepted)

    def _line(self, operator_id: str) -> _Line:
        with self._lines_lock:
            line = self._lines.get(operator_id)
            if line is None:
                line = self._lines[operator_id] = _Line(self.settings)
            return line

    def _admit(self, line: _Line) -> bool:
        """Whether a call may go: the circuit is closed, or it has cooled down and no
        other trial call is under way (this call becomes the trial)."""
        with line.lock:
            if line.opened_at is None:
                return True
            cooled = self._clock() - line.opened_at >= self.settings.breaker_cooldown_seconds
            if not cooled or line.trial_running:
                return False
            line.trial_running = True
            return True

    def _settle_trial(self, line: _Line) -> None:
        """A trial call that never went out (no slot): let the next call be the trial."""
        with line.lock:
            line.trial_running = False

    def _note(self, line: _Line, outcome: Outcome) -> None:
        """Count an outcome: a clear one closes the circuit, the threshold's unclear one
        in a row (or an unclear trial) opens it. ``busy`` says nothing of the wallet."""
        with line.lock:
            line.trial_running = False
            if not isinstance(outcome, Unclear):
                line.unclear_in_a_row, line.opened_at = 0, None
                return
            line.unclear_in_a_row += 1
            if line.opened_at is not None \
                    or line.unclear_in_a_row >= self.settings.breaker_threshold:
                line.opened_at = self._clock()

    def circuit_open(self, operator_id: str) -> bool:
        """Whether calls to the operator fail at once now (its circuit is open and has not
        cooled down yet)."""
        line = self._line(operator_id)
        with line.lock:
            return line.opened_at is not None and (
                self._clock() - line.opened_at < self.settings.breaker_cooldown_seconds)

    def close(self) -> None:
        """Close every operator's connections."""
        with self._lines_lock:
            lines, self._lines = list(self._lines.values()), {}
        for line in lines:
            line.http.close()


__all__ = ["Applied", "ClientSettings", "OperatorWallet", "Outcome", "Refused", "Reply",
           "Unclear", "WalletClient", "classify", "wallet_of"]
