"""An operator's players and their sessions: the signed launch that opens one, the
one-time code its framed page trades for the session's token, the end of a session, and
what a session's token may do.

A session's token is a bearer token like a player's login (an ``auth_tokens`` row: it
idles out after the same 30 minutes, and ending the session revokes it), marked by its
prefix (:data:`TOKEN_PREFIX`, which no login token can start with) so that the routers
can send its money requests down the operator's path without a query. It is for one
player, currency, rule set and mode. An operator's player has an account of its own,
found by (operator, player id), with no password anybody knows: it signs in only through
its operator's launches.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final
from urllib.parse import urlsplit

from sqlalchemy import bindparam, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from feltlab.server.auth import Caller, dummy_hash, token_digest
from feltlab.server.clock import aware, now
from feltlab.server.errors import Forbidden, NotFound, Unauthorized
from feltlab.server.fairness import new_server_seed
from feltlab.server.models import AuthToken, GameTable, User, table_of
from feltlab.server.operator_models import Operator, OperatorPlayer, OperatorSession
from feltlab.server.revocations import Revoked
from feltlab.server.services import audit, ledger
from feltlab.server.services.accounts import me
from feltlab.server.services.context import Services
from feltlab.server.services.operators import InvalidField, check_origin, get_operator
from feltlab.server.services.tables import next_commitment, table_rules
from feltlab.server.services.wallet_client import Applied, wallet_of
from feltlab.server.views import table_json

TOKEN_PREFIX: Final = "op."
"""How an operator session's token begins: a login token is URL-safe base64, which has
no ``.``, so no login token starts this way."""
PLAYER_PATTERN: Final = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
MODES: Final = ("real", "demo")
LAUNCH_CODE_MINUTES: Final = 5
"""How long the launch URL's one-time code may wait for its page to trade it."""
USERNAME_MAX: Final = 32


def is_session_token(token: str) -> bool:
    """Whether ``token`` is an operator session's (by its prefix alone: checked later).

    >>> is_session_token("op.abc"), is_session_token("abc")
    (True, False)
    """
    return token.startswith(TOKEN_PREFIX)


def player_username(operator_id: str, player: str) -> str:
    """The account name of an operator's player: ``operator~player`` when it fits, else
    the operator and a digest of the player id. ``~`` is in no name a person registers.

    >>> player_username("acme", "bob")
    'acme~bob'
    >>> player_username("acme", "x" * 64)
    'acme~0a3da377abf8fdbe'
    """
    name = f"{operator_id}~{player}"
    if len(name) <= USERNAME_MAX:
        return name
    digest = hashlib.sha256(f"{operator_id}\0{player}".encode()).hexdigest()
    return f"{operator_id[:USERNAME_MAX - 17]}~{digest[:16]}"


@dataclass(frozen=True)
class Launched:
    """What a launch answers the operator (``POST /api/v1/operator/sessions``)."""

    session: str
    url: str
    expires_at: datetime

    def as_json(self) -> dict[str, str]:
        return {"session": self.session, "url": self.url,
                "expires_at": self.expires_at.isoformat()}


@dataclass(frozen=True)
class SessionView:
    """A session as the page and the money path need it."""

    id: int
    session: str
    operator_id: str
    user_id: int
    player: str
    currency: str
    chip_value: int
    rules_id: str
    mode: str
    lobby_url: str | None

    def as_json(self) -> dict[str, object]:
        return {"session": self.session, "operator": self.operator_id,
                "player": self.player, "currency": self.currency,
                "chip_value": self.chip_value, "rules": self.rules_id, "mode": self.mode,
                "lobby_url": self.lobby_url}


def _view(row: OperatorSession) -> SessionView:
    return SessionView(row.id, row.session, row.operator_id, row.user_id, row.player,
                       row.currency, row.chip_value, row.rules_id, row.mode, row.lobby_url)


# --- the launch -------------------------------------------------------------------------------

def check_player(player: object) -> str:
    if not isinstance(player, str) or PLAYER_PATTERN.fullmatch(player) is None:
        raise InvalidField("player", "must be 1-64 characters of A-Z, a-z, 0-9, _ . : -")
    return player


