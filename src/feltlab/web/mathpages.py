"""The math pages: each rule set's PAR sheet (the analysis's own HTML report), its
strategy card and charts.

An exact analysis takes seconds, so each sheet is computed once per rule-set fingerprint
in a worker thread (:mod:`feltlab.analysis.sheets`), kept in memory, and its HTML kept in
the user's cache folder.
"""

from __future__ import annotations

import contextlib
from fractions import Fraction
from html import escape
from pathlib import Path

from feltlab.analysis.sheets import is_kept, sheet_for
from feltlab.core.cache import code_version, write_atomically
from feltlab.core.paths import user_cache_dir
from feltlab.core.rules import Rules, load_rules


def cache_folder() -> Path:
    return user_cache_dir() / "web"


def ready(rules_id: str) -> bool:
    rules = load_rules(rules_id)
    return is_kept(rules) or _html_path(rules).is_file()


def _html_path(rules: Rules) -> Path:
    """Kept per rule set and per version of the code that renders it."""
    return cache_folder() / f"par-{rules.id}-{rules.fingerprint[:16]}-{code_version()}.html"


BACK_LINKS = ('<nav aria-label="Back" style="font-size:0.95rem;margin:0 0 1rem">'
              '<a href="/math/{id}">&larr; Strategy card and charts</a> &middot; '
              '<a href="/math">All the math</a> &middot; <a href="/">Lobby</a></nav>')


SKIP_LINK = '<a class="skip-link" href="#main">Skip to the main content</a>'
SKIP_STYLE = ("<style>.skip-link{position:absolute;left:.5rem;top:-3rem;background:#fff;"
              "padding:.4rem .8rem;font-weight:bold}.skip-link:focus{top:.5rem}"
              "main:focus{outline:none}</style>")


def par_sheet_html(rules_id: str) -> str:
    """The PAR sheet report (self-contained HTML) as a page of the site: a skip link and
    links back first, the report in the page's ``<main>``."""
    report = _par_report(rules_id)
    links = BACK_LINKS.replace("{id}", rules_id)
    head, opened, rest = report.partition("<body>")
    if not opened:
        return SKIP_LINK + links + f'<main id="main" tabindex="-1">{report}</main>'
    content, closed, tail = rest.partition("</body>")
    return (head.replace("</head>", SKIP_STYLE + "</head>", 1) + opened + SKIP_LINK + links
            + f'<main id="main" tabindex="-1">{content}</main>' + closed + tail)


def _par_report(rules_id: str) -> str:
    """The PAR sheet report as the analysis renders it, from the cache when there."""
    rules = load_rules(rules_id)
    path = _html_path(rules)
    if path.is_file():
        return path.read_text("utf-8")
    from feltlab.analysis.report_html import render_html  # loads matplotlib: only when used

    text = render_html(sheet_for(rules))
    with contextlib.suppress(OSError):  # a read-only cache folder costs the next visitor
        write_atomically(path, text.encode("utf-8"))
    return text


def strategy_fragment(rules_id: str) -> str:
    """The overview and strategy (card, map, chart) as an HTML fragment for the page."""
    from feltlab.analysis.report_html import overview_table, strategy_section

    sheet = sheet_for(load_rules(rules_id))
    parts = ['<section class="block"><h2>Overview</h2>', overview_table(sheet), "</section>"]
    if sheet.strategy_card is not None or sheet.strategy_map:
        parts.append(strategy_section(sheet))
    parts.append('<section class="block"><h2>Notes</h2><ul>'
                 + "".join(f"<li>{escape(note)}</li>" for note in sheet.notes) + "</ul></section>")
    return "".join(parts)


def percent(value: Fraction) -> str:
    return f"{float(value):.4%}"
