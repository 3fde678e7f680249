"""The files the game families ship: built-in rule sets and strategy cards, by id."""

from __future__ import annotations

from pathlib import Path

from feltlab.core import registry


def rule_set_file(rules_id: str) -> Path:
    """The TOML file of a built-in rule set (in its family's ``rulesets`` folder)."""
    return Path(str(registry.builtin_file(rules_id)))


def strategy_file(rules_id: str) -> Path:
    """The strategy card shipped for a built-in rule set."""
    found = registry.strategy_file(rules_id)
    assert found is not None, f"no strategy card for {rules_id}"
    return Path(str(found))
