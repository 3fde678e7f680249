"""Switchable faults, for tests and demos of how feltlab copes with an unreliable wallet.

A plan is a list of :class:`FaultRule`; on each call to an endpoint the first rule that matches
it (its endpoint, its remaining ``count``, then a draw against its ``probability`` from a
seedable random generator) decides the call's fault:

- ``slow``: commit, then sleep ``delay`` seconds (longer than the caller's timeout), then answer;
- ``drop``: commit, then drop the connection without a complete answer (or, with ``status``,
  answer that status, e.g. 502, with a body that is not an answer);
- ``fail``: answer HTTP 500 before committing anything;
- ``refuse``: (bets only) refuse the bet with ``error`` (recorded as refused);
- ``bad_signature``: commit and answer normally, but with a wrong signature.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .protocol import ENDPOINTS, INSUFFICIENT_FUNDS, Endpoint

Mode = Literal["slow", "drop", "fail", "refuse", "bad_signature"]


class FaultRule(BaseModel):
    """One fault, for some endpoints, with a probability, for at most ``count`` calls."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mode: Mode
    endpoints: tuple[Endpoint, ...] = ENDPOINTS
    probability: float = Field(default=1.0, ge=0.0, le=1.0)
    count: int | None = Field(default=None, ge=1, description="at most this many calls (None: all)")
    delay: float = Field(default=5.0, ge=0.0, description="slow: seconds to sleep after commit")
    error: str = Field(default=INSUFFICIENT_FUNDS, description="refuse: the error answered")
    status: int | None = Field(default=None, ge=100, le=599,
                               description="drop: answer this status instead of closing")


class FaultPlan(BaseModel):
    """The body of ``POST /_faults``: the new plan (replacing the old) and an optional seed."""

    model_config = ConfigDict(extra="forbid")

    faults: list[FaultRule] = []
    seed: int | None = None


class Faults:
    """The current plan and its random generator; thread-safe."""

    def __init__(self, rules: Sequence[FaultRule] = (), seed: int | None = None) -> None:
        self._lock = threading.Lock()
        self._rules: list[tuple[FaultRule, int | None]] = []
        self._random = random.Random(seed)
        self.replace(rules, seed)

    def replace(self, rules: Sequence[FaultRule], seed: int | None = None) -> None:
        """Install ``rules`` (their counts afresh); reseed the generator if ``seed`` is given."""
        with self._lock:
            self._rules = [(rule, rule.count) for rule in rules]
            if seed is not None:
                self._random.seed(seed)

    def draw(self, endpoint: Endpoint) -> FaultRule | None:
        """The fault for this call to ``endpoint``, if any (uses up one of the rule's count)."""
        with self._lock:
            for index, (rule, remaining) in enumerate(self._rules):
                if endpoint not in rule.endpoints or remaining == 0:
                    continue
                if rule.mode == "refuse" and endpoint != "bet":
                    continue
                if rule.probability < 1.0 and self._random.random() >= rule.probability:
                    continue
                if remaining is not None:
                    self._rules[index] = (rule, remaining - 1)
                return rule
            return None

    def describe(self) -> list[dict[str, object]]:
        """The plan as JSON, each rule with the number of calls it has ``remaining``."""
        with self._lock:
            return [{**rule.model_dump(mode="json"), "remaining": remaining}
                    for rule, remaining in self._rules]
