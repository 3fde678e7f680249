"""The optimal strategy's values as linear forms of the main pay table, its decisions held
fixed: what lets an edit of the pays that moves no decision skip the solver.

Hold every decision of a strategy fixed and each value the backward induction computes
(:mod:`.solver`) is an affine function of the net multiples ``m`` (one per
:class:`~feltlab.core.evaluators.PokerHand`): at the last street a bet is worth
``final * (at_risk + bet)`` with ``final = orders * sum(histogram[h] * m[h])``, a fold
``-scale * at_risk``; a street before sums the next street's chosen values over the next
card. :class:`PayForms`, made once from a solved strategy and its play-out, keeps as
coefficients over ``(m, 1)`` each earlier street's sums over the next card and, per
street, each group of decision nodes' option totals (what the strategy card is fitted
to, :func:`~.strategy_card.street_totals`).

For another pay table, :meth:`PayForms.for_pays` takes the solver's decisions again,
from the last street back, with the solver's own functions (:func:`~.solver.last_choice`,
:func:`~.solver.middle_choice`, ties included): the last street's from its final sums,
each earlier one's from the sums over the next card, which the forms give exactly once
the later decisions are settled. A decision that moves at a node optimal play never
reaches (after a bet it would not make) changes no count, only values beside the path:
the forms are repaired there and the search goes on. So the decisions and sums found
are the solver's, to the last digit. A decision that moves where optimal play goes
means a new play: the answer is ``None``, and the pay table is solved afresh.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import numba as nb
import numpy as np
import numpy.typing as npt

from feltlab.games.holdem_stud.shape import COMMUNITY, Shape
from feltlab.games.holdem_stud.solver import (
    CLASSES,
    I8,
    I64,
    completion_histograms,
    last_choice,
    middle_choice,
    parents,
)
from feltlab.games.holdem_stud.strategy_card import node_groups

Counts = npt.NDArray[np.integer[Any]]
"""Completion histograms, in whichever integers hold them."""
TERMS: Final = CLASSES + 1
"""A form's terms: the coefficient of each class's net multiple, then the constant."""
CONSTANT: Final = CLASSES


@nb.njit(cache=True)
def _add_last_option(forms: I64, parent: int, column: int, child: int, bet: int, sign: int,
                     histograms: Counts, orders: int, scale: int, at_risk: int) -> None:
    """Add ``sign`` times the value form of ``bet`` (0: fold) at a last-street node to a
    parent's sum form."""
    if bet == 0:
        forms[parent, column, CONSTANT] -= sign * scale * at_risk
        return
    weight = sign * orders * (at_risk + bet)
    for hand_class in range(CLASSES):
        count = histograms[child, hand_class]
        if count != 0:
            forms[parent, column, hand_class] += weight * count


@nb.njit(cache=True)
def _children(parents: I64, rows: int) -> npt.NDArray[np.int32]:
    """Per set, the sets one card larger (``parents`` read the other way)."""
    children = np.empty((rows, 52 - (parents.shape[1] - 1)), dtype=np.int32)
    filled = np.zeros(rows, dtype=np.int64)
    for child in range(parents.shape[0]):
        for index in range(parents.shape[1]):
            parent = parents[child, index]
            children[parent, filled[parent]] = child
            filled[parent] += 1
    return children


