"""Rule sets: the built-ins hold RULES.md's numbers, files validate, errors name the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import assert_refused, run_cli
from feltlab.core.evaluators import PokerHand, ThreeCardHand
from feltlab.core.rules import RulesError, builtin_ids, load_rules, parse_rules, pays_for
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.nine_card_flush.rules import NineCardRules
from shipped import rule_set_file

BUILTIN = ["high-card-flush", "high-card-flush-toledo", "nh-flush-poker", "nh-holdem-stud",
           "nine-card-flush"]

# RULES.md's pay tables, count -> N to 1.
FLUSH_TABLES = {
    "high-card-flush-toledo": ({7: 400, 6: 60, 5: 12, 4: 1},
                               {7: 1000, 6: 500, 5: 100, 4: 60, 3: 8}),
    "nh-flush-poker": ({7: 200, 6: 50, 5: 10, 4: 1}, {7: 200, 6: 150, 5: 100, 4: 50, 3: 7}),
    "high-card-flush": ({7: 300, 6: 100, 5: 10, 4: 1},
                        {7: 8000, 6: 1000, 5: 100, 4: 60, 3: 7}),
}
STUD_PAYS: dict[str, int | str] = {
    "royal_flush": 125, "straight_flush": 80, "four_of_a_kind": 30, "full_house": 8,
    "flush": 6, "straight": 4, "three_of_a_kind": 3, "two_pair": 2, "high_pair": 1,
    "mid_pair": "push"}
BONUS3_PAYS: dict[str, int | str] = {"straight_flush": 40, "three_of_a_kind": 30,
                                     "straight": 6, "flush": 3, "pair": 1}


def test_builtin_ids() -> None:
    assert [i for i in builtin_ids() if i != "toy-pull-back"] == BUILTIN  # the test game
    for rules_id in BUILTIN:
        assert load_rules(rules_id).id == rules_id


@pytest.mark.parametrize("rules_id", sorted(FLUSH_TABLES))
def test_flush_family_numbers(rules_id: str) -> None:
    rules = load_rules(rules_id)
    assert isinstance(rules, FlushRules)
    assert (rules.flush_pays, rules.straight_flush_pays) == FLUSH_TABLES[rules_id]
    assert rules.seats == 6
    assert rules.qualifier.min_length == 3 and rules.qualifier.min_high_card == "9"
    assert rules.required_wagers == ("ante",)


def test_flush_family_raises_limits_and_caps() -> None:
    hcf, toledo, nh = (load_rules(name) for name in
                       ("high-card-flush", "high-card-flush-toledo", "nh-flush-poker"))
    assert isinstance(hcf, FlushRules) and isinstance(toledo, FlushRules)
    assert isinstance(nh, FlushRules)
    for rules in (hcf, toledo):
        assert [rules.max_raise_multiple(n) for n in range(2, 8)] == [1, 1, 1, 2, 3, 3]
        assert rules.settled_on_fold == {"flush": True, "straight_flush": True}
        assert (rules.limits["ante"].min, rules.limits["ante"].max) == (1, 1000)
        assert (rules.limits["flush"].min, rules.limits["flush"].max) == (1, 100)
        assert not rules.raise_in_whole_antes and not rules.equal_bonuses
    assert [nh.max_raise_multiple(n) for n in range(2, 8)] == [0, 1, 1, 2, 2, 2]
    assert nh.settled_on_fold == {"flush": False, "straight_flush": True}
    assert all((limit.min, limit.max) == (1, 10) for limit in nh.limits.values())
    assert nh.raise_in_whole_antes and nh.equal_bonuses
    assert (hcf.max_aggregate_payout, toledo.max_aggregate_payout,
            nh.max_aggregate_payout) == (None, 25000, 2000)


def test_nine_card_numbers() -> None:
    rules = load_rules("nine-card-flush")
    assert isinstance(rules, NineCardRules)
    assert rules.bonus9_pays == {9: 500, 8: 250, 7: 100, 6: 20, 5: 3, 4: 1}
    assert rules.player6_pays == {4: 3, 3: 2}
    assert rules.first3_pays == {3: 5, 2: 2}
    assert (rules.all9_win_at, rules.all9_push_at, rules.seats) == (4, 3, 8)
    assert rules.required_wagers == ("all9",)


def test_holdem_numbers() -> None:
    rules = load_rules("nh-holdem-stud")
    assert isinstance(rules, HoldemStudRules)
    assert rules.pays == STUD_PAYS and rules.bonus3_pays == BONUS3_PAYS
    assert (rules.streets, rules.max_street_multiple, rules.seats) == (3, 3, 7)
    assert (rules.limits["ante"].min, rules.limits["ante"].max) == (2, 10)
    assert rules.net_multiple(PokerHand.MID_PAIR) == 0
    assert rules.net_multiple(PokerHand.LOW_PAIR) == -1
    assert rules.net_multiple(PokerHand.ROYAL_FLUSH) == 125
    assert rules.bonus3_net_multiple(ThreeCardHand.HIGH_CARD) == -1


def test_pays_for_takes_the_highest_line_reached() -> None:
    table = {7: 300, 6: 100, 5: 10, 4: 1}
    assert [pays_for(table, n) for n in range(2, 8)] == [None, None, 1, 10, 100, 300]


def test_cli_lists_all_five() -> None:
    outcome = run_cli(["rules"])
    assert outcome.exit_code == 0
    for rules_id in BUILTIN:
        assert rules_id in outcome.stdout


def pays_text(table: dict[int, int] | dict[str, int | str]) -> list[str]:
    return ["push" if pays == "push" else f"{pays:,} to 1" for pays in table.values()]


@pytest.mark.parametrize("rules_id", BUILTIN)
def test_cli_prints_the_pay_tables(rules_id: str) -> None:
    outcome = run_cli(["rules", rules_id])
    assert outcome.exit_code == 0 and outcome.stderr == ""
    text = outcome.stdout
    rules = load_rules(rules_id)
    tables: list[dict[int, int] | dict[str, int | str]]
    if isinstance(rules, FlushRules):
        tables = list(FLUSH_TABLES[rules_id])
        if rules.max_aggregate_payout:
            assert f"{rules.max_aggregate_payout:,}" in text
    elif isinstance(rules, NineCardRules):
        tables = [{9: 500, 8: 250, 7: 100, 6: 20, 5: 3, 4: 1}, {4: 3, 3: 2}, {3: 5, 2: 2}]
    else:
        tables = [STUD_PAYS, BONUS3_PAYS]
    for table in tables:
        for line in pays_text(table):
            assert line in text, f"{line!r} missing from the {rules_id} card"


def copy_of(rules_id: str, old: str = "", new: str = "") -> str:
    text = rule_set_file(f"{rules_id}").read_text("utf-8")
    assert old in text, old
    return text.replace(old, new)


def test_user_file_anywhere_an_id_goes(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(copy_of("nine-card-flush", 'id = "nine-card-flush"', 'id = "house-nine"')
                    .replace("9 = 500", "9 = 777"), "utf-8")
    rules = load_rules(path)
    assert isinstance(rules, NineCardRules) and rules.bonus9_pays[9] == 777
    assert load_rules(str(path)).id == "house-nine"
    outcome = run_cli(["rules", str(path)])
    assert outcome.exit_code == 0 and "777 to 1" in outcome.stdout


INVALID = [
    ("negative pay", "high-card-flush", "4 = 1\n\n#", "4 = -1\n\n#", "flush_pays.4"),
    ("missing qualifier", "nh-flush-poker", '[qualifier]\nmin_length = 3\nmin_high_card = "9"',
     "", "field qualifier"),
    ("qualifier rank", "high-card-flush", 'min_high_card = "9"', 'min_high_card = "1"',
     "qualifier.min_high_card"),
    ("missing raise entry", "high-card-flush", "\n6 = 3\n", "\n", "raise_multiples"),
    ("raise multiple too high", "high-card-flush", "7 = 3\n", "7 = 11\n",
     "raise_multiples.7"),
    ("unknown wager in limits", "high-card-flush", "ante = { min = 1, max = 1000 }",
     "ante = { min = 1, max = 1000 }\ntip = { min = 1, max = 5 }", "unknown wager 'tip'"),
    ("required wager without limits", "nine-card-flush", "all9 = { min = 1, max = 1000 }\n",
     "", "required_wagers"),
    ("zero minimum", "nh-holdem-stud", "ante = { min = 2, max = 10 }",
     "ante = { min = 0, max = 10 }", "limits.ante.min"),
    ("too many seats", "nine-card-flush", "seats = 8", "seats = 9", "seats"),
    ("unknown hand", "nh-holdem-stud", "two_pair = 2", "two_pairs = 2", "two_pairs"),
    ("bad push word", "nh-holdem-stud", 'mid_pair = "push"', 'mid_pair = "tie"', "pays.mid_pair"),
    ("unknown game", "high-card-flush", 'game = "high-card-flush"', 'game = "baccarat"',
     "game"),
    ("unknown field", "high-card-flush", "seats = 6", "seats = 6\ncolour = 1", "colour"),
    ("not TOML", "high-card-flush", "seats = 6", "seats = = 6", "not valid TOML"),
    ("negative cap", "high-card-flush-toledo", "max_aggregate_payout = 25000",
     "max_aggregate_payout = -5", "max_aggregate_payout"),
    ("pay line no hand reaches", "high-card-flush", "7 = 300", "8 = 300",
     "field flush_pays: a line for 8 cards, but the hand has only 7"),
    ("raise entry for an impossible flush", "nh-flush-poker", "\n7 = 2\n", "\n7 = 2\n9 = 2\n",
     "field raise_multiples: a 9-card flush cannot occur"),
    ("empty pay table", "nine-card-flush", "[player6_pays]\n4 = 3\n3 = 2\n",
     "[player6_pays]\n", "field player6_pays: the pay table has no lines"),
    ("First 3 line above 3 cards", "nine-card-flush", "3 = 5\n", "4 = 5\n",
     "field first3_pays: a line for 4 cards"),
    ("streets are the game's shape", "nh-holdem-stud", "streets = 3", "streets = 2",
     "field streets"),
    ("push not below win", "nine-card-flush", "all9_push_at = 3", "all9_push_at = 4",
     "field all9_push_at: 4 must be below all9_win_at"),
]


@pytest.mark.parametrize(("rules_id", "old", "new", "field"), [case[1:] for case in INVALID],
                         ids=[case[0] for case in INVALID])
def test_invalid_file_names_the_field(tmp_path: Path, rules_id: str, old: str, new: str,
                                      field: str) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(copy_of(rules_id, old, new), "utf-8")
    with pytest.raises(RulesError, match=field) as error:
        load_rules(path)
    assert str(path) in str(error.value)
    assert_refused(run_cli(["rules", str(path)]), field)


def test_unknown_id_and_unreadable_file(tmp_path: Path) -> None:
    assert_refused(run_cli(["rules", "no-such-game"]), "no rule set 'no-such-game'")
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RulesError, match=r"binary\.toml"):
        load_rules(path)


def test_parse_rules_origin() -> None:
    with pytest.raises(RulesError, match="<rules>: field"):
        parse_rules('id = "x"\nname = "x"\ngame = "holdem-stud"\n')


def test_fingerprint_is_of_content_not_layout(tmp_path: Path) -> None:
    text = rule_set_file("high-card-flush").read_text("utf-8")
    relaid = "# a comment\n" + text.replace("seats = 6\n", "") .replace(
        "required_wagers", "seats = 6\nrequired_wagers")
    copy, changed = tmp_path / "copy.toml", tmp_path / "changed.toml"
    copy.write_text(relaid, "utf-8")
    changed.write_text(text.replace("7 = 8000", "7 = 9000"), "utf-8")
    builtin = load_rules("high-card-flush")
    assert len(builtin.fingerprint) == 64 and not builtin.modified
    assert load_rules(copy).fingerprint == builtin.fingerprint
    assert not load_rules(copy).modified and load_rules(copy).label == "high-card-flush"
    modified = load_rules(changed)
    assert modified.fingerprint != builtin.fingerprint and modified.modified
    assert modified.label.startswith("high-card-flush (modified, fingerprint ")
    assert modified.identity() == {"rules": "high-card-flush",
                                   "fingerprint": modified.fingerprint, "modified": True}
    fingerprints = {load_rules(rules_id).fingerprint for rules_id in BUILTIN}
    assert len(fingerprints) == len(BUILTIN)


HOSTILE = [
    ("no required wagers", "high-card-flush", 'required_wagers = ["ante"]', "required_wagers = []",
     "field required_wagers: must include the main wager 'ante'"),
    ("required wager without limits", "high-card-flush", "ante = { min = 1, max = 1000 }\n", "",
     "field required_wagers: 'ante' has no entry in limits"),
    ("main wager not required", "nine-card-flush", 'required_wagers = ["all9"]',
     'required_wagers = ["bonus9"]', "must include the main wager 'all9'"),
    ("Hold'em pays with no lines", "nh-holdem-stud",
     "[pays]\nroyal_flush = 125\nstraight_flush = 80\nfour_of_a_kind = 30\n"
     "full_house = 8\nflush = 6\nstraight = 4\nthree_of_a_kind = 3\ntwo_pair = 2\n"
     'high_pair = 1\nmid_pair = "push"\n', "[pays]\n", "field pays: the pay table has no lines"),
    ("a royal flush that loses", "nh-holdem-stud", "royal_flush = 125\n", "",
     "field pays: the pay table: royal_flush loses, less than straight_flush (80)"),
    ("line 04 beside line 4", "high-card-flush", "4 = 1\n\n#", "04 = 2\n4 = 1\n\n#",
     "field flush_pays: line '04' is not a plain whole number such as 4"),
    ("pays as text", "high-card-flush", "7 = 300", '7 = "300"', "field flush_pays.7"),
    ("seats as text", "high-card-flush", "seats = 6", 'seats = "6"', "field seats"),
    ("a boolean as text", "nh-flush-poker", "equal_bonuses = true", 'equal_bonuses = "no"',
     "field equal_bonuses"),
    ("a cap of true", "high-card-flush-toledo", "max_aggregate_payout = 25000",
     "max_aggregate_payout = true", "field max_aggregate_payout"),
    ("a pay as a float", "nine-card-flush", "9 = 500", "9 = 500.0", "field bonus9_pays.9"),
    ("pays of 1e8", "high-card-flush", "7 = 8000", "7 = 100000000",
     "field straight_flush_pays.7: Input should be less than or equal to 100000"),
    ("a cap of 1e19", "high-card-flush-toledo", "max_aggregate_payout = 25000",
     "max_aggregate_payout = 10000000000000000000", "less than or equal to 1000000000000"),
    ("a limit of 1e7", "high-card-flush", "ante = { min = 1, max = 1000 }",
     "ante = { min = 1, max = 10000000 }", "field limits.ante.max"),
    ("a push word in a count table", "nine-card-flush", "3 = 5", '3 = "push"',
     "field first3_pays.3"),
    ("a better flush paying less", "high-card-flush", "6 = 100", "6 = 5",
     "field flush_pays: 6 pays 5, less than 5 (10)"),
    ("Hold'em pays as text", "nh-holdem-stud", "flush = 6\nstraight", 'flush = "6"\nstraight',
     """field pays.flush: '6' is neither a whole number of units to 1 nor "push\""""),
    ("an integer of 5,000 digits", "high-card-flush", "seats = 6", "seats = " + "9" * 5000,
     "not valid TOML"),
    ("TOML nested 1,000 deep", "high-card-flush", "seats = 6",
     "seats = " + "[" * 1000 + "]" * 1000, "not valid TOML"),
    ("a required wager twice", "high-card-flush", 'required_wagers = ["ante"]',
     'required_wagers = ["ante", "ante"]', "field required_wagers: a wager is listed twice"),
    ("a name too long", "high-card-flush", 'name = "High Card Flush"', f'name = "{"x" * 101}"',
     "field name: String should have at most 100 characters"),
]


