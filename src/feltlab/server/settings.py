"""Every setting of the table server, in one frozen :class:`Settings`, read once.

This is the only module of :mod:`feltlab.server` that reads the environment
(:func:`from_environment`); everything else is handed the settings object. Each setting
keeps its environment variable:

=========================================  ===============================================
``FELTLAB_DATABASE_URL``                :attr:`Settings.database_url` (default: SQLite in the
                                        user's data folder)
``FELTLAB_TOKEN_IDLE_MINUTES``          :attr:`AuthSettings.idle_minutes`
``FELTLAB_ARGON2_TIME_COST``            :attr:`AuthSettings.argon2_time_cost`
``FELTLAB_ARGON2_MEMORY_KIB``           :attr:`AuthSettings.argon2_memory_kib`
``FORWARDED_ALLOW_IPS``                 :attr:`AuthSettings.trusted_proxies` (uvicorn's too)
``FELTLAB_METRICS_TOKEN``               :attr:`AuthSettings.metrics_token`
``FELTLAB_REQUEST_LOG_EVERY``           :attr:`Settings.request_log_every`
``FELTLAB_CRASH_AFTER_EVENTS``          :attr:`Settings.crash_after_events` (tests only)
``FELTLAB_CRASH_AFTER_COMMITS``         :attr:`Settings.crash_after_commits` (tests only)
``FELTLAB_CRASH_AFTER_WALLET_CALLS``    :attr:`Settings.crash_after_wallet_calls` (tests only)
``FELTLAB_OPENTELEMETRY``               :attr:`Settings.opentelemetry` (``1`` on, ``0`` off)
``FELTLAB_LEDGER_CHECK_MINUTES``        :attr:`Settings.ledger_check_minutes`
``FELTLAB_WALLET_RETRY_FIRST_SECONDS``  :attr:`Settings.wallet_retry_first_seconds`
``FELTLAB_WALLET_RETRY_MAX_SECONDS``    :attr:`Settings.wallet_retry_max_seconds`
``FELTLAB_WALLET_GIVE_UP_HOURS``        :attr:`Settings.wallet_give_up_hours`
``FELTLAB_WALLET_ROLLBACK_GRACE_SECONDS``  :attr:`Settings.wallet_rollback_grace_seconds`
``FELTLAB_HOUSE_EXPOSURE_LIMIT``        :attr:`Settings.house_exposure_limit`
``FELTLAB_DESIGNER_JOBS``               :attr:`Settings.designer_jobs`
``FELTLAB_DESIGNER_BUDGET_SECONDS``     :attr:`Settings.designer_budget_seconds`
=========================================  ===============================================

An empty variable is the same as an unset one; a value that is not what the setting
takes is a :class:`SettingsError` naming the variable.

``feltlab serve`` builds the settings in its own process and hands them to uvicorn's
workers (which build the application from an import string,
``feltlab.app:create_from_environment``) as one variable, ``FELTLAB_SETTINGS``, holding
them as JSON (:func:`hand_to_workers`, read back by :func:`for_worker`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from feltlab.core.exposure import DEFAULT_EXPOSURE_LIMIT
from feltlab.core.paths import user_data_dir
from feltlab.server.auth import AuthSettings

LOG_EVERY: Final = 100
"""One in this many answered requests is logged (refusals, failures and slow ones all)."""

WORKER_VARIABLE: Final = "FELTLAB_SETTINGS"
"""The one environment variable that carries the settings to uvicorn's workers (JSON)."""

DATABASE_URL: Final = "FELTLAB_DATABASE_URL"
TOKEN_IDLE_MINUTES: Final = "FELTLAB_TOKEN_IDLE_MINUTES"
ARGON2_TIME_COST: Final = "FELTLAB_ARGON2_TIME_COST"
ARGON2_MEMORY_KIB: Final = "FELTLAB_ARGON2_MEMORY_KIB"
FORWARDED_ALLOW_IPS: Final = "FORWARDED_ALLOW_IPS"
METRICS_TOKEN: Final = "FELTLAB_METRICS_TOKEN"
REQUEST_LOG_EVERY: Final = "FELTLAB_REQUEST_LOG_EVERY"
CRASH_AFTER_EVENTS: Final = "FELTLAB_CRASH_AFTER_EVENTS"
CRASH_AFTER_COMMITS: Final = "FELTLAB_CRASH_AFTER_COMMITS"
CRASH_AFTER_WALLET_CALLS: Final = "FELTLAB_CRASH_AFTER_WALLET_CALLS"
OPENTELEMETRY: Final = "FELTLAB_OPENTELEMETRY"
LEDGER_CHECK_MINUTES: Final = "FELTLAB_LEDGER_CHECK_MINUTES"
WALLET_RETRY_FIRST: Final = "FELTLAB_WALLET_RETRY_FIRST_SECONDS"
WALLET_RETRY_MAX: Final = "FELTLAB_WALLET_RETRY_MAX_SECONDS"
WALLET_GIVE_UP_HOURS: Final = "FELTLAB_WALLET_GIVE_UP_HOURS"
WALLET_ROLLBACK_GRACE: Final = "FELTLAB_WALLET_ROLLBACK_GRACE_SECONDS"
HOUSE_EXPOSURE_LIMIT: Final = "FELTLAB_HOUSE_EXPOSURE_LIMIT"
DESIGNER_JOBS: Final = "FELTLAB_DESIGNER_JOBS"
DESIGNER_BUDGET: Final = "FELTLAB_DESIGNER_BUDGET_SECONDS"


