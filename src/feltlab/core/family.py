"""The one protocol every game family implements, and all the rest of feltlab sees.

A game family is one folder under :mod:`feltlab.games` (OpenSpiel's model): its rule-set
model and shipped rule sets, how a round is dealt and settled, its exact solver and
strategies, its simulation kernel, its protection model, and the words and layout hints
the faces show. The engine, the analysis, the simulator, game protection, the terminal,
the table server and the browser are written once against :class:`GameFamily`; none of
them asks which family it holds.

A family groups what it knows in facets, each a protocol below:

* :class:`EngineSteps` (``family.engine``): dealing, decisions, reveals and settlement
  for :class:`~feltlab.core.engine.HandState`, and the payout calculator's JSON form.
* :class:`ExactMath` (``family.math``): the PAR sheet, the advisor, strategy files.
* :class:`SimulationKernel` (``family.kernel``): the compiled round and its arrays.
* :class:`ProtectionModel` (``family.protection``): what information is worth.
* :class:`Words` (``family.words``): names, rules-card lines, pay tables, hand views,
  the dealer's procedure, trainer hands and the terminal's prompts.

Exact math, the kernel and the protection model are optional: a family lists the ones it
has in :attr:`GameFamily.provides` (:data:`OPTIONAL_FACETS`) and asking for another raises
:class:`MissingFacet`. Without them every face still works through the engine: the
simulator plays rounds through :class:`~feltlab.core.engine.HandState`, the analysis gives
Monte Carlo estimates with their standard errors, and the advisor and the protection
report say the game has none (:func:`provides`).

A family's facets are imported when first used, so that a command pays only for what it
runs (:class:`PackagedFamily` finds them in the family's folder by name). The families
ship rule sets as ``rulesets/ID.toml`` and strategy cards as ``strategies/ID.toml`` in
their folder; the registry (:mod:`feltlab.core.registry`) finds both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from importlib import import_module, resources
from importlib.resources.abc import Traversable
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from feltlab.core import registry
from feltlab.core.words import Words

if TYPE_CHECKING:
    from feltlab.core.cards import Card
    from feltlab.core.decisions import DecisionKind
    from feltlab.core.engine import Decide, HandState, SeatState
    from feltlab.core.model import Advice, ParSheet, Progress, WagerAnalysis
    from feltlab.core.protection import Case, CaseResult, Countermeasure, Leak, Signal
    from feltlab.core.rules import Rules
    from feltlab.core.settle import Settlement
    from feltlab.core.simkit import I64, Strategy

R = TypeVar("R", bound="Rules", contravariant=True)

OPTIONAL_FACETS: Final = {"math": "exact math (a PAR sheet and an advisor)",
                          "kernel": "compiled simulation kernel",
                          "protection": "protection model"}
"""The facets a family may leave out, and what each is called when it is missing."""


class MissingFacet(ValueError):
    """A family was asked for an optional facet it does not provide (a ``ValueError``:
    the faces refuse it as they refuse any request the game cannot answer).

    >>> str(MissingFacet("toy", "math"))
    'toy has no exact math (a PAR sheet and an advisor)'
    """

    def __init__(self, game: str, facet: str) -> None:
        super().__init__(f"{game} has no {OPTIONAL_FACETS[facet]}")
        self.game = game
        self.facet = facet
PayKey = int | str
"""A pay-table line: a count (flush cards) or a hand's name (Hold'em Stud)."""


class EngineSteps(Protocol[R]):
    """What :class:`~feltlab.core.engine.HandState` asks of a game, and the payout
    calculator's form of a hand."""

    @property
    def colours(self) -> tuple[str, ...]:
        """The sides a seat chooses before the deal (``ChooseColour``); empty if none."""

    @property
    def payout_fields(self) -> frozenset[str]:
        """The fields of this game's payout request (``rules`` and ``wagers`` included)."""

    def cards_needed(self, rules: R, players: int) -> int:
        """Cards a round with ``players`` hands deals."""

    def check_ready(self, state: HandState, seat: int) -> None:
        """Refuse (``ActionError``) to deal while ``seat`` lacks a choice the game needs."""

    def deal(self, state: HandState) -> None:
        """The first cards, from the top of the deck, when the wagers close."""

    def check_decision(self, state: HandState, seat: int, action: Decide) -> None:
        """Refuse (``WagerError``) a decision of one of this game's kinds (the engine
        checked the kind and whether it has an amount) that the rules do not allow now."""

    def stake(self, state: HandState, seat: int, action: Decide) -> int:
        """What a decision puts on the table (0 for one that puts nothing)."""

    def legal_amounts(self, state: HandState, seat: int) -> Sequence[int]:
        """The stakes the game's main decision (its first kind) may take now, smallest
        first (empty: fold only); a game that raises gives a ``range`` (a raise may be any
        amount of it)."""

    def open_kinds(self, state: HandState, seat: int
                   ) -> list[tuple[DecisionKind, Sequence[int]]]:
        """Each decision kind open to ``seat`` now besides a fold, with its legal amounts
        (ignored for a kind without an amount). By default: the game's main kind, while
        :meth:`legal_amounts` has any."""
        amounts = self.legal_amounts(state, seat)
        return [(family_of(state.rules).decisions[0], amounts)] if amounts else []

    def reveal(self, state: HandState) -> None:
        """The dealer's next reveal; moves the state to its next phase."""

    def settle(self, state: HandState, hand: SeatState) -> Settlement:
        """One seat's settlement once every card is out."""

    def options_json(self, state: HandState, seat: int
                     ) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
        """The seat's decisions now in API v1's form, and a raise range if the game has one."""

    def settle_request(self, rules: R, request: Mapping[str, Any]) -> Settlement:
        """Settle a payout-calculator request (fields already checked against
        :attr:`payout_fields`)."""

    def payout_request(self, state: HandState, seat: int) -> dict[str, Any]:
        """The complete hand of ``seat`` as a payout-calculator request."""

    def request_stakes(self, request: Mapping[str, Any]) -> dict[str, int]:
        """Every stake of a payout request by result name (decision wagers included)."""

    def most_at_risk(self, rules: R, bets: Mapping[str, int]) -> int:
        """The most one hand can cost at ``bets``: every wager lost with the largest
        stakes its decisions can add (a session's ruin: the bankroll cannot cover it)."""


