"""A design from a request to its answer (:class:`Designer`, one per worker, kept on
``app.state.designer``): a slot of the deployment's limit claimed in the database
(:mod:`feltlab.server.services.designer_slots`: one design per account, ``designer_jobs``
in the deployment, else 429), renewed while a process of the pool computes the design
(:mod:`feltlab.server.designer_pool`: not a request's thread; stopped when its client
leaves or its time budget runs out), and freed when it ends, whatever the end.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Final

import anyio

from feltlab.server.designer_pool import DesignerPool, Warmth
from feltlab.server.services import designer_slots
from feltlab.server.services.context import Services
from feltlab.server.services.designer import Design
from feltlab.server.settings import Settings

log = logging.getLogger("feltlab.server")
HOST: Final = socket.gethostname()[:60]
_runs = itertools.count(1)


@dataclass(frozen=True)
class Designer:
    """This worker's way to the designer's pool, within the deployment's limit."""

    found: Services
    pool: DesignerPool
    limit: int
    """Designs at once in the whole deployment."""
    budget_seconds: float
    """The most a design may compute."""

    @classmethod
    def of(cls, found: Services, settings: Settings) -> Designer:
        """The designer as the settings have it (a ``feltlab serve`` worker warms its
        processes)."""
        return cls(found, DesignerPool(settings.designer_jobs, settings.warm),
                   settings.designer_jobs, settings.designer_budget_seconds)

    async def run(self, user_id: int, design: Design,
                  gone: Callable[[], Awaitable[bool]]) -> dict[str, Any]:
        """``design``'s answer for the account ``user_id``; ``gone()`` says whether the
        client has left (the design is then stopped)."""
        holder = f"{HOST}:{os.getpid()}:{next(_runs)}"
        held = await anyio.to_thread.run_sync(designer_slots.claim, self.found, user_id,
                                              design.kind, self.limit, holder)
        renewing = asyncio.create_task(self._renew(held))
        try:
            return await self.pool.compute(design, self.budget_seconds, gone)
        finally:
            renewing.cancel()
            with anyio.CancelScope(shield=True):
                try:
                    await anyio.to_thread.run_sync(designer_slots.release, self.found, held)
                except Exception:  # its lease runs out instead
                    log.warning("could not free a design's slot", exc_info=True)

    async def _renew(self, held: designer_slots.Slot) -> None:
        while True:
            await asyncio.sleep(designer_slots.RENEW_SECONDS)
            try:
                await anyio.to_thread.run_sync(designer_slots.renew, self.found, held)
            except Exception:  # the database's blip: the next renewal is within the lease
                log.warning("could not renew a design's slot", exc_info=True)

    def warmth(self) -> Warmth:
        return self.pool.warmth()
