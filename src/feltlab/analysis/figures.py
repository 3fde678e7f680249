"""The pit's figures of one settled seat, from the game's exact math: what it wagered
(handle), what the house won (win), what the house should win on its initial wagers under
optimal play (theoretical win, from the PAR sheet's exact edges), what the house should win
given the decisions the player actually made (expected win, from the advisor's exact EV of
each decision), and the variance of the win for the reports' bands.

This runs when a round settles, so nothing here solves a game: each rule set's edges and
variances are read once per fingerprint from the PAR-sheet memo
(:mod:`feltlab.analysis.sheets`) and each decision is one advisor call (a lookup or a
count over the dealer's hands, well under a millisecond once warm).

The expected win of a seat is the house's exact expectation given the cards the player saw
at their first decision and the decisions they made:

- every wager other than the main one (the bonuses): its stake times its house edge;
- the main wager (the Ante, or All 9, with the raises, plays and street bets that follow
  it): minus its stake times the advisor's EV of the option chosen at the first decision,
  plus what each later decision gave away (best EV minus chosen EV, in main-wager units).

So a player who always folds is expected to lose exactly the antes (plus the bonuses'
edges), and every decision that gives EV away raises the expected win above the
theoretical win by that much. The variance is the sum of each wager's exact variance
(stake squared times the PAR sheet's per-unit variance, optimal play), except that a main
wager folded at its first decision is lost for certain (variance 0). Covariances between
the main wager and the bonuses are not in the PAR sheets and are left out.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from feltlab.analysis.sheets import sheet_for
from feltlab.core import registry
from feltlab.core.engine import Action, Decide, Fold, HandState, Phase, SeatState
from feltlab.core.family import AdviceInputs, family_of, provides
from feltlab.core.model import OptionValue
from feltlab.core.rules import Rules

DECISIONS = (Fold, Decide)


@dataclass(frozen=True)
class DecisionCost:
    """One decision a seat made: what it was, what was best, and the exact EV it gave
    away in units of the main wager (0 for a best decision)."""

    pattern: str
    cost: float


@dataclass(frozen=True)
class SeatFigures:
    """A settled seat's figures, in the round's currency (floats: sums in SQL)."""

    handle: int
    win: int
    theo_win: float
    expected_win: float
    variance: float
    main_stake: int
    decisions: tuple[DecisionCost, ...]


@dataclass(frozen=True)
class WagerMath:
    """A rule set's per-unit house edge and variance of every wager (optimal play); for
    a game without exact math, Monte Carlo estimates (``estimated``) with the upper 95%
    bound of each edge."""

    edges: dict[str, Fraction]
    variances: dict[str, Fraction]
    estimated: bool = False
    upper95: dict[str, Fraction] = field(default_factory=dict)


_math: dict[str, WagerMath] = {}
_math_lock = threading.Lock()


def wager_math(rules: Rules) -> WagerMath:
    """Every wager's exact edge and variance from the rule set's PAR sheet, kept per
    fingerprint (the sheet is computed once per process by the memo)."""
    found = _math.get(rules.fingerprint)
    if found is None:
        with _math_lock:
            sheet = sheet_for(rules)
            found = _math[rules.fingerprint] = WagerMath(
                {wager.name: wager.house_edge for wager in sheet.wagers},
                {wager.name: wager.variance for wager in sheet.wagers},
                sheet.is_estimate, {wager.name: sheet.upper95(wager) for wager in sheet.wagers})
    return found


def warm(rules: Rules) -> None:
    """Start computing the rule set's edges in the background unless they are kept
    already, so that the first round settled under it does not wait for its PAR sheet."""
    if rules.fingerprint not in _math:
        threading.Thread(target=wager_math, args=(rules,), name="feltlab-warm-figures",
                         daemon=True).start()


def seat_figures(state: HandState, seat: int) -> SeatFigures:
    """The figures of ``seat`` in a complete round (``state``: the round replayed)."""
    return round_figures(state, (seat,))[seat]


def round_figures(state: HandState, seats: Iterable[int] | None = None
                  ) -> dict[int, SeatFigures]:
    """The figures of each of ``seats`` (every seat of the round if None) in a complete
    round, as :func:`seat_figures` gives them: the round is replayed once for them all."""
    if state.phase is not Phase.COMPLETE:
        raise ValueError(f"the round is not complete (phase {state.phase.value})")
    rules = state.rules
    wager_math(rules)  # kept for _wagers_math
    main = rules.main_wager
    chosen = list(state.seats) if seats is None else list(seats)
    hands = {seat: state.seats[seat] for seat in chosen}
    stakes = {seat: hand.wagers.get(main, 0) for seat, hand in hands.items()}
    evs = _decision_evs_of(state, stakes)
    return {seat: _figures(rules, main, hand, stakes[seat], evs[seat])
            for seat, hand in hands.items()}


def _figures(rules: Rules, main: str, hand: SeatState, main_stake: int,
             evs: list[tuple[Fraction, Fraction, str]]) -> SeatFigures:
    """One seat's figures, given the EVs of its decisions."""
    assert hand.settlement is not None
    wagers = _wagers_math(rules.fingerprint, rules.id, main, tuple(hand.wagers.items()))
    if evs:  # minus the chosen option's EV at the first decision, plus what later gave away
        if len(evs) == 1:
            expected = _float_of_sum(wagers.bonuses, -main_stake, evs[0][1])
        else:
            later = sum((best - chosen for best, chosen, _ in evs[1:]), Fraction(0))
            expected = _float_of_sum(wagers.bonuses, main_stake, later - evs[0][1])
    else:
        expected = wagers.theo_float
    folded_at_once = bool(hand.decisions) and hand.decisions[0] == 0
    variance = wagers.variance_folded if folded_at_once else wagers.variance
    costs = tuple(DecisionCost(pattern, _float_of_sum(best, -1, chosen))
                  for best, chosen, pattern in evs)
    handle = sum(hand.wagers.values()) + sum(hand.decisions)
    return SeatFigures(handle=handle, win=-hand.settlement.total, theo_win=wagers.theo_float,
                       expected_win=expected, variance=variance, main_stake=main_stake,
                       decisions=costs)


