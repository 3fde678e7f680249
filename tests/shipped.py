"""The files the game families ship: built-in rule sets and strategy cards, by id; and
which rule sets are feltlab's own (its three families), not those of a game installed
beside it (the test game, ``tests/toy_game``, which its own tests cover)."""

from __future__ import annotations

from pathlib import Path

from feltlab.core import registry


def own_ids() -> list[str]:
    """feltlab's own built-in rule sets, in id order: those of the families in
    :mod:`feltlab.games`."""
    return [rules_id for rules_id in registry.builtin_ids()
            if type(registry.family_of_rule_set(rules_id)).__module__.startswith(
                "feltlab.games.")]


def rule_set_file(rules_id: str) -> Path:
    """The TOML file of a built-in rule set (in its family's ``rulesets`` folder)."""
    return Path(str(registry.builtin_file(rules_id)))


def strategy_file(rules_id: str) -> Path:
    """The strategy card shipped for a built-in rule set."""
    found = registry.strategy_file(rules_id)
    assert found is not None, f"no strategy card for {rules_id}"
    return Path(str(found))
