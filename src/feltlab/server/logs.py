"""The server's log: every line one JSON object with ``time`` (UTC, ISO 8601), ``level``
and ``event``, whoever wrote it: the server's own records (an event name and its fields),
uvicorn's and its process supervisor's, the libraries' (matplotlib's font cache, Python
warnings), the slow steps of :mod:`feltlab.core.status`, and uncaught exceptions in
threads. ``feltlab serve`` prints one plain start-up banner before any of them.

>>> record = logging.LogRecord("feltlab.server", logging.INFO, __file__, 1, "request",
...                            None, None)
>>> record.fields = {"status": 200}
>>> line = json.loads(JsonFormatter().format(record))
>>> sorted(line), line["level"], line["event"], line["status"]
(['event', 'level', 'logger', 'status', 'time'], 'info', 'request', 200)
"""

from __future__ import annotations

import json
import logging
import logging.config
import sys
import threading
from datetime import UTC, datetime
from typing import Any, Final

from feltlab.core import status


class JsonFormatter(logging.Formatter):
    """A record as one JSON line: time, level, event (the message), the logger's name,
    the record's ``fields`` (``extra={"fields": {...}}``) and any exception's traceback."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(
                timespec="milliseconds"),
            "level": record.levelname.lower(), "event": record.getMessage(),
            "logger": record.name}
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line |= {key: value for key, value in fields.items()
                     if key not in ("time", "level", "event")}
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


LOG_CONFIG: Final[dict[str, Any]] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "feltlab.server.logs.JsonFormatter"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json",
                            "stream": "ext://sys.stderr"}},
    "root": {"handlers": ["stderr"], "level": "INFO"},
    "loggers": {
        # uvicorn's warnings and errors only (its info lines say little), and none of
        # its access lines: the server logs each request itself, with its route and time.
        # Not propagated: uvicorn builds an access line for every response (the client's
        # address, the path quoted) whenever its logger has a handler or passes its
        # records to one (the root's)
        "uvicorn": {"handlers": [], "level": "WARNING", "propagate": True},
        "uvicorn.error": {"handlers": [], "level": "WARNING", "propagate": True},
        "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        "alembic": {"level": "WARNING"},
    },
}
"""The logging of every process of ``feltlab serve``: given to uvicorn (its supervisor
and each worker apply it) and applied again by each worker's application."""


def configure() -> None:
    """Send every record of this process, Python's warnings, uncaught exceptions (also
    in threads) and the slow steps' notes through :class:`JsonFormatter` to stderr."""
    logging.config.dictConfig(LOG_CONFIG)
    logging.captureWarnings(True)
    log = logging.getLogger("feltlab")
    status.report_to(log)

    def thread_failed(failure: threading.ExceptHookArgs) -> None:
        if failure.exc_type is not SystemExit and failure.exc_value is not None:
            name = failure.thread.name if failure.thread else "?"
            log.error("uncaught exception in thread %s", name,
                      exc_info=(failure.exc_type, failure.exc_value, failure.exc_traceback))

    def process_failed(kind: type[BaseException], value: BaseException, trace: Any) -> None:
        log.critical("uncaught exception", exc_info=(kind, value, trace))

    threading.excepthook = thread_failed
    sys.excepthook = process_failed