class ExactMath(Protocol[R]):
    """The exact analysis of a rule set: counts over every deal, never samples."""

    def analyze(self, rules: R, progress: Progress | None) -> ParSheet:
        """The PAR sheet: every wager's return table, the optimal strategy, its card."""

    def advice_inputs(self, rules: R, cards: str, community: str | None, colour: str | None,
                      bets: str | None) -> AdviceInputs:
        """The hand an advice is asked for, checked against the game (``ValueError``)."""

    def advise(self, rules: R, inputs: AdviceInputs, dead: Sequence[Card],
               seen: Sequence[Card]) -> Advice:
        """The exact EV of every option open to one hand (see :func:`feltlab.analysis.advise`);
        the family's words turn each option's name into a button and an action
        (:meth:`Words.option_action`)."""

    def hand_group(self, rules: R, inputs: AdviceInputs) -> str:
        """The kind of hand a decision was taken with, as a trainer names a mistake's
        hand (``a 3-card flush to the Q``): the decisions a player's rating groups."""

    def parse_strategy(self, text: str, origin: str) -> object:
        """A strategy file's content (``ValueError`` naming the field)."""

    def evaluate_strategy(self, rules: R, strategy: object) -> WagerAnalysis:
        """The exact main-game return of a parsed strategy (``ValueError`` if not this
        game's)."""

    def capped_returns(self, rules: R, bets: Mapping[str, int]) -> dict[str, Fraction]:
        """Every wager's house edge at ``bets`` under the aggregate payout cap."""


