"""The server's warm-up: everything a request or the pit's figures recorder would otherwise
build on first use, built once at start in a background thread, for every built-in rule
set.

On an empty cache (a new install, a new container), Numba compiles a kernel the first
time it is called with a set of argument types, and derived data (the High Card Flush
cells, the Hold'em Stud decision tables) take seconds to count; on a filled cache each is
still read from disk once per process. Left to the first requests, that work lands on a
player's round, and the advisor's kernels (called once per decision of every settled
seat by the figures recorder) on every worker. So the warm-up, in order:

0. the advisor (:func:`feltlab.analysis.warmup.warm_advisor`: what it reads, from the
   derived-data cache: a second or so), so that the trainer's first advice after start-up
   does not wait for the rest;
1. the money path and the recorder's path (:func:`feltlab.analysis.warmup.warm_builtin`:
   rounds of every built-in rule set played through the engine, settled, and every
   seat's figures computed: the PAR sheets' edges, the evaluators, the settlement and the
   advisor of each decision: the trainer's advice is the same call);
2. the trainers (a drill hand and a dealer-trainer round of each rule set);
3. the designer (:func:`feltlab.server.services.designer.warm_designer`: each rule set's
   analysis and the protection kernels a design runs): ``feltlab warm`` only; a server
   computes designs in the designer's own processes, which warm it themselves
   (:mod:`feltlab.server.designer_pool`).

``/healthz`` answers ``"ready": false`` until it ends (the server is alive and serves
meanwhile), and the server logs how long it took. ``feltlab warm`` runs the same ahead of
time (:func:`warm_everything`), so that the first process on a machine starts warm too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from feltlab.analysis.warmup import warm_advisor, warm_builtin
from feltlab.core.family import provides
from feltlab.core.registry import builtin_ids
from feltlab.core.rules import load_rules
from feltlab.present import trainer
from feltlab.server.services import designer

log = logging.getLogger("feltlab.server")


@dataclass
class _State:
    started: bool = False
    done: bool = False
    seconds: float = 0.0
    steps_done: set[str] = field(default_factory=set)


_state = _State()
_lock = threading.Lock()


def warm_advisors(rules_ids: list[str]) -> None:
    """:func:`~feltlab.analysis.warmup.warm_advisor` for each rule set whose game has an
    advisor (exact math)."""
    for rules_id in rules_ids:
        rules = load_rules(rules_id)
        if provides(rules, "math"):
            warm_advisor(rules)


def warm_trainers(rules_ids: list[str]) -> None:
    """A drill hand (with its advice, where the game has an advisor) and a dealer-trainer
    round checked, per rule set."""
    for rules_id in rules_ids:
        if provides(load_rules(rules_id), "math"):
            trainer.drill(rules_id, False)
        answer = trainer.dealer_round(rules_id)
        trainer.check_payouts(answer["request"], {})


STEPS: tuple[tuple[str, Callable[[list[str]], object]], ...] = (
    ("advisor", warm_advisors),
    ("rounds, figures and advice", lambda ids: warm_builtin(ids)),
    ("trainers", warm_trainers),
    ("designer", designer.warm_designer),
)
"""The warm-up's steps in order: the advisor (quick), then the money path."""
SERVER_STEPS = tuple(step for step in STEPS if step[0] != "designer")
"""What a server's worker warms in itself: not the designer (its processes warm it)."""


def warm_everything(rules_ids: list[str] | None = None,
                    progress: Callable[[str], None] | None = None,
                    steps: tuple[tuple[str, Callable[[list[str]], object]], ...] = STEPS
                    ) -> float:
    """Run every step (or those given) for every built-in rule set (or those named) in
    this thread;
    answers the seconds (wall clock). A step that fails is logged and the next runs:
    whatever it left cold is built by the first request that needs it, as without a
    warm-up."""
    start = time.perf_counter()
    ids = list(builtin_ids() if rules_ids is None else rules_ids)
    for name, step in steps:
        if progress is not None:
            progress(name)
        try:
            step(ids)
        except Exception:
            log.exception("warming up %s failed; the first request that needs it will "
                          "build it", name)
        _state.steps_done.add(name)
    return time.perf_counter() - start


def start(then: Callable[[], None] | None = None) -> None:
    """Start the warm-up in a background thread (once a process); ``then`` runs in that
    thread when it is over (the server settles its heap: what the warm-up built lives as
    long as the worker)."""
    with _lock:
        if _state.started:
            return
        _state.started = True
    threading.Thread(target=_run, args=(then,), name="feltlab-warm-up", daemon=True).start()


def _run(then: Callable[[], None] | None) -> None:
    seconds = warm_everything(steps=SERVER_STEPS)
    _state.seconds, _state.done = seconds, True
    log.info("warm-up done in %.1f s: every built-in rule set's kernels, derived data "
                "and PAR sheet are loaded", seconds,
                extra={"fields": {"warm_up_seconds": round(seconds, 3)}})
    if then is not None:
        then()


def step_done(name: str) -> bool:
    """Whether the warm-up's step ``name`` (one of :data:`STEPS`) has run in this process."""
    return name in _state.steps_done


def ready() -> bool:
    """False while the warm-up runs (true when it is over, or was never started)."""
    return _state.done or not _state.started


def seconds() -> float:
    """How long the warm-up took (0 until it is over)."""
    return _state.seconds