def _float_of_sum(a: Fraction, k: int, b: Fraction) -> float:
    """``float(a + k * b)``, without making the Fraction: the int division is correctly
    rounded, as ``float()`` of the Fraction (its numerator by its denominator) is."""
    return ((a.numerator * b.denominator + k * b.numerator * a.denominator)
            / (a.denominator * b.denominator))


@dataclass(frozen=True)
class _StakesMath:
    """What a seat's stakes give under one rule set, whatever its cards and decisions."""

    bonuses: Fraction  # the house's theoretical win on the wagers other than the main one
    theo_float: float  # the theoretical win of every wager
    variance: float  # every wager's variance (the main wager played on)
    variance_folded: float  # the same, the main wager folded at its first decision


@lru_cache(maxsize=4096)
def _wagers_math(fingerprint: str, rules_id: str, main: str,
                 stakes: tuple[tuple[str, int], ...]) -> _StakesMath:
    """The exact sums over a seat's stakes, once per rule set (its fingerprint, whose
    :func:`wager_math` is kept already) and stakes: tables play few stakes."""
    known = _math[fingerprint]
    theo = variance = bonuses = Fraction(0)
    main_stake = 0
    for name, stake in stakes:
        if name not in known.edges:
            raise ValueError(f"{rules_id}: the PAR sheet has no wager {name!r}")
        theo += stake * known.edges[name]
        if name != main:
            bonuses += stake * known.edges[name]
            variance += stake * stake * known.variances[name]
        else:
            main_stake = stake
    played = variance + main_stake * main_stake * known.variances[main] if main_stake \
        else variance
    return _StakesMath(bonuses, float(theo), float(played), float(variance))


