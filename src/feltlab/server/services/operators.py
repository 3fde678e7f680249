"""The operator registry: the casinos that embed feltlab's tables and pay through their
own wallets (``feltlab operator ...``).

Every field is checked here, whoever asks (the command line now, an admin API later), and
a refusal names the field (:class:`InvalidField`), so a typo in a wallet URL is caught
when the operator is added rather than at its first player's bet. Every change is one
line of the audit log; a secret never is: the log is read by more people than may sign
for an operator, so it records that a secret was set or rotated, never what it is.

The views handed out (:class:`OperatorView`) carry no secret either; only
:func:`credentials` does, for the code that signs and checks (:mod:`feltlab.server.signatures`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final
from urllib.parse import SplitResult, urlsplit

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from feltlab.server.clock import aware, now
from feltlab.server.errors import Conflict, NotFound, Refused
from feltlab.server.operator_models import Operator
from feltlab.server.services import audit
from feltlab.server.services.database import session_factory, transaction

ID_PATTERN: Final = re.compile(r"[a-z0-9_-]{1,32}")
CURRENCY_PATTERN: Final = re.compile(r"[A-Z]{3}")
SECRET_MIN: Final = 32
SECRET_MAX: Final = 256
"""A secret's length in characters: at least 32 (guessing one is out of reach), at most
what its column holds."""
URL_MAX: Final = 500
TIMEOUT_MIN: Final = 0.05
TIMEOUT_MAX: Final = 60.0
DEFAULT_TIMEOUT: Final = 3.0
_HOST = re.compile(r"[a-z0-9]([a-z0-9.-]*[a-z0-9])?|[0-9a-f.]*:[0-9a-f:.]*")
"""A host name or IPv4 address, or an IPv6 address (``urlsplit`` drops its brackets)."""


class InvalidField(Refused):
    """A value the registry refuses; ``field`` names it (``wallet_url``, ``secret``, ...)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field


@dataclass(frozen=True)
class OperatorView:
    """An operator as shown to an admin: everything but its secrets (only whether a
    previous one is still accepted)."""

    id: str
    wallet_url: str
    currencies: Mapping[str, int]
    timeout_seconds: float
    frame_origins: tuple[str, ...]
    disabled: bool
    rotating: bool
    """A previous secret is still accepted beside the current one."""
    created_at: datetime
    updated_at: datetime

    def as_json(self) -> dict[str, object]:
        return {"id": self.id, "wallet_url": self.wallet_url,
                "currencies": dict(self.currencies), "timeout_seconds": self.timeout_seconds,
                "frame_origins": list(self.frame_origins), "disabled": self.disabled,
                "rotating": self.rotating, "created_at": self.created_at.isoformat(),
                "updated_at": self.updated_at.isoformat()}


@dataclass(frozen=True)
class Credentials:
    """What signs for an operator: sign with ``secret``; accept any of ``accepted``.
    Kept out of ``repr`` so that a log line or a traceback never shows them."""

    operator_id: str
    secret: str = field(repr=False)
    accepted: tuple[str, ...] = field(repr=False)


# --- checks ------------------------------------------------------------------------------

def check_id(operator_id: str) -> str:
    """
    >>> check_id("casino-1")
    'casino-1'
    >>> check_id("Casino")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    feltlab.server.services.operators.InvalidField: id: must be 1-32 characters ... 'Casino'
    """
    if ID_PATTERN.fullmatch(operator_id) is None:
        raise InvalidField("id", f"must be 1-32 characters of a-z, 0-9, _ and -, "
                                 f"got {operator_id!r}")
    return operator_id


def _parts(name: str, text: str) -> SplitResult:
    """``text`` read as an http or https URL with a host, no user name or password, and
    no fragment; refused as field ``name`` otherwise."""
    if not text.isprintable() or " " in text:
        raise InvalidField(name, f"must not hold spaces or control characters, got {text!r}")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (raises ValueError for a port out of range)
    except ValueError as error:
        raise InvalidField(name, f"cannot read {text!r} as a URL ({error})") from None
    if parts.scheme not in ("http", "https"):
        raise InvalidField(name, f"must be an http:// or https:// URL, got {text!r}")
    if not parts.hostname or _HOST.fullmatch(parts.hostname) is None:
        raise InvalidField(name, f"must name a host, got {text!r}")
    if "@" in parts.netloc:
        raise InvalidField(name, f"must not hold a user name or password, got {text!r}")
    if parts.fragment or text.endswith("#"):
        raise InvalidField(name, f"must not have a #fragment, got {text!r}")
    return parts