class SimulationKernel(Protocol[R]):
    """A game's compiled round for the simulator, and the arrays it reads.

    ``play`` is a Numba function inlined into the simulator's loops (see
    :mod:`feltlab.simulate.kernel`): it plays one round from a shuffled ``deck`` for
    ``seats`` seats and writes each seat's net per wager slot into ``nets`` (the last
    slot: the seat's capped total)."""

    @property
    def WAGERS(self) -> tuple[str, ...]:
        """The wager slots the kernel reports, ``total`` last."""

    @property
    def COUNTER_NAMES(self) -> tuple[str, ...]:
        """What the kernel's counters count."""

    @property
    def play(self) -> Callable[..., None]:
        """The compiled round."""

    def cards_per_round(self, seats: int) -> int:
        """Cards a round deals to ``seats`` seats."""

    def params(self, rules: R, bets: dict[str, int], mistake_threshold: int) -> I64:
        """Every number the compiled round needs, read from the rule set."""

    def optimal_strategy(self, rules: R) -> Strategy:
        """The analysis's optimal strategy as the kernel's arrays."""

    def simple_strategy(self, rules: R) -> Strategy:
        """The strategy card as the kernel's arrays."""

    def file_strategy(self, rules: R, path: Path) -> Strategy:
        """A strategy file as the kernel's arrays."""

    def check_strategy(self, rules: R, strategy: Strategy) -> None:
        """Refuse arrays of the wrong shape or with an illegal decision (``ValueError``)."""

    def exact_edges(self, rules: R, strategy: Strategy, mistakes: Fraction
                    ) -> dict[str, Fraction]:
        """Every wager's exact house edge under ``strategy`` with this mistake rate, where
        the analysis gives one."""

    def capped_total(self, rules: R, bets: dict[str, int]) -> Fraction:
        """The exact house edge of a seat's capped total at ``bets``, optimal play."""


class ProtectTools(Protocol):
    """What game protection lends a family for its countermeasures: the case evaluator
    and the pay-table solver (both written above the games)."""

    def evaluate(self, rules: Rules, case: Case) -> CaseResult:
        """The players' edge in ``case`` under (modified) ``rules``."""

    def solve_line(self, rules: Rules, wager: str, target: Fraction, line: str
                   ) -> tuple[Rules, dict[PayKey, int | str], Fraction]:
        """The pay of one line nearest ``target``: the new rules, table and house edge
        (``ValueError`` when there is none)."""


class ProtectionModel(Protocol[R]):
    """What shared cards, a seen dealer card or a seen next card are worth in a game."""

    @property
    def default_deals(self) -> int:
        """Monte Carlo deals per case by default (0: every case is exact)."""

    def leaks(self, rules: R) -> tuple[Leak, ...]:
        """The kinds of information and whether each can matter here, and why."""

    def max_dealer_seen(self, rules: R) -> int:
        """The most dealer cards a case may see (0: no dealer hand)."""

    def max_next_seen(self, rules: R) -> int:
        """The most next cards a case may see (0: none to come)."""

    def check_case(self, rules: R, case: Case) -> None:
        """Refuse a case this game cannot have beyond the bounds above (``ValueError``)."""

    def evaluate(self, rules: R, case: Case, deals: int, seed: int,
                 progress: Callable[[int, int], None] | None) -> CaseResult:
        """The players' edge in one (already checked) case."""

    def house_edge(self, rules: R) -> Fraction:
        """The main game's exact house edge under optimal play."""

    def notes(self, rules: R) -> tuple[str, ...]:
        """What the report says of this game's cases, after the common notes."""

    def signals(self, rules: R, results: Sequence[CaseResult], deals: int, seed: int
                ) -> tuple[Signal, ...]:
        """Practical signalling strategies a team could use, beyond a seen card's."""

    def countermeasures(self, rules: R, results: Sequence[CaseResult], deals: int, seed: int,
                        tools: ProtectTools) -> tuple[Countermeasure, ...]:
        """What an operator can change, each measured."""


@dataclass(frozen=True)
class AdviceInputs:
    """One hand as the advisor takes it: the player's cards, the community cards turned,
    the colour (9 Card Flush) and the street bets made, in antes (Hold'em Stud)."""

    player: tuple[Card, ...]
    community: tuple[Card, ...] = ()
    colour: str | None = None
    bets: tuple[int, ...] = ()