def check_lobby_url(lobby_url: str | None, frame_origins: tuple[str, ...]) -> str | None:
    """A lobby URL must be on one of the operator's framing origins (the page links to
    it: nobody may send a player elsewhere through a launch)."""
    if lobby_url is None:
        return None
    parts = urlsplit(lobby_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    try:
        check_origin(origin)
    except InvalidField:
        raise InvalidField("lobby_url", f"must be an http(s) URL, got {lobby_url!r}") from None
    if len(lobby_url) > 500 or not lobby_url.isprintable() or " " in lobby_url:
        raise InvalidField("lobby_url", "must be one printable URL of at most 500 characters")
    if origin not in frame_origins:
        raise InvalidField("lobby_url", f"must be on one of the operator's frame origins "
                                        f"({', '.join(frame_origins) or 'none given'}), "
                                        f"got {origin}")
    return lobby_url


def launch(found: Services, operator_id: str, player: str, currency: str, rules_id: str,
           mode: str, lobby_url: str | None, base_url: str) -> Launched:
    """A new session for the operator's player (the player's account made at its first
    launch): its token, and the URL of the page that plays it, which carries a one-time
    code for the page to trade for the token (never the token itself)."""
    operator = get_operator(found.engine, operator_id)
    if operator.disabled:
        raise Forbidden(f"operator {operator_id!r} is disabled: it opens no new session")
    check_player(player)
    if mode not in MODES:
        raise InvalidField("mode", f"must be real or demo, got {mode!r}")
    if currency not in operator.currencies:
        raise InvalidField("currency", f"operator {operator_id!r} plays in "
                                       f"{', '.join(operator.currencies)}, not {currency!r}")
    rules = table_rules(rules_id, found.exposure_limit)
    lobby = check_lobby_url(lobby_url, operator.frame_origins)
    token, code = TOKEN_PREFIX + secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    moment = now()
    for attempt in range(2):  # the player's first two launches at once: one makes it
        try:
            with found.transaction() as db:
                user_id = _player_account(found, db, operator_id, player, moment)
                record = AuthToken(user_id=user_id, token_hash=token_digest(token),
                                   created_at=moment, last_used_at=moment, revoked=False)
                db.add(record)
                db.flush()
                db.add(OperatorSession(
                    session=token, token_id=record.id, operator_id=operator_id,
                    user_id=user_id, player=player, currency=currency,
                    chip_value=operator.currencies[currency], rules_id=rules.id, mode=mode,
                    lobby_url=lobby, launch_code_hash=token_digest(code),
                    launch_code_expires_at=moment + timedelta(minutes=LAUNCH_CODE_MINUTES),
                    ended_at=None, created_at=moment))
                audit.record(db, f"operator:{operator_id}", "operator_session_started",
                             player=player, currency=currency, rules=rules.id, mode=mode)
            break
        except IntegrityError:
            if attempt:
                raise
    url = f"{base_url.rstrip('/')}/play/{operator_id}#launch={code}"
    return Launched(token, url, moment + timedelta(minutes=found.auth.idle_minutes))


_PLAYERS = table_of(OperatorPlayer)


def _player_account(found: Services, db: Session, operator_id: str, player: str,
                    moment: datetime) -> int:
    known = db.execute(select(_PLAYERS.c.user_id).where(
        _PLAYERS.c.operator_id == operator_id, _PLAYERS.c.player == player)).scalar()
    if known is not None:
        return int(known)
    user = User(username=player_username(operator_id, player),
                password_hash=dummy_hash(found.hasher), role="player", created_at=moment)
    db.add(user)
    db.flush()
    ledger.open_wallets(db, user.id)  # demo sessions play the practice wallet
    db.add(OperatorPlayer(user_id=user.id, operator_id=operator_id, player=player,
                          created_at=moment))
    db.flush()
    audit.record(db, f"operator:{operator_id}", "operator_player_added", player=player)
    return user.id


# --- the page's code, the session's end -------------------------------------------------------

_SESSIONS, _TOKENS = table_of(OperatorSession), table_of(AuthToken)


def trade_launch_code(found: Services, code: str) -> SessionView:
    """The session whose launch URL carried ``code``: once only, and only while the code
    is fresh (the page keeps the token in memory). Refused as one 401 otherwise."""
    moment = now()
    with found.transaction() as db:
        row = db.scalars(select(OperatorSession).where(
            OperatorSession.launch_code_hash == token_digest(code[:200]))
            .with_for_update()).one_or_none()
        if (row is None or row.ended_at is not None or row.launch_code_expires_at is None
                or aware(row.launch_code_expires_at) < moment):
            raise Unauthorized("this launch code is unknown, used or expired: launch the "
                               "game again from the casino", challenge="LaunchCode")
        row.launch_code_hash, row.launch_code_expires_at = None, None
        db.execute(update(_TOKENS).where(_TOKENS.c.id == row.token_id)
                   .values(last_used_at=moment))
        return _view(row)


def end_session(found: Services, operator_id: str, session: str) -> SessionView:
    """End an operator's session: its token is refused from now on and its live sockets
    close. Ending one already ended changes nothing."""
    with found.transaction() as db:
        row = db.scalars(select(OperatorSession).where(
            OperatorSession.session == session[:100],
            OperatorSession.operator_id == operator_id).with_for_update()).one_or_none()
        if row is None:
            raise NotFound("no session of this operator has that id")
        ending = row.ended_at is None
        if ending:
            row.ended_at, row.launch_code_hash = now(), None
            db.execute(update(_TOKENS).where(_TOKENS.c.id == row.token_id)
                       .values(revoked=True))
            audit.record(db, f"operator:{operator_id}", "operator_session_ended",
                         player=row.player)
        view, token_id = _view(row), row.token_id
    if ending:
        found.revoke(Revoked("token", token_id))
    return view


_OF_TOKEN = (select(OperatorSession).join(Operator, Operator.id == OperatorSession.operator_id)
             .where(OperatorSession.token_id == bindparam("token_id")))


def session_of(db: Session, caller: Caller) -> SessionView:
    """The operator's session the caller's token is."""
    row = db.scalars(_OF_TOKEN, {"token_id": caller.token_id}).one_or_none()
    if row is None:
        raise Unauthorized("sign in first: the token is missing or unknown")
    return _view(row)


def open_table(found: Services, caller: Caller, rules_id: str) -> dict[str, object]:
    """The table an operator's session plays (``POST /api/v1/tables``): its rule set
    only; in its currency (real) or play money (demo), whatever ``practice`` said."""
    with found.read() as db:
        session = session_of(db, caller)
    if rules_id != session.rules_id:
        raise Forbidden(f"this session plays {session.rules_id} only")
    rules = table_rules(rules_id, found.exposure_limit)
    with found.transaction() as db:
        disabled = db.scalar(select(Operator.disabled).where(
            Operator.id == session.operator_id))
        if disabled:
            raise Forbidden(f"operator {session.operator_id!r} is disabled")
        table = GameTable(rules_id=rules.id, fingerprint=rules.fingerprint,
                          currency=session.currency if session.mode == "real" else "practice",
                          shared=False, owner_id=caller.user_id, status="open",
                          created_at=now(), seed_key=new_server_seed(),
                          operator_session_id=session.id)
        db.add(table)
        db.flush()
        return table_json(table, next_commitment=next_commitment(db, table))



def read_me(found: Services, caller: Caller) -> dict[str, object]:
    """``GET /api/v1/me`` for an operator's session: the account as any player's, and in
    real mode the player's balance at the operator (its wallet's ``balance`` call, made
    outside any transaction; null when the wallet gives no clear answer)."""
    with found.read() as db:
        session = session_of(db, caller)
        answer: dict[str, object] = me(db, caller.user_id)
    if session.mode == "real":
        outcome = found.wallets.balance(
            wallet_of(found.engine, session.operator_id, even_disabled=True),
            session.player, session.currency, session.session)
        answer["operator_balance"] = {
            "currency": session.currency, "chip_value": session.chip_value,
            "balance": outcome.balance if isinstance(outcome, Applied) else None}
    return answer