@nb.njit(cache=True)
def _sum_forms_before_last(children: npt.NDArray[np.int32], choices: I8,
                           histograms: Counts, orders: int, scale: int,
                           low: int) -> I64:
    """Forms of the sums over the next card at the street before the last:
    ``[row, last street's column, coefficient]``, each row summing, per column, its
    ``children``'s (last-street sets') chosen option's value form.

    A child whose row of decisions is folds up to some column and then one bet (every
    row the solver decides is) is counted once, at that column, in sums carried along
    the columns: it adds ``orders * (at_risk + bet) * histogram`` at every column it bets
    at. Any other row is added column by column.
    """
    width = choices.shape[1]
    forms = np.zeros((children.shape[0], width, TERMS), dtype=np.int64)
    counts_from = np.zeros((width, CLASSES), dtype=np.int64)
    bet_counts_from = np.zeros((width, CLASSES), dtype=np.int64)
    betting_from = np.zeros(width + 1, dtype=np.int64)
    counts = np.zeros(CLASSES, dtype=np.int64)
    bet_counts = np.zeros(CLASSES, dtype=np.int64)
    for row in range(children.shape[0]):
        counts_from[:, :] = 0
        bet_counts_from[:, :] = 0
        betting_from[:] = 0
        one_bet_children = 0
        for index in range(children.shape[1]):
            child = children[row, index]
            first = 0
            while first < width and choices[child, first] == 0:
                first += 1
            bet = np.int64(choices[child, first]) if first < width else np.int64(0)
            one_bet = True
            for column in range(first, width):
                if choices[child, column] != bet:
                    one_bet = False
            if not one_bet:
                for column in range(width):
                    _add_last_option(forms, row, column, child, choices[child, column], 1,
                                     histograms, orders, scale, low + column)
                continue
            one_bet_children += 1
            betting_from[first] += 1
            if first < width:
                for hand_class in range(CLASSES):
                    count = histograms[child, hand_class]
                    if count != 0:
                        counts_from[first, hand_class] += count
                        bet_counts_from[first, hand_class] += bet * count
        counts[:] = 0
        bet_counts[:] = 0
        betting = 0
        for column in range(width):
            at_risk = low + column
            betting += betting_from[column]
            forms[row, column, CONSTANT] -= scale * at_risk * (one_bet_children - betting)
            for hand_class in range(CLASSES):
                counts[hand_class] += counts_from[column, hand_class]
                bet_counts[hand_class] += bet_counts_from[column, hand_class]
                forms[row, column, hand_class] += orders * (at_risk * counts[hand_class]
                                                            + bet_counts[hand_class])
    return forms


@nb.njit(cache=True)
def _repair_before_last(forms: I64, parents: I64, moved_rows: I64, moved_columns: I64,
                        old: I8, new: I8, histograms: Counts, orders: int,
                        scale: int, low: int) -> None:
    """Replace, in ``forms`` (:func:`_sum_forms_before_last`), the last-street nodes'
    moved decisions: ``old`` ones out, ``new`` ones in."""
    for moved in range(moved_rows.shape[0]):
        child, column = moved_rows[moved], moved_columns[moved]
        for index in range(parents.shape[1]):
            parent = parents[child, index]
            _add_last_option(forms, parent, column, child, old[child, column], -1,
                             histograms, orders, scale, low + column)
            _add_last_option(forms, parent, column, child, new[child, column], 1,
                             histograms, orders, scale, low + column)


@nb.njit(cache=True)
def _sum_forms_middle(parents: I64, rows: int, choices: I8, next_forms: I64, scale: int,
                      low: int, next_low: int) -> I64:
    """As :func:`_sum_forms_before_last` a street earlier: a child's chosen bet is worth
    its own sums' form (``next_forms``) at the antes then at risk."""
    forms = np.zeros((rows, choices.shape[1], TERMS), dtype=np.int64)
    for child in range(parents.shape[0]):
        for column in range(choices.shape[1]):
            at_risk = low + column
            bet = choices[child, column]
            for index in range(parents.shape[1]):
                parent = parents[child, index]
                if bet == 0:
                    forms[parent, column, CONSTANT] -= scale * at_risk
                    continue
                option = at_risk - next_low + bet
                for term in range(TERMS):
                    forms[parent, column, term] += next_forms[child, option, term]
    return forms


@nb.njit(cache=True)
def _group_forms_middle(reach: I64, low: int, scale: int, groups: I64, group_count: int,
                        sum_forms: I64, next_low: int, most: int) -> I64:
    """Forms of :func:`~.strategy_card._group_totals_middle`: ``[group, bet, coefficient]``."""
    forms = np.zeros((group_count, most + 1, TERMS), dtype=np.int64)
    for row in range(reach.shape[0]):
        for column in range(reach.shape[1]):
            paths = reach[row, column]
            if paths == 0:
                continue
            group = groups[row, column]
            offset = low + column - next_low
            forms[group, 0, CONSTANT] += paths * (-scale * (low + column))
            for bet in range(1, most + 1):
                for term in range(TERMS):
                    forms[group, bet, term] += paths * sum_forms[row, offset + bet, term]
    return forms


