"""The variant designer: a rule set as TOML text in, its exact PAR sheet, strategy card,
protection figures or solved pay table out (no money moves here).

Each question is a :class:`Design`, a small value that a process of the designer's pool
computes (:mod:`feltlab.server.designer_pool`), never a request's thread; each knows the
command line that computes it without the server's time budget (:meth:`Design.command`).
The pool's processes warm the compiled kernels and each built-in rule set's analysis once
(:func:`warm_designer`), so that designs answer quickly; Numba keeps its compiled code on
disk, and the analysis's derived data too, so a second start is quicker still.
"""

from __future__ import annotations

import shlex
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Final, TypeVar

from feltlab.analysis import analyze
from feltlab.core import registry
from feltlab.core.family import family_of, provides
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
from feltlab.server.errors import NotFound, Refused

T = TypeVar("T")

MAX_PROTECTION_DEALS: Final = 20_000
"""Most Monte Carlo deals per protection case a design may ask for."""
ORIGIN: Final = "rules"
"""How a design's refusals name it: ``rules: field flush_pays.4: ...``."""
DESIGN_FILE: Final = "design.toml"
"""The file a design too long for the server is to be saved as, in the command given."""


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


def _deals(rules: Rules, deals: int) -> int:
    """The Monte Carlo deals a protection design runs per case (0: all exact)."""
    return min(deals, MAX_PROTECTION_DEALS) if default_deals(rules) > 0 else 0


def _save_and_run(arguments: list[str]) -> str:
    """What to do with a design the server will not finish: save it, run the command."""
    return (f"save the design as a rule-set file, {DESIGN_FILE}, and run "
            f"`feltlab {shlex.join(arguments)}`")


class Design(ABC):
    """A question to the designer, computed by a process of the designer's pool: a
    picklable value, its answer JSON."""

    kind: ClassVar[str]
    """What the designer's limit records it as (``par``, ``protection``...)."""

    @abstractmethod
    def compute(self) -> dict[str, Any]:
        """The answer (a refusal: :class:`~feltlab.server.errors.Refused`, naming why)."""

    @abstractmethod
    def command(self) -> str:
        """How to get the answer from the command line, which has no time budget."""


@dataclass(frozen=True)
class ParSheet(Design):
    """The design's exact PAR sheet, as ``feltlab analyze FILE --json`` prints it."""

    text: str
    kind: ClassVar[str] = "par"

    def compute(self) -> dict[str, Any]:
        rules = design_rules(self.text)
        return _checked(lambda: analyze(rules).to_json())

    def command(self) -> str:
        return _save_and_run(["analyze", DESIGN_FILE, "--json"])


@dataclass(frozen=True)
class StrategyCard(Design):
    """The design's strategy card (and what it costs) and its optimal strategy by hand."""

    text: str
    kind: ClassVar[str] = "strategy"

    def compute(self) -> dict[str, Any]:
        rules = design_rules(self.text)
        sheet = _checked(lambda: analyze(rules).to_json())
        return {"rules": sheet["rules"], "fingerprint": sheet["fingerprint"],
                "strategy_card": sheet.get("strategy_card"),
                "strategy_map": sheet["strategy_map"]}

    def command(self) -> str:
        return _save_and_run(["analyze", DESIGN_FILE, "--json"])


