"""The pay-table solver: the integer pays (or the scale) that put a wager's house edge
nearest a target.

Two ways, chosen by the wager:

* a wager without decisions (every bonus wager): its return is linear in each pay, so
  one analysis gives the answer. A row of the return table that pays on line ``k``
  (``OutcomeLine.key == k``) nets ``pays[k]`` times what was wagered on it, so raising
  ``pays[k]`` by one lowers the house edge by ``sum(count * wagered) / total`` over those
  rows; the solver inverts that exactly.
* a main game with decisions (Hold'em Stud's pay table): the optimal strategy moves with
  the pays, so the solver searches, re-running the analysis on a modified copy of the
  rules. Under optimal play the house edge never rises when a pay rises, so a bisection
  on the integer pay finds the nearest one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from feltlab.core.model import ParSheet, WagerAnalysis
from feltlab.core.rules import MAX_PAY, Rules, RulesError

PayKey = int | str
PayValue = int | str  # "push" in Hold'em Stud's tables
Analyzer = Callable[[Rules], ParSheet]



class SolverError(ValueError):
    """A question the solver cannot answer: no such wager, line or pay table."""


@dataclass(frozen=True)
class Solution:
    """The solved pay table and its exact house edge.

    ``exact`` is the real pay (or scale) that would hit the target exactly, when the
    solver could find it in closed form (the linear case)."""

    rules: Rules
    wager: str
    table: dict[PayKey, PayValue]
    original: dict[PayKey, PayValue]
    house_edge: Fraction
    target: Fraction
    method: str  # "linear" or "search"
    line: PayKey | None = None
    scale: Fraction | None = None
    exact: Fraction | None = None
    analyses: int = 1


def _default_analyzer(rules: Rules) -> ParSheet:
    from feltlab.analysis import analyze

    return analyze(rules)


def pay_table_field(rules: Rules, wager: str) -> str:
    """The name of the rule-set field holding ``wager``'s pay table.

    >>> from feltlab.core.rules import load_rules
    >>> pay_table_field(load_rules("nh-holdem-stud"), "bonus3")
    'bonus3_pays'
    """
    fields = rules.pay_table_fields()
    if wager not in fields:
        raise SolverError(f"wager {wager!r} of {rules.id} has no pay table; "
                          f"wagers with one: {', '.join(fields)}")
    return fields[wager]


def pay_table(rules: Rules, wager: str) -> dict[PayKey, PayValue]:
    table: dict[PayKey, PayValue] = dict(getattr(rules, pay_table_field(rules, wager)))
    return table


def with_pay_table(rules: Rules, wager: str, table: Mapping[PayKey, PayValue]) -> Rules:
    """A validated copy of ``rules`` with ``wager``'s pay table replaced."""
    field = pay_table_field(rules, wager)
    copy = rules.model_copy(update={field: dict(table)})
    try:
        return type(rules).model_validate(copy.model_dump())
    except ValueError as error:
        raise RulesError(f"{rules.id}: the solved pay table does not validate: {error}"
                         ) from error


def line_range(rules: Rules, wager: str, key: PayKey) -> tuple[int, int]:
    """The pays line ``key`` of ``wager``'s table may take while no better hand pays less
    than a worse one (a rule every pay table keeps) and no line pays over ``MAX_PAY``.

    >>> from feltlab.core.rules import load_rules
    >>> line_range(load_rules("nh-holdem-stud"), "ante", "flush")
    (4, 8)
    """
    table = pay_table(rules, wager)
    ranked = [(line, pay_number(table.get(line, -1))) for line in rules.ranked_pay_lines(wager)]
    place = [line for line, _ in ranked].index(key)
    low = max([0, *(pays for _, pays in ranked[:place])])
    high = min([MAX_PAY, *(pays for _, pays in ranked[place + 1:])])
    if high < low:
        raise SolverError(f"line {key} of {wager} cannot change: a better hand pays {high}, "
                          f"a worse one {low}")
    return low, high


def line_key(table: Mapping[PayKey, PayValue], text: str | int) -> PayKey:
    """The key of ``table`` that ``text`` names (``"5"`` for a count, ``"flush"`` or
    ``"Full house"`` for a hand).

    >>> line_key({4: 1, 5: 10}, "5"), line_key({"full_house": 8}, "Full house")
    (5, 'full_house')
    """
    for key in table:
        if isinstance(key, int):
            if str(key) == str(text).strip():
                return key
        elif key == str(text).strip().lower().replace(" ", "_").replace("-", "_"):
            return key
    raise SolverError(f"no pay-table line {text!r}; lines: {', '.join(map(str, table))}")


