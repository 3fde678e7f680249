"""Monte Carlo PAR sheets, for a game without exact math, and the advisor's strategy as
a policy of the engine's rounds (:mod:`feltlab.core.playout`).

An estimated sheet has the shape of an exact one (every face shows it), each wager's
return table counted over :func:`estimate_rounds` sampled rounds instead of every deal,
played by the default strategy (:func:`~feltlab.core.playout.default_policy`). It is
seeded by the rule set's fingerprint, so the same rule set gives the same sheet; it says
it is an estimate (:attr:`~feltlab.core.model.ParSheet.sampled`, its notes) and every
house edge comes with its standard error (:meth:`~feltlab.core.model.ParSheet.std_error`).
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import Final

from feltlab.core.engine import Action, Decide, Fold, HandState
from feltlab.core.family import AdviceInputs, family_of, wager_title
from feltlab.core.model import OutcomeLine, ParSheet, WagerAnalysis
from feltlab.core.playout import default_policy, main_slot, play_rounds
from feltlab.core.rules import Rules

ROUNDS_SETTING: Final = "FELTLAB_ESTIMATE_ROUNDS"
DEFAULT_ROUNDS: Final = 20_000


def estimate_rounds() -> int:
    """Rounds an estimate samples: the environment's ``FELTLAB_ESTIMATE_ROUNDS``, else
    20,000 (about five seconds)."""
    text = os.environ.get(ROUNDS_SETTING, "")
    return int(text) if text.strip().isdigit() and int(text) > 1 else DEFAULT_ROUNDS


def estimate_seed(rules: Rules) -> int:
    """The seed of a rule set's estimate: its fingerprint's first 60 bits."""
    return int(rules.fingerprint[:15], 16)


def estimated_sheet(rules: Rules, rounds: int | None = None) -> ParSheet:
    """The PAR sheet of ``rules`` estimated from ``rounds`` rounds of one seat, every
    wager at its minimum, played by the default strategy."""
    rounds = estimate_rounds() if rounds is None else rounds
    seed = estimate_seed(rules)
    bets = {name: limit.min for name, limit in rules.limits.items()}
    tally = play_rounds(rules, bets, 1, rounds, seed)
    main = main_slot(rules)
    wagers = tuple(_wager(name, bets[name], tally.outcomes[index], rounds,
                          decisions=name == main)
                   for index, name in enumerate(tally.slots) if name != "total")
    errors = ", ".join(f"{wager.title} {float(wager.house_edge):.3%} ± "
                       f"{wager.std_error:.3%}" for wager in wagers)
    note = (f"Monte Carlo estimates, not exact: {family_of(rules).game} has no exact "
            f"math. {rounds:,} rounds of one seat (seed {seed}, from the rule set's "
            "fingerprint), every wager at its minimum, played by the default strategy "
            f"(the first decision at its smallest amount). House edges ± one standard "
            f"error: {errors}.")
    return ParSheet(rules.id, rules.name, wagers, notes=(note,),
                    fingerprint=rules.fingerprint, modified=rules.modified, sampled=rounds,
                    seed=seed)


def _wager(name: str, stake: int, outcomes: dict[tuple[int, int], int], rounds: int,
           decisions: bool) -> WagerAnalysis:
    lines = tuple(OutcomeLine(f"net {Fraction(net, stake)} on {Fraction(staked, stake)}",
                              Fraction(net, stake), count, Fraction(staked, stake))
                  for (net, staked), count in sorted(outcomes.items()))
    return WagerAnalysis(name, wager_title(name), lines, rounds, decisions=decisions,
                         sampled=True)


def advisor_policy(state: HandState, seat: int) -> Action:
    """The exact advisor's best option at each decision (a game with exact math): the
    optimal strategy, decision by decision."""
    rules = state.rules
    family = family_of(rules)
    hand = state.seats[seat]
    main_stake = hand.wagers[rules.required_wagers[0]]
    bets: tuple[int, ...] = ()
    if family.words.advice_takes_bets:
        bets = tuple(amount // main_stake for amount in hand.decisions)
    inputs = AdviceInputs(tuple(hand.cards), tuple(state.visible_community), hand.colour, bets)
    advice = family.math.advise(rules, inputs, (), ())
    _, request = family.words.option_action(advice.best, main_stake)
    if request["action"] == "fold":
        return Fold(seat)
    return Decide(seat, request["action"], request.get("amount"))


__all__ = ["advisor_policy", "default_policy", "estimate_rounds", "estimate_seed",
           "estimated_sheet"]
