"""The one place that signs and checks what crosses between feltlab and an operator.

An operator's casino embeds feltlab's tables and pays through its own wallet (a
"seamless wallet"): every call feltlab makes to that wallet, and every call the operator
makes to feltlab, carries a ``Feltlab-Signature`` header, so that neither side can be
spoken for by someone on the network between them::

    Feltlab-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret, "<t>." + message)>

The message is the raw body for a POST and the path with its query string for a GET
(:func:`message_of`). The time is signed too, and a signature more than
:data:`TOLERANCE_SECONDS` from the clock (either way) is refused, so a recorded request
cannot be replayed later.

Each operator has two live secrets while it rotates: feltlab signs with the new one and
accepts either (:func:`verify` takes every secret to accept). Which secret matched is not
revealed by timing: the signature is checked against every secret, each check in constant
time (:func:`hmac.compare_digest`).

The scheme sits behind a :class:`Scheme` named by its version (``v1``), so another
(RSA or Ed25519 signatures, say) can be added as ``v2`` without changing the callers.

>>> header = sign("s" * 32, b'{"amount": 5}', at=1_700_000_000)
>>> header.startswith("t=1700000000,v1=")
True
>>> verify(["s" * 32], header, b'{"amount": 5}', now=1_700_000_010)
>>> verify(["t" * 32], header, b'{"amount": 5}', now=1_700_000_010)
Traceback (most recent call last):
...
feltlab.server.signatures.SignatureError: no secret matches the signature
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

HEADER: Final = "Feltlab-Signature"
"""The HTTP header that carries the signature."""

TOLERANCE_SECONDS: Final = 300
"""How far a signature's time may be from the clock, either way, before it is stale."""

_HEX_SHA256 = re.compile(r"[0-9a-f]{64}")
_DIGITS = re.compile(r"[0-9]{1,12}")


class SignatureError(ValueError):
    """A signature that is refused; the message says why (missing, malformed, stale, or
    made with none of the secrets)."""


class Scheme(Protocol):
    """One way of signing, named in the header by its ``version`` (``v1=...``)."""

    @property
    def version(self) -> str: ...

    def sign(self, secret: str, payload: bytes) -> str:
        """The signature of ``payload`` as it appears in the header."""
        ...

    def well_formed(self, signature: str) -> bool:
        """Whether ``signature`` could be one of this scheme's at all."""
        ...

    def matches(self, secret: str, payload: bytes, signature: str) -> bool:
        """Whether ``signature`` is ``payload``'s under ``secret``, in time that does not
        depend on how much of it is right."""
        ...


@dataclass(frozen=True)
class HmacSha256:
    """``v1``: lowercase hex HMAC-SHA256 under the shared secret (as UTF-8)."""

    version: str = "v1"

    def sign(self, secret: str, payload: bytes) -> str:
        return hmac.new(secret.encode("utf-8"), payload, hashlib.sha256).hexdigest()

    def well_formed(self, signature: str) -> bool:
        return _HEX_SHA256.fullmatch(signature) is not None

    def matches(self, secret: str, payload: bytes, signature: str) -> bool:
        return hmac.compare_digest(self.sign(secret, payload), signature)


V1: Final = HmacSha256()
SCHEMES: Final[Mapping[str, Scheme]] = {V1.version: V1}
"""Every scheme :func:`verify` accepts, by version."""


@dataclass(frozen=True)
class Parsed:
    """A header read into its parts: the signed time and each signature by version."""

    at: int
    signatures: tuple[tuple[str, str], ...]


def payload_of(at: int, message: bytes) -> bytes:
    """What is signed: the time, a dot, then the message (so the time cannot be changed
    without breaking the signature).

    >>> payload_of(12, b"{}")
    b'12.{}'
    """
    return f"{at}.".encode("ascii") + message


def message_of(method: str, path_and_query: str, body: bytes = b"") -> bytes:
    """The message a request signs: its raw body for a POST (or any method with a body),
    its path with the query string for a GET.

    >>> message_of("GET", "/wallet/balance?user=7")
    b'/wallet/balance?user=7'
    >>> message_of("POST", "/wallet/bet", b'{"amount":5}')
    b'{"amount":5}'
    """
    if method.upper() in ("GET", "HEAD"):
        return path_and_query.encode("utf-8")
    return body


def sign(secret: str, message: bytes, at: int | None = None, scheme: Scheme = V1) -> str:
    """The ``Feltlab-Signature`` header's value for ``message``, signed at ``at`` (unix
    seconds; default now) with ``secret``."""
    moment = int(time.time()) if at is None else at
    return f"t={moment},{scheme.version}={scheme.sign(secret, payload_of(moment, message))}"


def parse(header: str | None) -> Parsed:
    """The header's time and signatures; refused if missing or malformed. Versions not
    known here are skipped (a sender may offer a newer scheme beside ``v1``), but at
    least one known, well-formed signature must be there.

    >>> parse("t=5,v1=" + "0" * 64).at
    5
    >>> parse("t=5,v1=ABC")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    feltlab.server.signatures.SignatureError: malformed signature header: v1 must be 64 ...
    """
    if header is None or not header.strip():
        raise SignatureError(f"missing signature: no {HEADER} header")
    at: int | None = None
    signatures: list[tuple[str, str]] = []
    for part in header.split(","):
        key, equals, value = part.strip().partition("=")
        if not equals or not key:
            raise SignatureError("malformed signature header: each part must be key=value")
        if key == "t":
            if at is not None:
                raise SignatureError("malformed signature header: t given twice")
            if _DIGITS.fullmatch(value) is None:
                raise SignatureError("malformed signature header: t must be unix seconds")
            at = int(value)
        elif key in SCHEMES:
            if not SCHEMES[key].well_formed(value):
                raise SignatureError(
                    f"malformed signature header: {key} must be 64 lowercase hex digits")
            signatures.append((key, value))
    if at is None:
        raise SignatureError("malformed signature header: no t= (the signed time)")
    if not signatures:
        known = ", ".join(SCHEMES)
        raise SignatureError(f"malformed signature header: no signature of a known "
                             f"scheme ({known})")
    return Parsed(at, tuple(signatures))


def verify(secrets: Sequence[str], header: str | None, message: bytes,
           now: float | None = None, tolerance: int = TOLERANCE_SECONDS) -> None:
    """Accept ``header`` as ``message``'s signature under one of ``secrets`` made within
    ``tolerance`` seconds of ``now`` (default the clock), or raise
    :class:`SignatureError` saying why not.

    Every signature in the header is checked against every secret, whichever matches, so
    the time taken does not tell which secret (if any) was right."""
    parsed = parse(header)
    clock = time.time() if now is None else now
    if not math.isfinite(clock) or abs(clock - parsed.at) > tolerance:
        raise SignatureError(f"stale signature: signed at {parsed.at}, more than "
                             f"{tolerance} s from the server's clock ({int(clock)})")
    payload = payload_of(parsed.at, message)
    matched = False
    for secret in secrets:
        for version, signature in parsed.signatures:
            matched |= SCHEMES[version].matches(secret, payload, signature)
    if not matched:
        raise SignatureError("no secret matches the signature")