class SettingsError(ValueError):
    """A setting's value the server cannot use (the message names its variable)."""


@dataclass(frozen=True)
class Settings:
    """The table server's settings: which database, how logins work, what is logged and
    what runs beside the requests."""

    database_url: str
    """The database (``sqlite:///PATH`` or ``postgresql://...``)."""
    auth: AuthSettings = field(default_factory=AuthSettings)
    """Logins, the proxies believed, and the token that guards ``/metrics``."""
    request_log_every: int = LOG_EVERY
    """One in this many answered requests is logged (1: every request)."""
    crash_after_events: int = 0
    """Fault injection: SIGKILL right after this process's N-th round event (0: never)."""
    crash_after_commits: int = 0
    """Fault injection: SIGKILL right after this process's N-th money commit (0: never)."""
    crash_after_wallet_calls: int = 0
    """Fault injection: SIGKILL right after this process's N-th answered operator's bet
    call, before its answer is recorded (0: never)."""
    opentelemetry: bool = False
    """FastAPI's OpenTelemetry spans, metrics and logs."""
    ledger_check_minutes: float = 60.0
    """Minutes between two background checks of the ledger (0: no background check)."""
    wallet_retry_first_seconds: float = 2.0
    """The wait before an operator's unacknowledged win or rollback is sent again; each
    later wait doubles..."""
    wallet_retry_max_seconds: float = 30.0
    """...up to this."""
    wallet_give_up_hours: float = 24.0
    """Hours of retries before a call is flagged on the console and tried no more."""
    wallet_rollback_grace_seconds: float = 10.0
    """How long after an operator's bet call must have ended (its timeout) the rollback
    queued behind it falls due, if the request never recorded the answer (it crashed)."""
    house_exposure_limit: int = DEFAULT_EXPOSURE_LIMIT
    """The most, in units, a rule set may pay one seat on one round at its maximum wagers
    (:mod:`feltlab.core.exposure`): a design above it is not published, and a rule set above
    it opens no table."""
    designer_jobs: int = 1
    """Designs computed at once in the whole deployment (every worker and host, held in
    the database); one more is refused (429)."""
    designer_budget_seconds: float = 30.0
    """The most a design may compute: past it, it is stopped and refused (422) with the
    command line that computes it (``feltlab protect``, ``feltlab analyze``...)."""
    warm: bool = False
    """A ``feltlab serve`` worker: warm the designer's compiled kernels in the background at
    start and settle the heap (:func:`feltlab.server.app.settle_heap`)."""

    def to_json(self) -> str:
        """The settings as one line of JSON (:func:`from_json` reads it back)."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True)


def default_database_url() -> str:
    """SQLite in the user's data folder: the database when none is named."""
    return f"sqlite:///{user_data_dir() / 'server.sqlite3'}"


def named_database_url(environ: Mapping[str, str] | None = None) -> str | None:
    """The database ``FELTLAB_DATABASE_URL`` names, or ``None`` when it is unset or empty
    (the server then uses :func:`default_database_url`; the command line looks for
    published rule sets only in a database named)."""
    found = os.environ if environ is None else environ
    return found.get(DATABASE_URL, "").strip() or None


