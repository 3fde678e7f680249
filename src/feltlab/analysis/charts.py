"""Charts of a PAR sheet as inline SVG (matplotlib, Agg backend), ready to embed in HTML.

Each chart is returned as an ``<svg>`` element whose ids carry a prefix of their own, so
that several charts can sit in one HTML page without their clip paths colliding.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from fractions import Fraction
from itertools import count

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from feltlab.analysis.report_text import SHARE_LABEL
from feltlab.core.model import ParSheet, WagerAnalysis, unsplit_group

WIN_COLOUR = "#2e7d32"
LOSS_COLOUR = "#c62828"
PUSH_COLOUR = "#9e9e9e"
DECISION_COLOURS = ("#1565c0", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#558b2f",
                    "#4e342e", "#283593")

_chart_numbers = count(1)
_ID = re.compile(r'id="([^"]+)"')


def _outcome_colour(net: Fraction | int) -> str:
    return WIN_COLOUR if net > 0 else LOSS_COLOUR if net < 0 else PUSH_COLOUR


def _figure(rows: int) -> tuple[Figure, Axes]:
    height = 1.2 + 0.32 * max(rows, 1)
    figure, axes = plt.subplots(figsize=(6.5, height))
    figure.patch.set_facecolor("white")
    return figure, axes


def to_svg(figure: Figure) -> str:
    """The figure as an ``<svg>`` element (no XML prolog) with ids unique to it."""
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "feltlab"}):
        figure.savefig(buffer, format="svg", bbox_inches="tight", pad_inches=0.2)
    plt.close(figure)
    text = buffer.getvalue()
    svg = text[text.index("<svg"):]
    prefix = f"c{next(_chart_numbers)}-"
    for name in set(_ID.findall(svg)):
        svg = (svg.replace(f'id="{name}"', f'id="{prefix}{name}"')
               .replace(f"url(#{name})", f"url(#{prefix}{name})")
               .replace(f'href="#{name}"', f'href="#{prefix}{name}"'))
    return svg


def outcome_chart(wager: WagerAnalysis) -> str:
    """Probability of each outcome (log scale: the rare big wins stay visible)."""
    figure, axes = _figure(len(wager.lines))
    labels = [line.label for line in wager.lines]
    shares = [float(wager.probability(line)) for line in wager.lines]
    colours = [_outcome_colour(line.net) for line in wager.lines]
    axes.barh(range(len(labels)), shares, color=colours)
    axes.set_yticks(range(len(labels)), labels)
    axes.invert_yaxis()
    if any(share > 0 for share in shares):
        axes.set_xscale("log")
    axes.set_xlabel("probability (log scale)")
    axes.set_title(f"{wager.title}: outcome distribution")
    axes.grid(axis="x", alpha=0.3)
    return to_svg(figure)


def contribution_chart(wager: WagerAnalysis) -> str:
    """Each pay line's contribution to the return (net x probability), in % of the wager."""
    figure, axes = _figure(len(wager.lines))
    labels = [line.label for line in wager.lines]
    values = [float(wager.contribution(line)) * 100 for line in wager.lines]
    colours = [_outcome_colour(line.net) for line in wager.lines]
    axes.barh(range(len(labels)), values, color=colours)
    axes.set_yticks(range(len(labels)), labels)
    axes.invert_yaxis()
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_xlabel("contribution to the return (% of the wager)")
    total = f"{float(wager.expected_return) * 100:+.4f}".replace("-", "\u2212")  # as the ticks
    axes.set_title(f"{wager.title}: return by pay line (total {total}%)")
    axes.grid(axis="x", alpha=0.3)
    return to_svg(figure)


def _groups_and_decisions(strategy_map: Sequence[tuple[str, str, Fraction]],
                          ) -> tuple[list[str], list[str]]:
    groups: list[str] = []
    decisions: list[str] = []
    for group, decision, _ in strategy_map:
        if group not in groups:
            groups.append(group)
        if decision not in decisions:
            decisions.append(decision)
    decisions.sort(key=lambda decision: decision.lower() != "fold")  # fold first, same colour
    return groups, decisions


StrategyMap = Sequence[tuple[str, str, Fraction]]
MAX_CHART_GROUPS = 40


def merged_strategy_map(strategy_map: StrategyMap) -> tuple[StrategyMap, bool]:
    """The map as charted: as it is, or, with more than :data:`MAX_CHART_GROUPS` hand
    groups, merged by the part of each group's name before ``:`` (``3rd street: 32o`` goes
    to ``3rd street``), each merged group's shares scaled to add up to one. The flag says
    whether it was merged.

    >>> merged, _ = merged_strategy_map([(f"a: {i}", "fold", Fraction(1, 100))
    ...                                  for i in range(50)])
    >>> list(merged)
    [('a', 'fold', Fraction(1, 1))]
    """
    groups, _ = _groups_and_decisions(strategy_map)
    if len(groups) <= MAX_CHART_GROUPS:
        return strategy_map, False
    merged: dict[tuple[str, str], Fraction] = {}
    totals: dict[str, Fraction] = {}
    for group, decision, share in strategy_map:
        prefix = group.split(":", 1)[0].strip() if ":" in group else "all hands"
        merged[prefix, decision] = merged.get((prefix, decision), Fraction(0)) + share
        totals[prefix] = totals.get(prefix, Fraction(0)) + share
    return [(prefix, decision, share / totals[prefix] if totals[prefix] else Fraction(0))
            for (prefix, decision), share in merged.items()], True


def whole_groups(strategy_map: StrategyMap) -> StrategyMap:
    """The map with the rows :func:`~feltlab.core.model.name_splits` named apart put
    back into their group, one share per decision, so a group's bar shows its mix."""
    shares: dict[tuple[str, str], Fraction] = {}
    for group, decision, share in strategy_map:
        key = (unsplit_group(group), decision)
        shares[key] = shares.get(key, Fraction(0)) + share
    return [(group, decision, share) for (group, decision), share in shares.items()]


def strategy_chart(sheet: ParSheet) -> str | None:
    """For each hand group, the share of the hands on which each decision is optimal."""
    if not sheet.strategy_map:
        return None
    strategy_map, merged = merged_strategy_map(whole_groups(sheet.strategy_map))
    groups, decisions = _groups_and_decisions(strategy_map)
    share = {(group, decision): float(value) * 100 for group, decision, value in strategy_map}
    figure, axes = _figure(len(groups))
    left = [0.0] * len(groups)
    for index, decision in enumerate(decisions):
        widths = [share.get((group, decision), 0.0) for group in groups]
        axes.barh(range(len(groups)), widths, left=left, label=decision,
                  color=DECISION_COLOURS[index % len(DECISION_COLOURS)])
        left = [start + width for start, width in zip(left, widths, strict=True)]
    axes.set_yticks(range(len(groups)), groups)
    axes.invert_yaxis()
    axes.set_xlabel(SHARE_LABEL.lower() + " (%)")
    axes.set_title("Optimal strategy map" + (" (hand groups merged)" if merged else ""))
    axes_height = figure.get_figheight() * axes.get_position().height  # inches
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.55 / axes_height),  # below the label
                ncol=min(len(decisions), 4), fontsize="small", frameon=False)
    axes.grid(axis="x", alpha=0.3)
    return to_svg(figure)