def check_wallet_url(url: str) -> str:
    """The operator's wallet base URL: http or https, no trailing slash (paths are
    appended to it), no query."""
    if len(url) > URL_MAX:
        raise InvalidField("wallet_url", f"must be at most {URL_MAX} characters")
    parts = _parts("wallet_url", url)
    if parts.query or "?" in url:
        raise InvalidField("wallet_url", f"must not have a ?query, got {url!r}")
    if url.endswith("/"):
        raise InvalidField("wallet_url", f"must not end with /, got {url!r}")
    return url


def check_origin(origin: str) -> str:
    """An origin allowed to frame the tables, exactly as a browser sends it: scheme,
    lowercase host and optional port, nothing after.

    >>> check_origin("https://casino.example:8443")
    'https://casino.example:8443'
    """
    parts = _parts("frame_origins", origin)
    if parts.path or parts.query or origin.endswith(("?", "/")):
        raise InvalidField("frame_origins", f"an origin has no path or query (like "
                                            f"https://casino.example), got {origin!r}")
    if parts.netloc != parts.netloc.lower() or parts.scheme != origin.split(":", 1)[0]:
        raise InvalidField("frame_origins", f"must be lowercase, got {origin!r}")
    return origin


def check_origins(origins: Iterable[str]) -> tuple[str, ...]:
    """Each origin checked, in order, each once."""
    return tuple(dict.fromkeys(check_origin(origin) for origin in origins))


def check_currencies(currencies: Mapping[str, int]) -> dict[str, int]:
    """At least one currency; each an ISO 4217 code and the minor units (an integer, 1 or
    more) one chip is worth.

    >>> check_currencies({"EUR": 1, "JPY": 100})
    {'EUR': 1, 'JPY': 100}
    """
    if not currencies:
        raise InvalidField("currencies", "give at least one currency")
    checked: dict[str, int] = {}
    for code, units in currencies.items():
        if not isinstance(code, str) or CURRENCY_PATTERN.fullmatch(code) is None:
            raise InvalidField("currencies", f"a currency is an ISO 4217 code of 3 "
                                             f"capital letters (like EUR), got {code!r}")
        if isinstance(units, bool) or not isinstance(units, int) or units < 1:
            raise InvalidField("currencies", f"{code}: the minor units one chip is worth "
                                             f"must be a whole number, 1 or more, got "
                                             f"{units!r}")
        checked[code] = units
    return dict(sorted(checked.items()))


def check_timeout(seconds: float) -> float:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) \
            or not math.isfinite(seconds) or not TIMEOUT_MIN <= seconds <= TIMEOUT_MAX:
        raise InvalidField("timeout_seconds", f"must be from {TIMEOUT_MIN} to "
                                              f"{TIMEOUT_MAX:g} seconds, got {seconds!r}")
    return float(seconds)


def check_secret(secret: str) -> str:
    """A shared secret: one line of printable characters, 32 to 256 of them, without
    spaces at either end (most likely a copying slip, and invisible when compared)."""
    if not secret.isprintable():
        raise InvalidField("secret", "must be one line of printable characters")
    if secret != secret.strip():
        raise InvalidField("secret", "must not begin or end with a space")
    if len(secret) < SECRET_MIN:
        raise InvalidField("secret", f"must be at least {SECRET_MIN} characters, got "
                                     f"{len(secret)}")
    if len(secret) > SECRET_MAX:
        raise InvalidField("secret", f"must be at most {SECRET_MAX} characters, got "
                                     f"{len(secret)}")
    return secret


# --- the registry --------------------------------------------------------------------------

def _view(operator: Operator) -> OperatorView:
    currencies: dict[str, int] = json.loads(operator.currencies)
    origins: list[str] = json.loads(operator.frame_origins)
    return OperatorView(id=operator.id, wallet_url=operator.wallet_url, currencies=currencies,
                        timeout_seconds=operator.timeout_seconds,
                        frame_origins=tuple(origins), disabled=operator.disabled,
                        rotating=operator.previous_secret is not None,
                        created_at=aware(operator.created_at),
                        updated_at=aware(operator.updated_at))


def _operator(session: Session, operator_id: str, lock: bool = False) -> Operator:
    query = select(Operator).where(Operator.id == operator_id)
    found = session.scalars(query.with_for_update() if lock else query).one_or_none()
    if found is None:
        raise NotFound(f"no operator has id {operator_id!r}")
    return found


