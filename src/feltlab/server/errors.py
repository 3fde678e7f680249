"""Refusals as the domain states them: each one carries one clear sentence for the caller
(``detail``), and its class says what kind of refusal it is.

None of them knows HTTP: :mod:`feltlab.server.handlers` answers each kind with its status
code and ``{"detail": ...}``, in one place. The services raise them; so do the routers,
for what they refuse while reading a request.
"""

from __future__ import annotations


class DomainError(Exception):
    """A request the server refuses; nothing it asked for was done."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Unauthorized(DomainError):
    """Who is calling is not known: no token, or one that is unknown, revoked or idle;
    ``challenge`` names the scheme the caller should have used (``Bearer`` unless said)."""

    def __init__(self, detail: str, challenge: str = "Bearer") -> None:
        super().__init__(detail)
        self.challenge = challenge


class Forbidden(DomainError):
    """The caller is known but may not do this."""


class NotFound(DomainError):
    """What the request names does not exist, or is not the caller's to see."""


class Conflict(DomainError):
    """The request clashes with the state things are in (a balance, a turn, a seat)."""


class Refused(DomainError):
    """The request cannot be carried out as given: a value out of bounds, or a move the
    rules do not allow."""


class TooMany(DomainError):
    """Too many attempts in a short time; the caller may try again after ``retry_after``
    seconds (when known)."""

    def __init__(self, detail: str, retry_after: int | None = None) -> None:
        super().__init__(detail)
        self.retry_after = retry_after


class Abandoned(DomainError):
    """The caller left before the answer (the connection closed): what it asked for was
    stopped, and nobody reads this refusal."""


class Busy(DomainError):
    """The database cannot take the request now; nothing was changed, and a retry may
    succeed."""


def not_found(what: str) -> NotFound:
    """The one refusal for a missing thing and for another player's thing alike, so that
    nobody learns which of the two it was."""
    return NotFound(f"{what} does not exist or is not yours")
