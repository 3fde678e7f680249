"""The signatures that cross to an operator: the good one accepted, every other refused
with its reason, the previous secret accepted while rotating."""

from __future__ import annotations

import contextlib
import re

import pytest

from feltlab.server.signatures import (
    HEADER,
    SignatureError,
    message_of,
    parse,
    payload_of,
    sign,
    verify,
)

SECRET = "a-shared-secret-of-at-least-32-chars"
OLD = "the-previous-secret-still-accepted!!"
AT = 1_800_000_000
BODY = b'{"user":"p1","amount":500,"currency":"EUR"}'


def test_a_good_signature_is_accepted() -> None:
    header = sign(SECRET, BODY, at=AT)
    verify([SECRET], header, BODY, now=AT + 1)


def test_the_header_is_the_documented_hmac() -> None:
    import hashlib
    import hmac

    header = sign(SECRET, BODY, at=AT)
    expected = hmac.new(SECRET.encode(), f"{AT}.".encode() + BODY, hashlib.sha256).hexdigest()
    assert header == f"t={AT},v1={expected}"
    assert payload_of(AT, BODY) == f"{AT}.".encode() + BODY
    assert HEADER == "Feltlab-Signature"


def test_the_hex_is_always_64_lowercase_digits() -> None:
    """Equal length whatever is signed, so compare_digest compares like with like."""
    for secret, message in ((SECRET, b""), (OLD, BODY), ("x" * 200, b"\x00" * 10_000)):
        value = sign(secret, message, at=AT).split("v1=")[1]
        assert re.fullmatch(r"[0-9a-f]{64}", value)


def test_sign_uses_the_clock_by_default() -> None:
    verify([SECRET], sign(SECRET, BODY), BODY)


@pytest.mark.parametrize("change", ["body", "time", "signature"])
def test_a_changed_request_is_refused(change: str) -> None:
    header = sign(SECRET, BODY, at=AT)
    body = BODY
    if change == "body":
        body = BODY.replace(b"500", b"5000")
    elif change == "time":
        header = header.replace(f"t={AT}", f"t={AT + 1}")
    else:
        digits = header[-1]
        header = header[:-1] + ("0" if digits != "0" else "1")
    with pytest.raises(SignatureError, match="no secret matches"):
        verify([SECRET], header, body, now=AT)


def test_another_secret_is_refused() -> None:
    with pytest.raises(SignatureError, match="no secret matches"):
        verify([OLD], sign(SECRET, BODY, at=AT), BODY, now=AT)
    with pytest.raises(SignatureError, match="no secret matches"):
        verify([], sign(SECRET, BODY, at=AT), BODY, now=AT)


def test_the_previous_secret_is_accepted_while_rotating() -> None:
    verify([SECRET, OLD], sign(OLD, BODY, at=AT), BODY, now=AT)
    verify([SECRET, OLD], sign(SECRET, BODY, at=AT), BODY, now=AT)


@pytest.mark.parametrize("header", [None, "", "   "])
def test_a_missing_signature_is_refused(header: str | None) -> None:
    with pytest.raises(SignatureError, match="missing signature"):
        verify([SECRET], header, BODY, now=AT)


@pytest.mark.parametrize(("header", "reason"), [
    ("v1=" + "0" * 64, "no t="),
    (f"t={AT}", "no signature"),
    (f"t={AT},v9=" + "0" * 64, "no signature"),
    (f"t=soon,v1={'0' * 64}", "unix seconds"),
    (f"t=-5,v1={'0' * 64}", "unix seconds"),
    (f"t={AT},t={AT},v1={'0' * 64}", "twice"),
    (f"t={AT},v1={'0' * 63}", "64 lowercase hex"),
    (f"t={AT},v1={'A' * 64}", "64 lowercase hex"),
    (f"t={AT},v1={'0' * 65}", "64 lowercase hex"),
    (f"t={AT};v1={'0' * 64}", "malformed"),
    ("garbage", "key=value"),
])
def test_a_malformed_header_is_refused(header: str, reason: str) -> None:
    with pytest.raises(SignatureError, match="malformed") as refused:
        verify([SECRET], header, BODY, now=AT)
    assert reason in str(refused.value)


@pytest.mark.parametrize("offset", [301, -301, 86_400, -86_400])
def test_a_stale_signature_is_refused_either_way(offset: int) -> None:
    header = sign(SECRET, BODY, at=AT)
    with pytest.raises(SignatureError, match="stale"):
        verify([SECRET], header, BODY, now=AT + offset)


@pytest.mark.parametrize("offset", [300, -300, 0])
def test_the_edge_of_the_tolerance_is_accepted(offset: int) -> None:
    verify([SECRET], sign(SECRET, BODY, at=AT), BODY, now=AT + offset)


def test_a_newer_scheme_beside_v1_is_skipped() -> None:
    header = sign(SECRET, BODY, at=AT) + ",v2=something-newer"
    verify([SECRET], header, BODY, now=AT)
    assert parse(header).signatures[0][0] == "v1"


def test_a_get_signs_its_path_and_query() -> None:
    message = message_of("GET", "/wallet/balance?user=p1&currency=EUR")
    header = sign(SECRET, message, at=AT)
    verify([SECRET], header, b"/wallet/balance?user=p1&currency=EUR", now=AT)
    with pytest.raises(SignatureError, match="no secret matches"):
        verify([SECRET], header, b"/wallet/balance?user=p2&currency=EUR", now=AT)
    assert message_of("POST", "/wallet/bet", BODY) == BODY


def test_every_secret_is_checked_whichever_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first secret matching does not cut the work short: the time taken does not
    tell which one matched."""
    import hmac

    calls: list[int] = []
    real = hmac.compare_digest

    def counted(a: str, b: str) -> bool:
        calls.append(1)
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counted)
    for signer in (SECRET, OLD, "neither-of-them-but-still-32-chars!!"):
        calls.clear()
        with contextlib.suppress(SignatureError):
            verify([SECRET, OLD], sign(signer, BODY, at=AT), BODY, now=AT)
        assert len(calls) == 2