def add_operator(engine: Engine, actor: str, operator_id: str, wallet_url: str,
                 currencies: Mapping[str, int], secret: str,
                 timeout_seconds: float = DEFAULT_TIMEOUT,
                 frame_origins: Sequence[str] = ()) -> OperatorView:
    """Register an operator (enabled); ``actor`` is who did it, for the audit log.
    Refused with :class:`InvalidField` for a bad field, :class:`Conflict` for an id
    already taken."""
    checked_id = check_id(operator_id)
    url, coins = check_wallet_url(wallet_url), check_currencies(currencies)
    timeout, origins = check_timeout(timeout_seconds), check_origins(frame_origins)
    key = check_secret(secret)
    moment = now()
    try:
        with transaction(session_factory(engine)) as session:
            if session.get(Operator, checked_id) is not None:
                raise Conflict(f"an operator with id {checked_id!r} already exists")
            operator = Operator(id=checked_id, wallet_url=url, currencies=json.dumps(coins),
                                timeout_seconds=timeout, frame_origins=json.dumps(origins),
                                secret=key, previous_secret=None, disabled=False,
                                created_at=moment, updated_at=moment)
            session.add(operator)
            session.flush()
            audit.record(session, actor, "operator_added", operator=checked_id,
                         wallet_url=url, currencies=coins, timeout_seconds=timeout,
                         frame_origins=list(origins))
            return _view(operator)
    except IntegrityError:  # another process added the same id in between
        raise Conflict(f"an operator with id {checked_id!r} already exists") from None


def list_operators(engine: Engine, include_disabled: bool = True) -> list[OperatorView]:
    """Every operator, by id (the disabled ones too unless told otherwise)."""
    with transaction(session_factory(engine)) as session:
        query = select(Operator).order_by(Operator.id)
        if not include_disabled:
            query = query.where(Operator.disabled.is_(False))
        return [_view(operator) for operator in session.scalars(query)]


def get_operator(engine: Engine, operator_id: str) -> OperatorView:
    """One operator; :class:`NotFound` if no operator has that id."""
    with transaction(session_factory(engine)) as session:
        return _view(_operator(session, operator_id))


def credentials(engine: Engine, operator_id: str, even_disabled: bool = False
                ) -> Credentials:
    """The secrets that sign for an enabled operator (:mod:`feltlab.server.signatures`):
    sign with the current one, accept it or the previous one. A disabled operator's are
    refused, so nothing new is signed for it or accepted from it, unless
    ``even_disabled`` (the wins and rollbacks feltlab still owes it)."""
    with transaction(session_factory(engine)) as session:
        operator = _operator(session, operator_id)
        if operator.disabled and not even_disabled:
            raise Refused(f"operator {operator_id!r} is disabled")
        accepted = (operator.secret,) + ((operator.previous_secret,)
                                         if operator.previous_secret else ())
        return Credentials(operator.id, operator.secret, accepted)


def set_disabled(engine: Engine, actor: str, operator_id: str, disabled: bool
                 ) -> OperatorView:
    """Disable (its players cannot play, nothing is signed for it) or enable an operator.
    Doing what is already so changes nothing and writes no audit line."""
    with transaction(session_factory(engine)) as session:
        operator = _operator(session, operator_id, lock=True)
        if operator.disabled != disabled:
            operator.disabled = disabled
            operator.updated_at = now()
            audit.record(session, actor, "operator_disabled" if disabled
                         else "operator_enabled", operator=operator.id)
        return _view(operator)


def disable_operator(engine: Engine, actor: str, operator_id: str) -> OperatorView:
    return set_disabled(engine, actor, operator_id, True)


def enable_operator(engine: Engine, actor: str, operator_id: str) -> OperatorView:
    return set_disabled(engine, actor, operator_id, False)


def rotate_secret(engine: Engine, actor: str, operator_id: str, new_secret: str
                  ) -> OperatorView:
    """Sign with ``new_secret`` from now on and accept the one it replaces too, until the
    next rotation (the operator switches to the new one in its own time; the secret
    before that is forgotten). The new secret must differ from the current one."""
    key = check_secret(new_secret)
    with transaction(session_factory(engine)) as session:
        operator = _operator(session, operator_id, lock=True)
        if key in (operator.secret, operator.previous_secret):
            raise InvalidField("secret", "the new secret must differ from the current and "
                                         "the previous one")
        operator.previous_secret, operator.secret = operator.secret, key
        operator.updated_at = now()
        audit.record(session, actor, "operator_secret_rotated", operator=operator.id)
        return _view(operator)