@nb.njit(cache=True)
def _group_forms_last(reach: I64, low: int, scale: int, groups: I64, group_count: int,
                      histograms: I64, orders: int, most: int) -> I64:
    """Forms of :func:`~.strategy_card._group_totals_last`: every node of a group has the
    same antes at risk, so each group sums paths and paths x histogram once."""
    paths_in = np.zeros(group_count, dtype=np.int64)
    classes_in = np.zeros((group_count, CLASSES), dtype=np.int64)
    at_risk_of = np.zeros(group_count, dtype=np.int64)
    for row in range(reach.shape[0]):
        for column in range(reach.shape[1]):
            paths = reach[row, column]
            if paths == 0:
                continue
            group = groups[row, column]
            paths_in[group] += paths
            for hand_class in range(CLASSES):
                classes_in[group, hand_class] += paths * histograms[row, hand_class]
            at_risk_of[group] = low + column
    forms = np.zeros((group_count, most + 1, TERMS), dtype=np.int64)
    for group in range(group_count):
        forms[group, 0, CONSTANT] = -scale * at_risk_of[group] * paths_in[group]
        for bet in range(1, most + 1):
            for hand_class in range(CLASSES):
                forms[group, bet, hand_class] = (orders * (at_risk_of[group] + bet)
                                                 * classes_in[group, hand_class])
    return forms


@nb.njit(cache=True)
def _evaluated(forms: I64, point: I64) -> I64:
    """Each form of ``forms[..., coefficient]`` (3 dimensions) at ``point``: exact."""
    values = np.zeros((forms.shape[0], forms.shape[1]), dtype=np.int64)
    for first in range(forms.shape[0]):
        for second in range(forms.shape[1]):
            total = 0
            for term in range(forms.shape[2]):
                total += forms[first, second, term] * point[term]
            values[first, second] = total
    return values


@nb.njit(cache=True)
def _last_choices(histograms: Counts, point: I64, orders: int, scale: int,
                  low: int, width: int, most: int) -> I8:
    """The solver's last-street decisions at the net multiples ``point`` (each node's
    final sum made on the way, never stored)."""
    choices = np.empty((histograms.shape[0], width), dtype=np.int8)
    for row in range(histograms.shape[0]):
        final = 0
        for hand_class in range(CLASSES):
            final += histograms[row, hand_class] * point[hand_class]
        final *= orders
        for column in range(width):
            choices[row, column] = last_choice(final, low + column, scale, most)[1]
    return choices


@nb.njit(cache=True)
def _middle_choices(sums: I64, scale: int, low: int, next_low: int, width: int, most: int
                    ) -> I8:
    """The solver's decisions at a street before the last from its sums over the next
    card."""
    choices = np.empty((sums.shape[0], width), dtype=np.int8)
    for row in range(sums.shape[0]):
        for column in range(width):
            at_risk = low + column
            choices[row, column] = middle_choice(sums, row, at_risk - next_low,
                                                 -scale * at_risk, most)[1]
    return choices


@cache
def _children_of(size: int) -> npt.NDArray[np.int32]:
    """:func:`_children` of every set of ``size`` cards (shared: do not modify)."""
    return _children(parents(size + 1), math.comb(52, size))


@cache
def _small_histograms(size: int) -> Counts:
    """:func:`~.solver.completion_histograms` in the smallest integers that hold them
    (bytes for four cards, whose 48 completions a check reads for every node)."""
    histograms = completion_histograms(size)
    return histograms.astype(np.int8 if histograms.max() <= 127 else np.int32)


def _point(multiples: tuple[int, ...]) -> I64:
    return np.array([*multiples, 1], dtype=np.int64)


def _moved(new: I8, old: I8) -> tuple[I64, I64]:
    """The nodes (rows, columns) whose decision differs."""
    if np.array_equal(new, old):
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    rows, columns = np.nonzero(new != old)
    return rows.astype(np.int64), columns.astype(np.int64)


