"""Signing in, without the database: argon2id password hashes, the settings of logins,
who a caller is, token digests, the browser's cookie names and its CSRF token.

The accounts, tokens and failed logins themselves are kept by
:mod:`feltlab.server.services.accounts`.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from zxcvbn import zxcvbn

from feltlab.server.errors import Refused

USERNAME_PATTERN: Final = re.compile(r"[A-Za-z0-9_.-]{3,32}")
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 256
COOKIE_NAME: Final = "feltlab_session"
CSRF_COOKIE: Final = "feltlab_csrf"
CSRF_HEADER: Final = "X-CSRF-Token"


MIN_STRENGTH: Final = 3
"""The least zxcvbn score (0-4) a new password must reach: 3 is "safely unguessable",
about 10^8 guesses or more."""
STRENGTH_CHECKED: Final = 72
"""zxcvbn scores at most this many characters (its time grows fast with the length);
the rest of a longer password only adds to its strength."""


@dataclass(frozen=True)
class AuthSettings:
    """How logins work: token idle time, the throttle on failed logins, the password
    hash's cost, the proxies whose ``X-Forwarded-For`` names the client, and the token
    that guards ``/metrics`` (None: open)."""

    idle_minutes: int = 30
    max_failures: int = 5
    """Failed logins from one client for one username before it waits."""
    max_client_failures: int = 20
    """Failed logins from one client, over every username, before it waits."""
    failure_window_minutes: int = 15
    throttle_seconds: int = 2
    """The first wait; each further failure doubles it (up to the window)."""
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    trusted_proxies: tuple[str, ...] = ("127.0.0.1",)
    metrics_token: str | None = None


@dataclass(frozen=True)
class Caller:
    """Who is calling, as the token or cookie says."""

    user_id: int
    username: str
    role: str
    token_id: int
    stale: bool = False  # last use long enough ago to be written down again
    embedded: bool = False
    """An operator's session (:mod:`feltlab.server.services.operator_sessions`): it may
    use only the routes a game needs."""
    expires_at: datetime | None = None
    """When the token expires unless it is used again."""

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


def password_hasher(settings: AuthSettings) -> PasswordHasher:
    """argon2id with the configured cost."""
    return PasswordHasher(time_cost=settings.argon2_time_cost,
                          memory_cost=settings.argon2_memory_kib, parallelism=1)


def password_matches(hasher: PasswordHasher, stored: str | None, password: str) -> bool:
    """Whether ``password`` is the one ``stored`` hashes. With no stored hash (an unknown
    username) the password is checked against a dummy hash of the same cost, so both
    answers take one hash's time and the timing does not tell which names exist."""
    try:
        matched = hasher.verify(stored or dummy_hash(hasher), password)
    except (VerificationError, InvalidHashError):
        return False
    return matched and stored is not None


_DUMMIES: dict[tuple[int, int, int], str] = {}


def dummy_hash(hasher: PasswordHasher) -> str:
    """A hash of a random secret made with ``hasher``'s cost (made once per cost)."""
    cost = (hasher.time_cost, hasher.memory_cost, hasher.parallelism)
    if cost not in _DUMMIES:
        _DUMMIES[cost] = hasher.hash(secrets.token_hex(32))
    return _DUMMIES[cost]


def client_address(peer: str | None, forwarded_for: str | None,
                   trusted: tuple[str, ...]) -> str:
    """The address of the client behind a request: the peer's, unless the peer is one of
    the ``trusted`` proxies (addresses, networks, or ``*``), when the nearest address in
    ``X-Forwarded-For`` that is not a trusted proxy (read from the right) is the client.

    >>> client_address("10.0.0.9", "1.2.3.4", ("127.0.0.1",))
    '10.0.0.9'
    >>> client_address("127.0.0.1", "6.6.6.6, 1.2.3.4", ("127.0.0.1",))
    '1.2.3.4'
    >>> client_address("127.0.0.1", "1.2.3.4, 10.1.1.1", ("127.0.0.1", "10.0.0.0/8"))
    '1.2.3.4'
    """
    client = (peer or "unknown")[:64]
    if not forwarded_for or not _trusted(client, trusted):
        return client
    for hop in reversed([part.strip() for part in forwarded_for.split(",")]):
        if not hop:
            continue
        client = hop[:64]
        if not _trusted(client, trusted):
            break
    return client


def _trusted(address: str, trusted: tuple[str, ...]) -> bool:
    if "*" in trusted:
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address in trusted
    for entry in trusted:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def throttle_wait(failures: int, allowed: int, first_wait: int, longest: int) -> int:
    """Seconds to wait after the latest of ``failures`` failed logins: none within the
    ``allowed`` count, then ``first_wait``, doubling with each failure up to ``longest``.

    >>> [throttle_wait(count, 5, 2, 900) for count in (4, 5, 6, 7, 20)]
    [0, 2, 4, 8, 900]
    """
    if failures < allowed:
        return 0
    return min(longest, first_wait << min(failures - allowed, 20))


def check_username(username: str) -> str:
    if not USERNAME_PATTERN.fullmatch(username):
        raise Refused("username must be 3-32 letters, digits or _ . -")
    return username


def check_password(password: str, username: str = "") -> str:
    """Refuse a password that is too short or long, is the username, or is easy to guess
    (a zxcvbn score under :data:`MIN_STRENGTH`: it knows common and breached passwords,
    words, names, dates, keyboard runs, and the username among them); the refusal says
    why."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise Refused(f"password must be {MIN_PASSWORD}-{MAX_PASSWORD} characters long")
    if username and password.casefold() == username.casefold():
        raise Refused("password must not be the username")
    estimate = zxcvbn(password[:STRENGTH_CHECKED], user_inputs=[username] if username else [])
    if estimate["score"] < MIN_STRENGTH:
        feedback = estimate["feedback"]
        why = feedback["warning"] or "it is easy to guess"
        hint = " ".join(feedback["suggestions"][:1])
        raise Refused(f"password is too weak: {why.rstrip('.')}." + (f" {hint}" if hint else ""))
    return password


def token_digest(token: str) -> str:
    """What is stored of a bearer token: its SHA-256."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def csrf_for(token: str) -> str:
    """The CSRF token that goes with a session cookie (the page sends it back as a header)."""
    return hmac.new(token.encode("utf-8", "replace"), b"csrf", hashlib.sha256).hexdigest()