class GameFamily(Protocol):
    """A game family: everything one game knows (see the module's text)."""

    @property
    def game(self) -> str:
        """The name rule sets give in ``game = "..."``, and the entry point's name."""

    @property
    def title(self) -> str:
        """The family as people call it (``High Card Flush family``)."""

    @property
    def position(self) -> int:
        """Where the family comes in documents and lists (smaller first)."""

    @property
    def folder(self) -> Traversable:
        """The family's folder: ``rulesets/`` and ``strategies/`` are read from it."""

    @property
    def rules_model(self) -> type[Rules]:
        """The family's rule-set model."""

    @property
    def wager_titles(self) -> Mapping[str, str]:
        """Each wager and decision wager's name as the rules card writes it."""

    @property
    def strategy_keys(self) -> frozenset[str]:
        """Top-level keys that tell this game's strategy files from other games'."""

    @property
    def decisions(self) -> tuple[DecisionKind, ...]:
        """The game's decision kinds besides a fold, its main one first (the one a
        stake-only choice such as the strategy's amount stands for)."""

    @property
    def provides(self) -> frozenset[str]:
        """The optional facets (:data:`OPTIONAL_FACETS`) this family has; asking for
        another raises :class:`MissingFacet`."""

    @property
    def engine(self) -> EngineSteps[Any]: ...

    @property
    def words(self) -> Words[Any]: ...

    @property
    def math(self) -> ExactMath[Any]: ...

    @property
    def kernel(self) -> SimulationKernel[Any]: ...

    @property
    def protection(self) -> ProtectionModel[Any]: ...


class PackagedFamily:
    """A family laid out by the convention of feltlab's own: its facets are modules of one
    package, found by name and imported when first asked for (``engine.steps``,
    ``words.words``, the ``exact`` and ``kernel`` modules, ``protection.protection``), and
    its folder is the package's. A family subclasses this, sets the class attributes of
    :class:`GameFamily` that are data (game, title, position, rules_model, wager_titles,
    strategy_keys) and is made with its package's name."""

    FACET_MODULES: Final = {"math": "exact", "kernel": "kernel", "protection": "protection"}
    """The module each optional facet is in."""

    def __init__(self, package: str) -> None:
        self.package = package
        self._modules: dict[str, Any] = {}
        self._provides: frozenset[str] | None = None

    @property
    def provides(self) -> frozenset[str]:
        """The optional facets whose module the package has (found without importing
        them: a command pays only for the facets it runs)."""
        if self._provides is None:
            self._provides = frozenset(
                facet for facet, module in self.FACET_MODULES.items()
                if find_spec(f"{self.package}.{module}") is not None)
        return self._provides

    def _facet(self, facet: str) -> Any:
        if facet not in self.provides:
            raise MissingFacet(getattr(self, "game", self.package), facet)
        return self._module(self.FACET_MODULES[facet])

    def _module(self, name: str) -> Any:
        module = self._modules.get(name)
        if module is None:  # imported when first asked for, then kept: asked at every action
            module = self._modules[name] = import_module(f"{self.package}.{name}")
        return module

    @property
    def folder(self) -> Traversable:
        return resources.files(self.package)

    @property
    def engine(self) -> EngineSteps[Any]:
        steps: EngineSteps[Any] = self._module("engine").steps
        return steps

    @property
    def words(self) -> Words[Any]:
        words: Words[Any] = self._module("words").words
        return words

    @property
    def math(self) -> ExactMath[Any]:
        math: ExactMath[Any] = self._facet("math")
        return math

    @property
    def kernel(self) -> SimulationKernel[Any]:
        kernel: SimulationKernel[Any] = self._facet("kernel")
        return kernel

    @property
    def protection(self) -> ProtectionModel[Any]:
        protection: ProtectionModel[Any] = self._facet("protection").protection
        return protection


def provides(rules: Rules, facet: str) -> bool:
    """Whether the family of ``rules`` has the optional ``facet`` (:data:`OPTIONAL_FACETS`)."""
    return facet in family_of(rules).provides


def family_of(rules: Rules) -> GameFamily:
    """The family a rule set belongs to."""
    return registry.family(rules.game)


def wager_title(name: str) -> str:
    """A wager's name as the rules cards write it (any family's wager), else ``name``.

    >>> wager_title("straight_flush"), wager_title("bonus9"), wager_title("tip")
    ('Straight Flush bonus', '9 Card Bonus', 'tip')
    """
    for each in registry.families():
        title = each.wager_titles.get(name)
        if title is not None:
            return title
    return name
