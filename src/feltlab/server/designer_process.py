"""One process of the designer's pool, from the inside (:func:`main`; the server's side,
:mod:`feltlab.server.designer_pool`, starts it as a new interpreter running :data:`BOOT`).
It lowers its own priority before it loads anything, so that the tables' requests always
come first, then computes the designs it is sent, one at a time, for as long as it lives.
What it loads and warms (the compiled kernels, each rule set's analysis) it keeps for the
designs after. It ends when its server ends; the server kills it to stop a design it no
longer wants.

Messages to the server, each a tuple: ``("ready",)`` once it takes designs;
``("warmth", warming, seconds)`` while it warms (``warming``: the rule sets left); and for
each design one of ``("answer", json)``, ``("refused", error)`` or ``("failed", text)``.
This module imports little, so the priority is lowered before the heavy imports.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Final

Message = tuple[object, ...]

LOWEST_PRIORITY: Final = 19
"""The niceness of the designer's processes: the scheduler runs them when nothing else
wants the CPU."""
PARENT_CHECK_SECONDS: Final = 1.0
"""How often a process checks that its server is alive (it ends when it is not)."""


def main() -> None:
    """The process's entry: ``python -c ... DESIGNS MESSAGES WARM`` (the file descriptors
    of its two pipes, and ``1`` to warm the designer), after :data:`BOOT`."""
    designs, messages, warm = sys.argv[1:4]
    serve(Connection(int(designs), writable=False), Connection(int(messages), readable=False),
          warm == "1")


BOOT: Final = ("import json, sys; sys.path[:] = json.loads(sys.argv.pop(1)); "
               "from feltlab.server.designer_process import main; main()")
"""The program a new process runs: the server's own import path (so that it imports the
same feltlab), then :func:`main`."""


def serve(designs: Connection, messages: Connection, warm: bool) -> None:
    """The process's life: lowest priority, the server's logging, then the designs that
    come on ``designs`` until the server closes it, each answered on ``messages`` (with
    ``warm``, the designer warmed beside them)."""
    os.setpriority(os.PRIO_PROCESS, 0, LOWEST_PRIORITY)
    _end_with(os.getppid())
    from feltlab.server import logs
    from feltlab.server.errors import DomainError
    from feltlab.server.services.designer import Design

    logs.configure()
    sending = threading.Lock()

    def send(message: Message) -> None:
        with sending:
            messages.send(message)

    if warm:
        threading.Thread(target=_warm, args=(send,), name="designer-warm",
                         daemon=True).start()
    send(("ready",))
    while True:
        try:
            design = designs.recv()
        except (EOFError, OSError):
            return
        assert isinstance(design, Design)
        try:
            message: Message = ("answer", design.compute())
        except DomainError as error:
            message = ("refused", error)
        except Exception:
            message = ("failed", traceback.format_exc())
        send(message)


def _warm(tell: Callable[[Message], None]) -> None:
    from feltlab.core import registry
    from feltlab.server.services.designer import warm_designer

    start = time.perf_counter()
    chosen = list(registry.builtin_ids())
    tell(("warmth", chosen, 0.0))
    try:
        warm_designer(chosen, lambda left: tell(("warmth", left,
                                                 time.perf_counter() - start)))
    except Exception:
        tell(("warmth", [], time.perf_counter() - start))  # a design loads what it needs
        raise


def _end_with(parent: int) -> None:
    """End this process when its server's process is gone (killed, say): its designs have
    nobody to answer."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="designer-parent-watch", daemon=True).start()