def pay_number(value: PayValue) -> int:
    """A pay as a number of units: a push pays 0 to 1 (and -1, a losing hand, stays -1)."""
    return 0 if value == "push" else int(value)


def parse_target(text: str) -> Fraction:
    """A house edge from text: ``"0.05"``, ``"5%"`` or ``"1/20"``.

    >>> parse_target("5%"), parse_target("0.025"), parse_target("1/20")
    (Fraction(1, 20), Fraction(1, 40), Fraction(1, 20))
    >>> parse_target("200%")
    Traceback (most recent call last):
    ...
    feltlab.analysis.paytable.SolverError: target '200%' is not a house edge between -100% and 100%
    """
    cleaned = text.strip()
    try:
        target = (Fraction(cleaned[:-1].strip()) / 100 if cleaned.endswith("%")
                  else Fraction(cleaned))
    except (ValueError, ZeroDivisionError):
        raise SolverError(f"target {text!r} is not a house edge such as 0.05, 5% or 1/20"
                          ) from None
    # A player who always folds (or never bets) loses at most the stake: an edge of 1 or
    # more, or of -1 or less, is no pay table's.
    if not -1 < target < 1:
        raise SolverError(f"target {text!r} is not a house edge between -100% and 100%")
    return target


# The linear case ------------------------------------------------------------------------

def _keyed(wager: WagerAnalysis, key: PayKey) -> list[tuple[int, Fraction]]:
    return [(line.count, Fraction(line.wagered)) for line in wager.lines
            if line.key is not None and str(line.key) == str(key)]


def line_weight(wager: WagerAnalysis, key: PayKey) -> Fraction:
    """How much the expected return grows per unit added to pay-table line ``key``."""
    return sum((Fraction(count) * wagered for count, wagered in _keyed(wager, key)),
               Fraction(0)) / wager.total


def _table_key(table: Mapping[PayKey, PayValue], key: PayKey | None) -> PayKey | None:
    """The line of ``table`` a row's key names, or None (a row that pays on no line of the
    table, such as a hand the table does not list: it keeps its result)."""
    if key is None:
        return None
    try:
        return line_key(table, key)
    except SolverError:
        return None


def _check_linear(wager: WagerAnalysis, table: Mapping[PayKey, PayValue]) -> None:
    for line in wager.lines:
        key = _table_key(table, line.key)
        if key is None:
            if line.net > 0:
                raise SolverError(f"{wager.name}: the winning row {line.label!r} names no "
                                  "pay-table line, so the return is not known to be linear")
            continue
        if Fraction(line.net) != pay_number(table[key]) * Fraction(line.wagered):
            raise SolverError(f"{wager.name}: row {line.label!r} nets {line.net}, not the "
                              f"{table[key]} to 1 of line {key}: the return is not linear")


def edge_with_table(wager: WagerAnalysis, table: Mapping[PayKey, PayValue]) -> Fraction:
    """The house edge of a wager without decisions if it were paid on ``table``: every
    keyed row nets its line's pay times its stake, the other rows are unchanged."""
    total = Fraction(0)
    for line in wager.lines:
        key = _table_key(table, line.key)
        net = Fraction(line.net) if key is None else pay_number(table[key]) * Fraction(
            line.wagered)
        total += net * line.count
    return -total / wager.total


def _nearest_integer(exact: Fraction, edge_at: Callable[[int], Fraction],
                     target: Fraction) -> int:
    """The integer pay >= 0 whose edge is nearest the target (ties: the higher edge)."""
    candidates = {max(0, math.floor(exact)), max(0, math.ceil(exact))}
    return min(sorted(candidates), key=lambda pay: abs(edge_at(pay) - target))


def solve_line_linear(sheet: ParSheet, rules: Rules, wager_name: str, line: str | int,
                      target: Fraction) -> Solution:
    """Solve one line of a wager without decisions from one analysis."""
    wager = sheet.wager(wager_name)
    original = pay_table(rules, wager_name)
    key = line_key(original, line)
    _check_linear(wager, original)
    weight = line_weight(wager, key)
    if weight == 0:
        raise SolverError(f"{wager_name}: no deal pays on line {key}, so its pay changes "
                          "nothing")

    def edge_at(pay: int) -> Fraction:
        return edge_with_table(wager, {**original, key: pay})

    exact = pay_number(original[key]) + (wager.house_edge - target) / weight
    pay = _nearest_integer(exact, edge_at, target)
    table = {**original, key: pay}
    return Solution(with_pay_table(rules, wager_name, table), wager_name, table, original,
                    edge_at(pay), target, "linear", line=key, exact=exact)


