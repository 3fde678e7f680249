"""Response models of feltlab as a game supplier. The operator's own API: a launched
session, and the wallet transactions it reconciles with
(:mod:`feltlab.server.api.operator`). The admin's side: the operators, the calls feltlab
owes their wallets, and the pit's report of their real-money rounds
(:mod:`feltlab.server.api.admin_operators` and the operators' report of
:mod:`feltlab.server.api.reports`). Kept apart from :mod:`feltlab.server.api.responses`
to keep each module short; they follow its rules (strict, no unknown keys)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from feltlab.server.api.responses import Answer, Figures


class OperatorView(Answer):
    """An operator as an admin sees it: everything but its secrets."""

    id: str
    wallet_url: str
    currencies: dict[str, int]
    """ISO 4217 code → the minor units one chip is worth."""
    timeout_seconds: float
    frame_origins: list[str]
    disabled: bool
    rotating: bool
    """A previous secret is still accepted beside the current one."""
    created_at: str
    updated_at: str


class WalletCallView(Answer):
    """A call feltlab owes (or owed) an operator's wallet, as the outbox keeps it."""

    transaction_id: str
    operator: str
    kind: Literal["bet", "win", "rollback"]
    player: str
    currency: str
    amount: int
    """In the currency's minor units."""
    round_id: int | None
    state: Literal["pending", "acknowledged", "refused", "rolled_back"]
    attempts: int
    next_try_at: str | None
    """When the outbox sends it next; null when it is not due (flagged, held by its
    request, or answered)."""
    last_error: str | None
    flagged: bool
    """Unanswered for the give-up age: no more retries until a person acts."""
    created_at: str
    updated_at: str
    age_seconds: float
    """Seconds since the call was written, when answered."""


class OperatorFigures(Figures):
    """An operator's real-money rounds in one currency at one chip value: the figures in
    chips (as the other reports), and the money ones in the currency's minor units too."""

    operator: str
    currency: str
    chip_value: int
    """Minor units of the currency one chip is worth."""
    handle_minor: int
    win_minor: int
    theo_win_minor: float
    expected_win_minor: float


class OperatorReport(Answer):
    from_: str | None = Field(alias="from")
    to: str | None
    operator: str | None
    """The operator asked for; null: every operator."""
    rows: list[OperatorFigures]
    """By operator, currency and chip value; no totals (currencies do not add up)."""


# --- the operator's own API -------------------------------------------------------------------

class OperatorTransaction(Answer):
    transaction_id: str
    kind: str
    """``bet``, ``win`` or ``rollback``."""
    player: str
    currency: str
    amount: int
    """In the currency's minor units."""
    round_id: str | None
    """The round's id as a decimal string."""
    state: str
    """``pending``, ``acknowledged``, ``refused`` or ``rolled_back``."""
    attempts: int
    last_error: str | None
    created_at: str
    updated_at: str


class OperatorTransactions(Answer):
    transactions: list[OperatorTransaction]
    """Newest first."""
    next_before: int | None
    """Pass as ``before`` for the next page; null on the last."""


class Launched(Answer):
    session: str
    """The session's bearer token: the player API accepts it for this player, currency and
    rule set only."""
    url: str
    """The page that plays the session (frame it); its one-time code is for the page."""
    expires_at: str
    """When the session expires if left idle (each use moves it on)."""


class OperatorSessionView(Answer):
    session: str
    operator: str
    player: str
    currency: str
    chip_value: int
    """Minor units of the currency one chip is worth."""
    rules: str
    mode: Literal["real", "demo"]
    lobby_url: str | None
