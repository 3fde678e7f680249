"""PAR sheets kept in memory for a long-running process (the table server): each rule
set's sheet is computed once per fingerprint, one computation at a time (the machine's
cores are the players' too).
"""

from __future__ import annotations

import threading

from feltlab.analysis import analyze
from feltlab.core.model import ParSheet
from feltlab.core.rules import Rules

_sheets: dict[str, ParSheet] = {}
_compute_lock = threading.Lock()


def sheet_for(rules: Rules) -> ParSheet:
    """The rule set's PAR sheet, computed once per fingerprint."""
    found = _sheets.get(rules.fingerprint)
    if found is not None:
        return found
    with _compute_lock:
        found = _sheets.get(rules.fingerprint)
        if found is None:
            found = _sheets[rules.fingerprint] = analyze(rules)
    return found


def is_kept(rules: Rules) -> bool:
    """Whether the rule set's sheet is already in memory."""
    return rules.fingerprint in _sheets