def _decision_evs_of(state: HandState, stakes: dict[int, int]
                     ) -> dict[int, list[tuple[Fraction, Fraction, str]]]:
    """(best EV, chosen EV, pattern) of each decision each seat of ``stakes`` (seat: its
    main wager's stake; none, no decision judged) made, per unit of the main wager,
    replaying the round once to see what the player saw at each."""
    found: dict[int, list[tuple[Fraction, Fraction, str]]] = {seat: [] for seat in stakes}
    if not provides(state.rules, "math"):  # no advisor: no decision is judged
        return found
    replay: HandState | None = None
    done = 0
    for index, action in enumerate(state.log):
        if isinstance(action, DECISIONS) and stakes.get(action.seat):
            # the round as it stood (its log was verified as it was played, so it is
            # carried on as HandState.replay(verified=True) carries it out)
            if replay is None:
                replay = HandState.replay(state.rules, state.deck, state.log[:index],
                                          verified=True)
            else:
                for earlier in state.log[done:index]:
                    replay._carry_out(earlier)
            done = index
            found[action.seat].append(_judge(replay, action.seat, action,
                                             stakes[action.seat]))
    return found


def _judge(replay: HandState, seat: int, action: Action, main_stake: int
           ) -> tuple[Fraction, Fraction, str]:
    """(best EV, chosen EV, pattern) of one decision: the pattern names what was done,
    with which kind of hand (the family's words for it), and what was best."""
    rules = replay.rules
    family = family_of(rules)
    hand = replay.seats[seat]
    bets: tuple[int, ...] = ()
    if family.words.advice_takes_bets:
        bets = tuple(amount // main_stake for amount in hand.decisions)
    inputs = AdviceInputs(tuple(hand.cards), tuple(replay.visible_community), hand.colour,
                          bets)
    advice = family.math.advise(rules, inputs, (), ())  # as analysis.advise asks it
    options = advice.options
    labels, requests = _option_actions(rules.game, tuple(option.option for option in options),
                                       main_stake)
    taken = _as_request(action)
    best = next(option for option in options if option.option == advice.best)
    chosen = next((option for option in options if requests[option.option] == taken), None)
    if chosen is not None:
        chosen_ev, chosen_label = chosen.ev, labels[chosen.option]
    else:
        chosen_ev, chosen_label = _between(options, requests, taken, main_stake)
    group = family.math.hand_group(rules, inputs)
    pattern = f"{chosen_label} with {group} ({labels[best.option]} is best)"
    return best.ev, chosen_ev, pattern


@lru_cache(maxsize=1024)
def _option_actions(game: str, options: tuple[str, ...], main_stake: int
                    ) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """Each advisor option's button label and API v1 request at a main stake (the
    family's words: the same for every hand of the game); read, never changed."""
    words = registry.family(game).words
    labels: dict[str, str] = {}
    requests: dict[str, dict[str, Any]] = {}
    for option in options:
        labels[option], requests[option] = words.option_action(option, main_stake)
    return labels, requests


def _between(options: Sequence[OptionValue], requests: dict[str, dict[str, Any]],
             taken: dict[str, Any], main_stake: int) -> tuple[Fraction, str]:
    """The EV of a raise between two the advisor values (a raise of any amount in a
    range): the result of a raise is linear in its amount, so the EV is the straight line
    between the two raises either side."""
    sized = sorted((requests[option.option]["amount"], option.ev) for option in options
                   if requests[option.option].get("action") == taken["action"]
                   and "amount" in requests[option.option])
    amount = taken.get("amount")
    for (low, low_ev), (high, high_ev) in itertools.pairwise(sized):
        if amount is not None and low < amount < high:
            ev = low_ev + (high_ev - low_ev) * Fraction(amount - low, high - low)
            return ev, f"{str(taken['action']).capitalize()} {amount / main_stake:g}x"
    raise ValueError(f"the advisor values no option like {taken}")


def _as_request(action: Action) -> dict[str, Any]:
    """A decision as API v1 names it (the form the words give the advisor's options)."""
    if isinstance(action, Fold):
        return {"action": "fold"}
    assert isinstance(action, Decide)
    if action.amount is None:
        return {"action": action.kind}
    return {"action": action.kind, "amount": action.amount}