@dataclass(frozen=True)
class PayForms:
    """A strategy's decisions, where its play goes, and, as forms over ``(net multiples,
    1)``, each earlier street's sums over the next card and each street's group totals."""

    shape: Shape
    choices: tuple[I8, ...]
    reach: tuple[I64, ...]  # per street before the last: paths to each node
    reached_last: npt.NDArray[np.bool_]  # the last street: whether play reaches each node
    sum_forms: tuple[I64, ...]  # per street before the last: [row, next column, coefficient]
    total_forms: tuple[I64, ...]  # per street: [group, bet, coefficient]

    def street_totals(self, multiples: tuple[int, ...]) -> tuple[I64, ...]:
        """The group totals under ``multiples`` with these decisions (optimal or not)."""
        point = _point(multiples)
        return tuple(_evaluated(forms, point) for forms in self.total_forms)

    def for_pays(self, multiples: tuple[int, ...]
                 ) -> tuple[PayForms, tuple[I64, ...]] | None:
        """The forms of the solver's decisions under ``multiples`` (these, or these
        repaired where a decision moved off the path of play) and its
        :meth:`street_totals`; ``None`` when a decision on the path of play moves."""
        shape, point = self.shape, _point(multiples)
        last = shape.last
        choices, sum_forms = list(self.choices), list(self.sum_forms)
        chosen = _last_choices(_small_histograms(2 + last), point,
                               math.factorial(COMMUNITY - last), shape.scale(last),
                               shape.low(last), shape.width(last), shape.most)
        rows, columns = _moved(chosen, choices[last])
        if self.reached_last[rows, columns].any():
            return None
        repaired = len(rows) > 0
        if repaired:
            sum_forms[last - 1] = sum_forms[last - 1].copy()
            _repair_before_last(sum_forms[last - 1], parents(2 + last), rows, columns,
                                choices[last], chosen, _small_histograms(2 + last),
                                math.factorial(COMMUNITY - last), shape.scale(last),
                                shape.low(last))
            choices[last] = chosen
        for level in range(last - 1, -1, -1):
            if repaired and level < last - 1:
                sum_forms[level] = _sum_forms_middle(
                    parents(3 + level), math.comb(52, 2 + level), choices[level + 1],
                    sum_forms[level + 1], shape.scale(level + 1), shape.low(level + 1),
                    shape.low(level + 2))
            chosen = _middle_choices(_evaluated(sum_forms[level], point), shape.scale(level),
                                     shape.low(level), shape.low(level + 1),
                                     shape.width(level), shape.most)
            rows, columns = _moved(chosen, choices[level])
            if self.reach[level][rows, columns].any():
                return None
            if len(rows):
                repaired, choices[level] = True, chosen
        forms = self._with(tuple(choices), tuple(sum_forms)) if repaired else self
        return forms, forms.street_totals(multiples)

    def _with(self, choices: tuple[I8, ...], sum_forms: tuple[I64, ...]) -> PayForms:
        """These forms with decisions moved off the path of play: the same play, so the
        last street's totals are too; the earlier streets' are made again."""
        shape = self.shape
        total_forms = [_middle_total_forms(shape, level, self.reach[level], sum_forms[level])
                       for level in range(shape.last)]
        return PayForms(shape, choices, self.reach, self.reached_last, sum_forms,
                        (*total_forms, self.total_forms[shape.last]))


def _middle_total_forms(shape: Shape, level: int, reach: I64, sum_forms: I64) -> I64:
    keys, groups, _ = node_groups(level, shape.width(level), shape.low(level))
    forms: I64 = _group_forms_middle(reach, shape.low(level), shape.scale(level), groups,
                                     len(keys), sum_forms, shape.low(level + 1), shape.most)
    return forms


def pay_forms(shape: Shape, choices: tuple[I8, ...], reach: tuple[I64, ...]) -> PayForms:
    """The forms of a strategy's ``choices`` (any, optimal for some pay table or not)
    and ``reach``, its play-out's paths to each node (:func:`~.solver.play_out`)."""
    last = shape.last
    histograms = completion_histograms(2 + last)
    orders = math.factorial(COMMUNITY - last)
    sum_forms: list[I64] = []
    for level in range(last - 1, -1, -1):
        rows = math.comb(52, 2 + level)
        if level == last - 1:
            forms = _sum_forms_before_last(_children_of(2 + level), choices[last],
                                           _small_histograms(2 + last), orders,
                                           shape.scale(last), shape.low(last))
        else:
            forms = _sum_forms_middle(parents(3 + level), rows, choices[level + 1],
                                      sum_forms[0], shape.scale(level + 1),
                                      shape.low(level + 1), shape.low(level + 2))
        sum_forms.insert(0, forms)
    keys, groups, _ = node_groups(last, shape.width(last), shape.low(last))
    last_forms = _group_forms_last(reach[last], shape.low(last), shape.scale(last), groups,
                                   len(keys), histograms, orders, shape.most)
    total_forms = [_middle_total_forms(shape, level, reach[level], sum_forms[level])
                   for level in range(last)]
    return PayForms(shape, choices, reach[:last], reach[last] > 0, tuple(sum_forms),
                    (*total_forms, last_forms))
