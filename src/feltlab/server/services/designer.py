"""The variant designer: a rule set as TOML text in, its exact PAR sheet, strategy card,
protection figures or solved pay table out (no money moves here).

Every computation runs through :func:`computing`: one at a time per account, and at most
one at a time in this worker, so that designs never starve the tables (a request beyond
either is refused with a retry time, answered 429). The compiled kernels and each
built-in rule set's analysis are warmed in a background thread when the server starts
(:func:`start_warming`), so that the first design answers quickly; Numba keeps its compiled
code on disk, and the analysis's derived data too, so a second start is quicker still.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from feltlab.analysis import analyze
from feltlab.core import registry
from feltlab.core.family import family_of
from feltlab.core.memo import solving_afresh
from feltlab.core.rules import Rules, RulesError, load_rules, parse_rules
from feltlab.present import solver
from feltlab.protect import (
    Case,
    CaseResult,
    check_case,
    default_deals,
    evaluate_case,
    house_edge,
    leaks,
)
from feltlab.server.auth import Caller
from feltlab.server.errors import NotFound, Refused, TooMany

T = TypeVar("T")

WORKER_WAIT: Final = 2.0
"""Seconds a design waits for this worker's computation to be free before it is refused."""
RETRY_AFTER: Final = 1
"""Seconds a refused design is told to wait."""
MAX_PROTECTION_DEALS: Final = 20_000
"""Most Monte Carlo deals per protection case a design may ask for (a few seconds)."""
ORIGIN: Final = "rules"
"""How a design's refusals name it: ``rules: field flush_pays.4: ...``."""


@dataclass
class _Gate:
    """One computation per account and one per worker."""

    worker: threading.Lock = field(default_factory=threading.Lock)
    accounts: set[int] = field(default_factory=set)
    guard: threading.Lock = field(default_factory=threading.Lock)


_gate = _Gate()


@contextmanager
def computing(caller: Caller) -> Iterator[None]:
    """Hold this account's and this worker's one designer computation, or refuse."""
    with _gate.guard:
        if caller.user_id in _gate.accounts:
            raise TooMany("a design of yours is still being computed; wait for its answer",
                          RETRY_AFTER)
        _gate.accounts.add(caller.user_id)
    try:
        if not _gate.worker.acquire(timeout=WORKER_WAIT):
            raise TooMany("the designer is busy with another design; try again in a moment",
                          RETRY_AFTER)
        try:
            yield
        finally:
            _gate.worker.release()
    finally:
        with _gate.guard:
            _gate.accounts.discard(caller.user_id)


def design_rules(text: str) -> Rules:
    """A design's rule set, refused (naming the field) when it does not validate."""
    try:
        return parse_rules(text, ORIGIN)
    except (RulesError, ValueError, registry.RegistryError) as error:
        raise Refused(str(error).splitlines()[0][:500]) from None


def _checked(work: Callable[[], T]) -> T:
    """Run ``work``, turning a refusal of the math (a question the design cannot answer)
    into a 422 naming it."""
    try:
        return work()
    except (RulesError, ValueError) as error:
        raise Refused(str(error).splitlines()[0][:500]) from None


def par_sheet(caller: Caller, text: str) -> dict[str, Any]:
    """The design's exact PAR sheet, as ``feltlab analyze FILE --json`` prints it."""
    with computing(caller):
        rules = design_rules(text)
        return _checked(lambda: analyze(rules).to_json())


def strategy(caller: Caller, text: str) -> dict[str, Any]:
    """The design's strategy card (and what it costs) and its optimal strategy by hand."""
    with computing(caller):
        rules = design_rules(text)
        sheet = _checked(lambda: analyze(rules).to_json())
    return {"rules": sheet["rules"], "fingerprint": sheet["fingerprint"],
            "strategy_card": sheet.get("strategy_card"), "strategy_map": sheet["strategy_map"]}


def _flashed_card(rules: Rules) -> Case | None:
    """One card seen that should not be: the dealer's if the game has a dealer hand,
    else the next card to come (``None``: neither exists)."""
    model = family_of(rules).protection
    if model.max_dealer_seen(rules) >= 1:
        return Case(1, 1)
    if model.max_next_seen(rules) >= 1:
        return Case(1, 0, 1)
    return None


def _evaluated(rules: Rules, case: Case, deals: int) -> CaseResult:
    check_case(rules, case)
    return evaluate_case(rules, case, deals, 0)


