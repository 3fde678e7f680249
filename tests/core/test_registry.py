"""The registry of game families: installed ones by entry point, others registered in
process, and the rule sets they ship."""

from __future__ import annotations

from pathlib import Path

import pytest

from feltlab.core import registry
from feltlab.core.family import PackagedFamily
from feltlab.core.rules import builtin_ids, load_rules
from feltlab.present.catalogue import rule_card
from shipped import rule_set_file


def test_the_installed_families_and_their_rule_sets() -> None:
    # feltlab's three, then the test game installed beside it (tests/toy_game)
    assert registry.game_names() == ("high-card-flush", "nine-card-flush", "holdem-stud",
                                     "toy-pull-back")
    assert builtin_ids() == ["high-card-flush", "high-card-flush-toledo", "nh-flush-poker",
                             "nh-holdem-stud", "nine-card-flush", "toy-pull-back"]
    assert registry.family_of_rule_set("nh-flush-poker").game == "high-card-flush"
    assert registry.strategy_file("nine-card-flush") is not None
    assert registry.strategy_file("no-such-rule-set") is None
    with pytest.raises(registry.RegistryError, match="no game family 'baccarat'"):
        registry.family("baccarat")


def replacement(folder: Path, text: str) -> PackagedFamily:
    """A family of the game ``high-card-flush`` shipping ``text`` as its rule set."""
    installed = registry.family("high-card-flush")
    (folder / "rulesets").mkdir(parents=True)
    (folder / "rulesets" / "high-card-flush.toml").write_text(text, "utf-8")

    class Replacement(PackagedFamily):
        game = "high-card-flush"
        title = installed.title
        position = installed.position
        rules_model = installed.rules_model
        wager_titles = installed.wager_titles
        strategy_keys = installed.strategy_keys

        @property
        def folder(self) -> Path:  # type: ignore[override]
            return folder

    return Replacement("feltlab.games.high_card_flush")


def test_a_family_registered_in_process_takes_the_installed_ones_place(
        tmp_path: Path) -> None:
    original = load_rules("high-card-flush")
    text = rule_set_file("high-card-flush").read_text("utf-8").replace("7 = 300", "7 = 250")
    registry.register(replacement(tmp_path, text))
    try:
        assert builtin_ids() == ["high-card-flush", "nh-holdem-stud", "nine-card-flush",
                                 "toy-pull-back"]
        changed = load_rules("high-card-flush")
        assert changed.flush_pays[7] == 250  # type: ignore[attr-defined]
        assert changed.fingerprint != original.fingerprint and not changed.modified
        assert "250 to 1" in str(rule_card("high-card-flush")["wagers"])
    finally:
        registry.unregister("high-card-flush")
    assert load_rules("high-card-flush") == original
    assert "300 to 1" in str(rule_card("high-card-flush")["wagers"])
    assert len(builtin_ids()) == 6  # feltlab's five and the test game's


def test_two_families_may_not_ship_one_rule_set(tmp_path: Path) -> None:
    family = replacement(tmp_path, rule_set_file("high-card-flush").read_text("utf-8"))
    family.game = "high-card-flush-copy"  # type: ignore[misc]
    (tmp_path / "rulesets" / "high-card-flush.toml").rename(
        tmp_path / "rulesets" / "nh-flush-poker.toml")
    registry.register(family)
    try:
        with pytest.raises(registry.RegistryError, match="'nh-flush-poker' is shipped by both"):
            builtin_ids()
    finally:
        registry.unregister("high-card-flush-copy")
    assert len(builtin_ids()) == 6  # feltlab's five and the test game's
