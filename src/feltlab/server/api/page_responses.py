"""Response models of the JSON the pages read beside the tables: rule cards, hands laid
out, the trainers, the pay-table solver and the variant designer (see
:mod:`feltlab.server.api.responses` for how the models describe the answers)."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict

from feltlab.server.api.responses import Answer, Option


class RuleCardWager(Answer):
    name: str
    title: str
    spot: str
    min: int
    max: int
    required: bool
    pay_table: dict[str, Any] | None
    """The rules card's pay table (title, unit, rows of line and pays), if it has one."""


class RuleCard(Answer):
    """Everything a page shows about one built-in rule set."""

    id: str
    name: str
    game: str
    game_name: str
    seats: int
    fingerprint: str
    label: str
    main_wager: str
    wagers: list[RuleCardWager]
    decision_wagers: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    """The decision buttons (label, action, multiple), as the game family words them."""
    max_aggregate_payout: int | None
    lines: list[str]
    deal: list[dict[str, Any]]
    """The order the engine deals in (to whom, how many), as the game family lays it out."""
    procedure: list[str]
    notes: str
    colours: list[str]
    advice_takes_bets: bool
    facets: list[str]
    """The optional facets the game has (``math``: exact math and an advisor; ``kernel``,
    ``protection``); without ``math`` its figures are Monte Carlo estimates."""
    titles: dict[str, str]


class HandView(Answer):
    """Cards laid out for the page: ``bonus`` names the bonus hands; every other key is a
    group of cards the game family lays out (``player``, ``dealer``, ``community``...:
    the cards marked, and the hand described), and, for a complete round, ``settlement``
    holds one row per settled wager (title, stake, net, what it was settled on)."""

    model_config = ConfigDict(strict=True, extra="allow")
    __pydantic_extra__: dict[str, Any]

    bonus: list[dict[str, str]]


class OptionAdvice(Answer):
    option: str
    label: str
    action: Option
    ev: float
    ev_exact: str
    best: bool


class Verdict(Answer):
    chosen: str
    right: bool
    cost: float
    cost_exact: str


class StrategyScore(Answer):
    right: int
    total: int
    cost: float
    """In units of the main wager."""


class DealerScore(Answer):
    rounds: int
    perfect: int
    right: int
    of: int
    seconds: float


class Advice(Answer):
    rules: str
    hand: str
    best: str
    options: list[OptionAdvice]
    verdict: Verdict | None = None
    """With ``chosen``: right, or what it costs against the best option."""
    gap: float
    score: StrategyScore | None = None
    """With ``record``: the caller's strategy-trainer score now."""


class Drill(Answer):
    """A hand to decide, as the game family deals one, with its advice."""

    model_config = ConfigDict(strict=True, extra="allow")

    rules: str
    player: str
    community: str
    colour: str | None
    bets: list[int]
    advice: Advice


class WagerToSettle(Answer):
    wager: str
    title: str
    stake: int


class DealerRound(Answer):
    rules: str
    request: dict[str, Any]
    """The round as a ``feltlab payout`` request, without its results."""
    decided: str
    """The player's decisions in words, by the game's labels (``Raise 20``)."""
    to_settle: list[WagerToSettle]


class CheckedWager(Answer):
    wager: str
    title: str
    expected: int
    entered: int | None
    right: bool


class DealerCheck(Answer):
    rows: list[CheckedWager]
    right: int
    of: int
    total: int
    capped: bool
    settlement: dict[str, Any]
    score: DealerScore | None = None
    """With ``record``: the caller's dealer-trainer score now."""


class TrainerScores(Answer):
    strategy: dict[str, StrategyScore]
    """By rule set."""
    dealer: dict[str, DealerScore]
    """By rule set."""


class SolvableWager(Answer):
    wager: str
    lines: list[str]


class SolvedRow(Answer):
    line: str
    was: str
    now: str
    pays: int | str
    """The line's new pays as the rule set writes them (a number, or ``push``)."""
    changed: bool


class Solution(Answer):
    rules: str
    wager: str
    method: str
    line: str | None
    target: float
    house_edge: float
    house_edge_exact: str
    scale: float | None
    exact: float | None
    rows: list[SolvedRow]


# The variant designer ------------------------------------------------------------------

class SheetLine(Answer):
    label: str
    net: float
    count: int
    probability: float
    contribution: float


class SheetWager(Answer):
    name: str
    title: str
    house_edge: float
    house_edge_exact: str
    hit_frequency: float
    std_dev: float
    element_of_risk: float
    """House edge per unit of everything wagered (raises and street bets included); a
    side bet's is its house edge."""
    total: int
    lines: list[SheetLine]
    rates: dict[str, float]
    average_total_wager: float | None = None
    """Wagers with decisions: the average total amount wagered per unit of the wager."""
    std_error: float | None = None
    """A Monte Carlo estimate's standard error of ``house_edge`` (exact sheets: none)."""


class SheetCard(Answer):
    lines: list[str]
    house_edge: float
    optimal_house_edge: float
    cost: float


class SheetMapRow(Answer):
    hands: str
    decision: str
    share: float


class SheetEstimate(Answer):
    """How an estimated sheet (a game without exact math) was sampled."""

    method: str
    rounds: int
    seed: int
    std_errors: dict[str, float]


class ParSheetAnswer(Answer):
    rules: str
    fingerprint: str
    modified: bool
    name: str
    wagers: list[SheetWager]
    notes: list[str]
    estimate: SheetEstimate | None = None
    """Present when every figure is a Monte Carlo estimate, not exact."""
    strategy_card: SheetCard | None = None
    strategy_map: list[SheetMapRow]


class StrategyAnswer(Answer):
    rules: str
    fingerprint: str
    strategy_card: SheetCard | None
    strategy_map: list[SheetMapRow]


class ProtectionCase(Answer):
    case: str
    colluders: int
    dealer_seen: int
    next_seen: int
    player_edge: float
    player_edge_exact: str | None = None
    std_error: float
    exact: bool
    states: int
    method: str
    seconds: float


class ProtectionLeak(Answer):
    name: str
    title: str
    applies: bool
    why: str


class ProtectionAnswer(Answer):
    rules: str
    fingerprint: str
    house_edge: float
    deals: int
    cases: list[ProtectionCase]
    leaks: list[ProtectionLeak]


class DesignBase(Answer):
    id: str
    name: str
    game: str
    fingerprint: str
    toml: str
    values: dict[str, Any]
    rules_schema: dict[str, Any]
    """The JSON schema of the family's rule-set model: the page builds its form from it."""
    pay_tables: dict[str, str]


class Warmth(Answer):
    warm: bool
    warming: list[str]
    seconds: float


class PublishedRules(Answer):
    id: str
    name: str
    game: str
    fingerprint: str
    published_by: str
    published_at: str
    withdrawn_at: str | None


class PublishChecksAnswer(Answer):
    rules: str
    fingerprint: str
    house_edges: dict[str, float]
    player_favoured: list[str]
    exposure: int
    exposure_limit: int
    exposure_detail: str