def scaled_table(table: Mapping[PayKey, PayValue], scale: Fraction) -> dict[PayKey, PayValue]:
    """Every pay times ``scale``, rounded half-even to a whole number; pushes stay pushes.

    >>> scaled_table({4: 1, 5: 10, 6: 50}, Fraction(3, 2))
    {4: 2, 5: 15, 6: 75}
    """
    return {key: value if value == "push" else round(pay_number(value) * scale)
            for key, value in table.items()}


MAX_SCALE_CANDIDATES = 20_000


def rounding_scales(table: Mapping[PayKey, PayValue], low: Fraction, high: Fraction,
                    ) -> list[Fraction]:
    """One scale inside each stretch of ``[low, high]`` where :func:`scaled_table` gives
    the same whole-number table: the midpoints between the scales at which some pay's
    rounding changes (``(k + 1/2) / pay``).

    >>> rounding_scales({4: 1, 5: 2}, Fraction(1), Fraction(2))
    [Fraction(9, 8), Fraction(11, 8), Fraction(13, 8), Fraction(15, 8)]
    """
    breaks = {low, high}
    for value in table.values():
        pays = pay_number(value)
        if pays > 0:
            first, last = math.ceil(low * pays - Fraction(1, 2)), math.floor(
                high * pays - Fraction(1, 2))
            breaks.update(Fraction(2 * k + 1, 2 * pays) for k in range(first, last + 1)
                          if low <= Fraction(2 * k + 1, 2 * pays) <= high)
    ordered = sorted(breaks)
    return [(a + b) / 2 for a, b in pairwise(ordered)]


def solve_scale_linear(sheet: ParSheet, rules: Rules, wager_name: str,
                       target: Fraction) -> Solution:
    """The scale on the whole table of a wager without decisions that hits the target
    exactly (``exact``), and the whole-number table nearest the target among those that a
    scale gives once every pay is rounded (``scale`` is one scale that gives it)."""
    wager = sheet.wager(wager_name)
    original = pay_table(rules, wager_name)
    _check_linear(wager, original)
    fixed = sum((Fraction(line.net) * line.count for line in wager.lines
                 if _table_key(original, line.key) is None), Fraction(0)) / wager.total
    keys = {key for line in wager.lines if (key := _table_key(original, line.key)) is not None}
    per_scale = sum((pay_number(original[key]) * line_weight(wager, key) for key in keys),
                    Fraction(0))
    if per_scale == 0:
        raise SolverError(f"{wager_name}: nothing pays, so no scale changes the house edge")
    exact = max(Fraction(0), (-target - fixed) / per_scale)
    candidates = rounding_scales(original, exact / 2, exact * 2 + 1)[:MAX_SCALE_CANDIDATES]
    scale = min([exact, *candidates], key=lambda value: (
        abs(edge_with_table(wager, scaled_table(original, value)) - target), value))
    table = scaled_table(original, scale)
    return Solution(with_pay_table(rules, wager_name, table), wager_name, table, original,
                    edge_with_table(wager, table), target, "linear", scale=scale, exact=exact)


# The search, for a wager with decisions ---------------------------------------------------

class _Evaluator:
    """House edge of a wager under a candidate table, one analysis per distinct table."""

    def __init__(self, rules: Rules, wager: str, analyzer: Analyzer,
                 on_analysis: Callable[[int], None] | None, known: ParSheet | None) -> None:
        self.rules, self.wager, self.analyzer = rules, wager, analyzer
        self.on_analysis = on_analysis
        self.cache: dict[tuple[tuple[str, str], ...], Fraction] = {}
        if known is not None:
            self.cache[self._signature(pay_table(rules, wager))] = (
                known.wager(wager).house_edge)

    @staticmethod
    def _signature(table: Mapping[PayKey, PayValue]) -> tuple[tuple[str, str], ...]:
        return tuple(sorted((str(key), str(pay_number(value))) for key, value in table.items()))

    def __call__(self, table: Mapping[PayKey, PayValue]) -> Fraction:
        signature = self._signature(table)
        if signature not in self.cache:
            sheet = self.analyzer(with_pay_table(self.rules, self.wager, table))
            self.cache[signature] = sheet.wager(self.wager).house_edge
            if self.on_analysis is not None:
                self.on_analysis(len(self.cache))
        return self.cache[signature]