@dataclass(frozen=True)
class Protection(Design):
    """What game protection says of the design: the players' edge with one card flashed,
    and with ``colluders`` seats sharing their cards."""

    text: str
    colluders: int
    deals: int
    kind: ClassVar[str] = "protection"

    def compute(self) -> dict[str, Any]:
        rules = design_rules(self.text)
        cases = [case for case in (_flashed_card(rules), Case(self.colluders))
                 if case is not None]
        count = _deals(rules, self.deals)
        results = _checked(lambda: [_evaluated(rules, case, count) for case in cases])
        edge = float(house_edge(rules))
        return {"rules": rules.id, "fingerprint": rules.fingerprint, "house_edge": edge,
                "deals": count,
                "cases": [{**result.to_json(), "case": result.case.describe()}
                          for result in results],
                "leaks": [{"name": leak.name, "title": leak.title, "applies": leak.applies,
                           "why": leak.why} for leak in leaks(rules)]}

    def command(self) -> str:
        rules = design_rules(self.text)
        count = _deals(rules, self.deals)
        deals = ["--deals", str(count)] if count else []
        colluders = ["protect", DESIGN_FILE, "--colluders", str(self.colluders), *deals]
        flashed = _flashed_card(rules)
        if flashed is None:
            return _save_and_run(colluders)
        seen = ["--dealer-seen", "1"] if flashed.dealer_seen else ["--next-seen", "1"]
        return (f"{_save_and_run(colluders)} (and `feltlab "
                f"{shlex.join(['protect', DESIGN_FILE, *seen, *deals])}` for the flashed "
                f"card)")


def _solve_options(wager: str, target: str, line: str | None) -> list[str]:
    return ["--wager", wager, "--target", target,
            *(["--line", line] if line else ["--scale"]), "--json"]


@dataclass(frozen=True)
class DesignSolution(Design):
    """The whole-number pays of one of the design's pay tables nearest a target edge."""

    text: str
    wager: str
    target: str
    line: str | None
    kind: ClassVar[str] = "solve"

    def compute(self) -> dict[str, Any]:
        rules = design_rules(self.text)
        return _checked(lambda: solver.solve_json(rules, self.wager, self.target, self.line,
                                                  analyze))

    def command(self) -> str:
        return _save_and_run(["solve-paytable", DESIGN_FILE,
                              *_solve_options(self.wager, self.target, self.line)])


@dataclass(frozen=True)
class PaySolution(Design):
    """The whole-number pays of a built-in or published rule set's bonus pay table
    nearest a target edge (the pages' pay-table solver)."""

    rules: Rules
    wager: str
    target: str
    line: str | None
    kind: ClassVar[str] = "solve"

    def compute(self) -> dict[str, Any]:
        return _checked(lambda: solver.solve_json(self.rules, self.wager, self.target,
                                                  self.line))

    def command(self) -> str:
        options = _solve_options(self.wager, self.target, self.line)
        if self.rules.id in registry.builtin_ids():
            return f"run `feltlab {shlex.join(['solve-paytable', self.rules.id, *options])}`"
        return (f"save the rule set (GET /api/v1/designer/base/{self.rules.id} answers its "
                f"TOML) as rules.toml and run "
                f"`feltlab {shlex.join(['solve-paytable', 'rules.toml', *options])}`")


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


# Warming -------------------------------------------------------------------------------

WARM_DEALS: Final = 200
"""Monte Carlo deals per protection case when the designer is warmed: enough to run each
compiled kernel, a fraction of a second once they are loaded."""


def warm_designer(rules_ids: list[str] | None = None,
                  left: Callable[[list[str]], None] | None = None) -> None:
    """Warm the designer in this thread, High Card Flush first (the page opens on it):
    each built-in rule set's analysis and what a protection design runs (its cases'
    compiled kernels, on a few deals); ``left`` is told the rule sets still to warm after
    each one. The designer's pool runs it in each of its processes; ``feltlab warm``
    fills the disk caches with it (:mod:`feltlab.server.warmup`)."""
    chosen = list(registry.builtin_ids() if rules_ids is None else rules_ids)
    solved: set[type] = set()
    for done, rules_id in enumerate(chosen, 1):
        rules = load_rules(rules_id)
        if type(rules) in solved:
            analyze(rules)
        else:  # one rule set of each game solved, not read from the disk cache: that
            # warms the game's solver for a design's first strategy-moving edit
            solved.add(type(rules))
            with solving_afresh():
                analyze(rules)
        if provides(rules, "protection"):  # a game without one has no protection page
            cases = [case for case in (_flashed_card(rules), Case(2)) if case is not None]
            deals = WARM_DEALS if default_deals(rules) > 0 else 0
            for case in cases:
                _evaluated(rules, case, deals)
            house_edge(rules)
        if left is not None:
            left(chosen[done:])