def protection(caller: Caller, text: str, colluders: int, deals: int) -> dict[str, Any]:
    """What game protection says of the design: the players' edge with one card flashed,
    and with ``colluders`` seats sharing their cards."""
    with computing(caller):
        rules = design_rules(text)
        cases = [case for case in (_flashed_card(rules), Case(colluders)) if case is not None]
        count = min(deals, MAX_PROTECTION_DEALS) if default_deals(rules) > 0 else 0
        results = _checked(lambda: [_evaluated(rules, case, count) for case in cases])
        edge = float(house_edge(rules))
    return {"rules": rules.id, "fingerprint": rules.fingerprint, "house_edge": edge,
            "deals": count,
            "cases": [{**result.to_json(), "case": result.case.describe()}
                      for result in results],
            "leaks": [{"name": leak.name, "title": leak.title, "applies": leak.applies,
                       "why": leak.why} for leak in leaks(rules)]}


def solve(caller: Caller, text: str, wager: str, target: str, line: str | None
          ) -> dict[str, Any]:
    """The whole-number pays of one of the design's pay tables nearest a target edge."""
    with computing(caller):
        rules = design_rules(text)
        return _checked(lambda: solver.solve_json(rules, wager, target, line, analyze))


def base(rules_id: str) -> dict[str, Any]:
    """A rule set to start a design from (built-in or published): its TOML text, its values
    and its family's rule-set schema, from which the page builds its form."""
    text = registry.builtin_text(rules_id) if rules_id in registry.builtin_ids() \
        else registry.published_text(rules_id)
    if text is None:
        raise NotFound(f"there is no rule set {rules_id[:64]!r}")
    rules = load_rules(rules_id)
    return {"id": rules.id, "name": rules.name, "game": rules.game,
            "fingerprint": rules.fingerprint, "toml": text,
            "values": rules.model_dump(mode="json"),
            "rules_schema": family_of(rules).rules_model.model_json_schema(),
            "pay_tables": rules.pay_table_fields()}


# Warming at start ------------------------------------------------------------------------

@dataclass
class _Warmth:
    started: bool = False
    running: bool = False
    done: bool = False
    left: list[str] = field(default_factory=list)
    seconds: float = 0.0


_warmth = _Warmth()


def expect_warming(rules_ids: list[str] | None = None) -> None:
    """Say that the designer is being warmed (by the server's warm-up, which warms the
    tables' path first): :func:`warmth` lists the rule sets as still to load."""
    if not _warmth.started:
        _warmth.started = True
        _warmth.left = list(registry.builtin_ids() if rules_ids is None else rules_ids)


def start_warming() -> None:
    """Warm the compiled kernels and every built-in rule set's analysis in a background
    thread (once per worker), High Card Flush first (the page opens on it). Warming is not
    a design: it does not hold the worker's computation, so a design sent meanwhile is
    answered at once (what both need is loaded once)."""
    if _warmth.started:
        return
    _warmth.started = True
    _warmth.left = list(registry.builtin_ids())
    _warmth.running = True
    threading.Thread(target=_warm, name="designer-warm", daemon=True).start()


def _warm() -> None:
    _warmth.running = True
    start = time.perf_counter()
    for rules_id in list(_warmth.left):
        with suppress(Exception), solving_afresh():  # solved, not read: warms the solvers
            analyze(load_rules(rules_id))
        _warmth.left.remove(rules_id)
    _warmth.seconds = time.perf_counter() - start
    _warmth.done = True


WARM_DEALS: Final = 200
"""Monte Carlo deals per protection case when the server warms the designer: enough to
run each compiled kernel, a fraction of a second once they are loaded."""


def warm_designer(rules_ids: list[str] | None = None) -> None:
    """Warm the designer in this thread: each built-in rule set's analysis (as
    :func:`start_warming` does in the background) and what a protection design runs
    (its cases' compiled kernels, on a few deals); used by the server's warm-up
    (:mod:`feltlab.server.warmup`) and ``feltlab warm``."""
    chosen = list(registry.builtin_ids() if rules_ids is None else rules_ids)
    expect_warming(chosen)
    if _warmth.left and not _warmth.running:  # else a background warming loads them
        _warm()
    for rules_id in chosen:
        rules = load_rules(rules_id)
        cases = [case for case in (_flashed_card(rules), Case(2)) if case is not None]
        deals = WARM_DEALS if default_deals(rules) > 0 else 0
        for case in cases:
            _evaluated(rules, case, deals)
        house_edge(rules)


def warmth() -> dict[str, Any]:
    """Whether the designer is warm: ``warming`` lists the rule sets still being loaded."""
    return {"warm": _warmth.done or not _warmth.started, "warming": list(_warmth.left),
            "seconds": round(_warmth.seconds, 3)}