def from_environment(environ: Mapping[str, str] | None = None) -> Settings:
    """The settings from the environment variables (``os.environ`` unless ``environ`` is
    given); unset ones take their defaults. A value the setting cannot take is a
    :class:`SettingsError` naming the variable."""
    found = os.environ if environ is None else environ

    def text(name: str) -> str:
        return found.get(name, "").strip()

    def whole(name: str, default: int, least: int) -> int:
        given = text(name)
        if not given:
            return default
        try:
            value = int(given)
        except ValueError:
            value = least - 1
        if value < least:
            raise SettingsError(f"{name} must be a whole number of at least {least}, "
                                f"not {given!r}")
        return value

    def number(name: str, default: float, zero: bool, meaning: str) -> float:
        """A finite number, more than 0 (or 0 too, with ``zero``)."""
        given = text(name)
        if not given:
            return default
        try:
            value = float(given)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
            raise SettingsError(f"{name} must be {meaning}, not {given!r}")
        return value

    def minutes(name: str, default: float) -> float:
        return number(name, default, True, "a number of minutes, 0 or more")

    def positive(name: str, default: float) -> float:
        return number(name, default, False, "a number more than 0")

    def switch(name: str) -> bool:
        given = text(name)
        if given not in ("", "0", "1"):
            raise SettingsError(f"{name} must be 1 (on) or 0 (off), not {given!r}")
        return given == "1"

    base = AuthSettings()
    auth = AuthSettings(
        idle_minutes=whole(TOKEN_IDLE_MINUTES, base.idle_minutes, 1),
        argon2_time_cost=whole(ARGON2_TIME_COST, base.argon2_time_cost, 1),
        argon2_memory_kib=whole(ARGON2_MEMORY_KIB, base.argon2_memory_kib, 1),
        trusted_proxies=proxies(text(FORWARDED_ALLOW_IPS)) or base.trusted_proxies,
        metrics_token=text(METRICS_TOKEN) or None)
    return Settings(database_url=named_database_url(found) or default_database_url(),
                    auth=auth,
                    request_log_every=whole(REQUEST_LOG_EVERY, LOG_EVERY, 1),
                    crash_after_events=whole(CRASH_AFTER_EVENTS, 0, 0),
                    crash_after_commits=whole(CRASH_AFTER_COMMITS, 0, 0),
                    crash_after_wallet_calls=whole(CRASH_AFTER_WALLET_CALLS, 0, 0),
                    opentelemetry=switch(OPENTELEMETRY),
                    ledger_check_minutes=minutes(LEDGER_CHECK_MINUTES, 60.0),
                    wallet_retry_first_seconds=positive(WALLET_RETRY_FIRST, 2.0),
                    wallet_retry_max_seconds=positive(WALLET_RETRY_MAX, 30.0),
                    wallet_give_up_hours=positive(WALLET_GIVE_UP_HOURS, 24.0),
                    wallet_rollback_grace_seconds=positive(WALLET_ROLLBACK_GRACE, 10.0),
                    house_exposure_limit=whole(HOUSE_EXPOSURE_LIMIT, DEFAULT_EXPOSURE_LIMIT, 1),
                    designer_jobs=whole(DESIGNER_JOBS, 1, 1),
                    designer_budget_seconds=positive(DESIGNER_BUDGET, 30.0))


def proxies(text: str) -> tuple[str, ...]:
    """The addresses of a comma-separated list such as ``FORWARDED_ALLOW_IPS``.

    >>> proxies(" 10.0.0.1, 10.0.0.2,")
    ('10.0.0.1', '10.0.0.2')
    """
    return tuple(part.strip() for part in text.split(",") if part.strip())


def from_json(text: str) -> Settings:
    """The settings :meth:`Settings.to_json` wrote (a :class:`SettingsError` for anything
    else)."""
    try:
        data: dict[str, Any] = json.loads(text)
        auth = dict(data.pop("auth"))
        auth["trusted_proxies"] = tuple(auth["trusted_proxies"])
        return Settings(auth=AuthSettings(**auth), **data)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise SettingsError(f"{WORKER_VARIABLE} does not hold the server's settings "
                            f"({error})") from None


def hand_to_workers(settings: Settings) -> None:
    """Put ``settings`` where uvicorn's workers find them (:func:`for_worker`): the
    workers build the application from an import string, in this process or in processes
    it starts, so the settings travel in the environment. This is the one place feltlab
    writes ``os.environ`` for its settings (the issue allows this one write)."""
    # the one write of the environment for the server's settings, allowed by the issue
    # that made this module (tests/server/test_structure.py holds every other write out)
    os.environ[WORKER_VARIABLE] = settings.to_json()


def for_worker() -> Settings:
    """A uvicorn worker's settings: those ``feltlab serve`` handed down
    (:func:`hand_to_workers`), else, for a worker uvicorn was told to start by hand, those
    of the environment, warming at start as ``feltlab serve``'s do."""
    handed = os.environ.get(WORKER_VARIABLE)
    if handed:
        return from_json(handed)
    return dataclasses.replace(from_environment(), warm=True)
