"""Refusals: every one is a 4xx answer ``{"detail": "one clear sentence"}``."""

from __future__ import annotations


class ApiError(Exception):
    """A request the server refuses; ``status`` is the HTTP status (4xx)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def not_found(what: str) -> ApiError:
    return ApiError(404, f"{what} does not exist or is not yours")


def conflict(detail: str) -> ApiError:
    return ApiError(409, detail)


def refused(detail: str) -> ApiError:
    return ApiError(422, detail)
