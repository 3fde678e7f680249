"""The ``Feltlab-Signature`` header, the same both ways: feltlab signs its requests, the wallet
signs its answers.

``Feltlab-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret, "<t>." + message)>``
where the message is the raw body of a POST or of an answer, and the path with its query string
for a GET.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Sequence

HEADER = "Feltlab-Signature"
TOLERANCE_SECONDS = 300


class SignatureError(Exception):
    """A signature missing, malformed, wrong, or made too far from the receiver's clock."""


def _digest(secret: str, timestamp: int, message: bytes) -> str:
    signed = str(timestamp).encode("ascii") + b"." + message
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def sign(secret: str, message: bytes, timestamp: int | None = None) -> str:
    """The header value signing ``message`` with ``secret`` at ``timestamp`` (now if None)."""
    t = int(time.time()) if timestamp is None else int(timestamp)
    return f"t={t},v1={_digest(secret, t, message)}"


def verify(
    header: str | None,
    message: bytes,
    secrets: Sequence[str],
    *,
    now: float | None = None,
    tolerance: int = TOLERANCE_SECONDS,
) -> int:
    """Check ``header`` against ``message`` with any of ``secrets``; return its timestamp.

    Raises :class:`SignatureError` when the header is missing or malformed, when no secret
    gives one of its ``v1`` values, or when ``t`` is more than ``tolerance`` seconds from ``now``.
    """
    if not header:
        raise SignatureError(f"missing {HEADER} header")
    timestamp: int | None = None
    candidates: list[str] = []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            try:
                timestamp = int(value)
            except ValueError:
                raise SignatureError(f"malformed {HEADER} header: bad t") from None
        elif key == "v1" and value:
            candidates.append(value)
    if timestamp is None or not candidates:
        raise SignatureError(f"malformed {HEADER} header: needs t=... and v1=...")
    clock = time.time() if now is None else now
    if abs(clock - timestamp) > tolerance:
        raise SignatureError(f"{HEADER} timestamp is more than {tolerance} s from our clock")
    for secret in secrets:
        expected = _digest(secret, timestamp, message)
        if any(hmac.compare_digest(expected, candidate) for candidate in candidates):
            return timestamp
    raise SignatureError(f"{HEADER} does not match")


def get_message(path: str, query: str) -> bytes:
    """The message signed for a GET: the path, then ``?`` and the query string if any."""
    return (f"{path}?{query}" if query else path).encode("utf-8")