def _bisect_integer(edge_at: Callable[[int], Fraction], start: int, target: Fraction,
                    least: int = 0, most: int = MAX_PAY) -> int:
    """Nearest-target integer for a non-increasing ``edge_at`` on ``least .. most``."""
    low, high = least, min(max(start, least + 1), most)
    while edge_at(high) > target and high < most:
        low, high = high, min(high * 2, most)
    if edge_at(low) <= target:
        return low
    while high - low > 1:  # edge_at(low) > target >= edge_at(high), or high is most
        middle = (low + high) // 2
        if edge_at(middle) > target:
            low = middle
        else:
            high = middle
    return min((low, high), key=lambda pay: abs(edge_at(pay) - target))


def solve_line_search(rules: Rules, wager_name: str, line: str | int, target: Fraction,
                      analyzer: Analyzer = _default_analyzer,
                      on_analysis: Callable[[int], None] | None = None,
                      known: ParSheet | None = None) -> Solution:
    """Solve one line by bisection, re-analysing the game for each candidate pay
    (``known``: the analysis of ``rules`` as they are, if already done)."""
    original = pay_table(rules, wager_name)
    key = line_key(original, line)
    evaluate = _Evaluator(rules, wager_name, analyzer, on_analysis, known)

    def edge_at(pay: int) -> Fraction:
        return evaluate({**original, key: pay})

    pay = _bisect_integer(edge_at, pay_number(original[key]), target,
                          *line_range(rules, wager_name, key))
    table = {**original, key: pay}
    return Solution(with_pay_table(rules, wager_name, table), wager_name, table, original,
                    edge_at(pay), target, "search", line=key, analyses=len(evaluate.cache))


def solve_scale_search(rules: Rules, wager_name: str, target: Fraction,
                       analyzer: Analyzer = _default_analyzer,
                       on_analysis: Callable[[int], None] | None = None,
                       known: ParSheet | None = None, steps: int = 12) -> Solution:
    """Bisect on the scale (pays rounded to whole numbers), re-analysing each candidate;
    the candidate nearest the target among those tried wins."""
    original = pay_table(rules, wager_name)
    evaluate = _Evaluator(rules, wager_name, analyzer, on_analysis, known)

    def edge_at(scale: Fraction) -> Fraction:
        return evaluate(scaled_table(original, scale))

    low, high = Fraction(0), Fraction(1)
    most = Fraction(MAX_PAY, max(pay_number(pays) for pays in original.values()) or 1)
    while edge_at(high) > target and high * 2 <= most:
        low, high = high, high * 2
    tried = [low, high]
    for _ in range(steps):
        middle = (low + high) / 2
        tried.append(middle)
        if edge_at(middle) > target:
            low = middle
        else:
            high = middle
    scale = min(tried, key=lambda value: (abs(edge_at(value) - target), value))
    table = scaled_table(original, scale)
    return Solution(with_pay_table(rules, wager_name, table), wager_name, table, original,
                    edge_at(scale), target, "search", scale=scale,
                    analyses=len(evaluate.cache))


# The entry point --------------------------------------------------------------------------

def solve(rules: Rules, wager: str, target: Fraction, line: str | int | None = None,
          scale: bool = False, analyzer: Analyzer = _default_analyzer,
          on_analysis: Callable[[int], None] | None = None) -> Solution:
    """Solve ``line`` of ``wager``'s pay table (or, with ``scale``, a factor on the whole
    table) for the house edge nearest ``target``: in closed form from one analysis when
    the wager has no decisions, by searching with re-analysis when it has."""
    if (line is None) == (not scale):
        raise SolverError("give either a pay-table line or the scale, not both or neither")
    if line is not None:
        line_key(pay_table(rules, wager), line)  # a wrong line costs no analysis
    else:
        pay_table_field(rules, wager)
    sheet = analyzer(rules)
    try:
        analysed = sheet.wager(wager)
    except KeyError:
        raise SolverError(f"the analysis of {rules.id} has no wager {wager!r}") from None
    if analysed.decisions:
        if line is not None:
            return solve_line_search(rules, wager, line, target, analyzer, on_analysis, sheet)
        return solve_scale_search(rules, wager, target, analyzer, on_analysis, sheet)
    if line is not None:
        return solve_line_linear(sheet, rules, wager, line, target)
    return solve_scale_linear(sheet, rules, wager, target)