@pytest.mark.parametrize(("rules_id", "old", "new", "field"), [case[1:] for case in HOSTILE],
                         ids=[case[0] for case in HOSTILE])
def test_hostile_file_refused_in_one_line(tmp_path: Path, rules_id: str, old: str, new: str,
                                          field: str) -> None:
    path = tmp_path / "hostile.toml"
    path.write_text(copy_of(rules_id, old, new), "utf-8")
    with pytest.raises(RulesError) as error:
        load_rules(path)
    assert field in str(error.value) and str(path) in str(error.value)
    assert_refused(run_cli(["rules", str(path)]), field)


def test_hostile_ids_and_files(tmp_path: Path) -> None:
    assert_refused(run_cli(["rules", "x" * 300]), "cannot read rule set 'xxxx",
                   "File name too long")
    assert_refused(run_cli(["rules", "x" * 5000]), "at most 4096 characters")
    big = tmp_path / "big.toml"
    big.write_text("# padding\n" * 30_000, "utf-8")
    assert_refused(run_cli(["rules", str(big)]), "a rule set file is at most 262,144 bytes")
    assert_refused(run_cli(["rules", str(tmp_path)]), "no such file")


def test_python_callers_may_use_integer_keys() -> None:
    rules = load_rules("high-card-flush")
    assert isinstance(rules, FlushRules)
    data = rules.model_dump()
    assert FlushRules.model_validate(data) == rules
    with pytest.raises(ValueError, match="not a plain whole number"):
        FlushRules.model_validate({**data, "flush_pays": {True: 1}})
