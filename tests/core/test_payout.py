"""``feltlab payout`` settles every case of RULES.md, through the real command line."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import assert_refused, payout, run_cli, settled
from shipped import rule_set_file

HCF = "high-card-flush"
TOLEDO = "high-card-flush-toledo"
NH = "nh-flush-poker"
NINE = "nine-card-flush"
STUD = "nh-holdem-stud"


def flush_request(rules: str, player: str, dealer: str, raise_: int,
                  **wagers: int) -> dict[str, Any]:
    return {"rules": rules, "wagers": wagers, "player": player, "dealer": dealer,
            "raise": raise_}


def nine_request(colour: str, community: str, player: str, play: bool,
                 **wagers: int) -> dict[str, Any]:
    return {"rules": NINE, "wagers": wagers, "colour": colour, "community": community,
            "player": player, "play": play}


def stud_request(player: str, community: str, streets: list[int],
                 **wagers: int) -> dict[str, Any]:
    return {"rules": STUD, "wagers": wagers, "player": player, "community": community,
            "streets": streets}


# --- High Card Flush family: the main game -------------------------------------------

# (id, request, expected results, checks on the printed details)
MAIN_GAME_CASES: list[tuple[str, dict[str, Any], dict[str, int], dict[str, Any]]] = [
    ("8-high 3-card flush does not qualify",
     flush_request(HCF, "Ac Kc Qc Js 9d Td 4c", "8h 5h 2h 7s 4s 6d 3d", 10, ante=10),
     {"ante": 10, "raise": 0}, {"dealer_qualifies": False}),
    ("two 3-card suits: the 9-high one qualifies",
     flush_request(HCF, "7c 6c 5c 4d 2d Ks Qh", "8h 5h 2h 9s 4s 3s 6d", 10, ante=10),
     {"ante": -10, "raise": -10}, {"dealer_qualifies": True,
                                   "dealer_flush": "3-card spades flush 9-4-3"}),
    ("9-high 3-card flush qualifies",
     flush_request(HCF, "8c 7c 6c 5d 4d Ks 2s", "9h 5h 2h 7s 4s 6d 3d", 10, ante=10),
     {"ante": -10, "raise": -10}, {"dealer_qualifies": True}),
    ("5-4-3-2 4-card flush qualifies and beats any 3-card flush",
     flush_request(HCF, "As Ks Qs Jd Td 9c 2c", "5h 4h 3h 2h 7s 6d 8c", 10, ante=10),
     {"ante": -10, "raise": -10}, {"dealer_qualifies": True}),
    ("4-card flush beats 3-card flush",
     flush_request(HCF, "5h 4h 3h 2h 7s 6d 8c", "As Ks Qs Jd Td 9c 2c", 10, ante=10),
     {"ante": 10, "raise": 10}, {"player_flush": "4-card hearts flush 5-4-3-2"}),
    ("K-Q-J-T beats K-Q-J-9 (last card decides)",
     flush_request(HCF, "Ks Qs Js Ts 2h 3d 4c", "Kh Qh Jh 9h 2s 3c 5d", 10, ante=10),
     {"ante": 10, "raise": 10}, {}),
    ("K-Q-J-9 loses to K-Q-J-T",
     flush_request(HCF, "Kh Qh Jh 9h 2s 3c 5d", "Ks Qs Js Ts 2h 3d 4c", 10, ante=10),
     {"ante": -10, "raise": -10}, {}),
    ("A-4-3-2 beats K-Q-J-T",
     flush_request(HCF, "Ad 4d 3d 2d 5s 6h 7c", "Ks Qs Js Ts 2h 3c 4c", 10, ante=10),
     {"ante": 10, "raise": 10}, {}),
    ("5-card flushes differing only in the fifth card",
     flush_request(HCF, "As Ks Qs Js 3s 2c 2d", "Ah Kh Qh Jh 2h 3d 4d", 20, ante=10),
     {"ante": 10, "raise": 20}, {}),
    ("identical ranks push Ante and Raise",
     flush_request(HCF, "Ks Qs Js Ts 2h 3d 4c", "Kh Qh Jh Th 2s 3c 5d", 10, ante=10),
     {"ante": 0, "raise": 0}, {}),
    ("better of two equal-length suits plays, for player and dealer (A-3-2 over K-Q-J)",
     flush_request(HCF, "As 3s 2s Kh Qh Jh 4d", "Ac 3c 2c Kd Qd 9d 5h", 10, ante=10),
     {"ante": 0, "raise": 0}, {"player_flush": "3-card spades flush A-3-2",
                               "dealer_flush": "3-card clubs flush A-3-2"}),
    ("dealer's straight flush means nothing",
     flush_request(HCF, "As Ks 9s 7s 2h 3d 4c", "5h 6h 7h 8h Jd Qc 2s", 10, ante=10),
     {"ante": 10, "raise": 10}, {}),
]


@pytest.mark.parametrize(("request_", "results", "details"),
                         [case[1:] for case in MAIN_GAME_CASES],
                         ids=[case[0] for case in MAIN_GAME_CASES])
def test_main_game(request_: dict[str, Any], results: dict[str, int],
                   details: dict[str, Any]) -> None:
    answer = settled(request_)
    assert answer["results"] == results
    assert answer["total"] == sum(results.values())
    for key, value in details.items():
        assert answer[key] == value


@pytest.mark.parametrize("rules", [HCF, TOLEDO, NH])
def test_fold_loses_exactly_the_ante(rules: str) -> None:
    answer = settled(flush_request(rules, "Ks Qs Js Ts 2h 3d 4c", "Kh Qh Jh 9h 2s 3c 5d",
                                   0, ante=7))
    assert answer["results"] == {"ante": -7}
    assert answer["total"] == -7


# --- bonuses ------------------------------------------------------------------------

DEALER = "Kc Qc Jc 9d 8d Td 4h"


@pytest.mark.parametrize(("player", "run"), [
    ("Ad 2d 3d 9s 7h 5c Jh", 3),  # ace low
    ("Qd Kd Ad 9s 7h 5c Jh", 3),  # ace high
    ("Kd Ad 2d 9s 7h 5c Jh", 2),  # no wrap-around
    ("5h 6h 7h Ks Qs 9s 2s", 3),  # in a suit other than the flush played
    ("5h 6h 7h 8h 9h Ts Jd", 5),
    ("2s 3s 4s 5s 6s 7s 8s", 7),
])
def test_straight_flush_runs(player: str, run: int) -> None:
    answer = settled(flush_request(HCF, player, DEALER, 10, ante=10, straight_flush=5))
    assert answer["player_straight_flush"] == run
    pays = {3: 7, 4: 60, 5: 100, 6: 1000, 7: 8000}.get(run)
    assert answer["results"]["straight_flush"] == (5 * pays if pays else -5)


def test_straight_flush_elsewhere_while_flush_plays_spades() -> None:
    answer = settled(flush_request(HCF, "5h 6h 7h Ks Qs 9s 2s", DEALER, 10, ante=10,
                                   straight_flush=5))
    assert answer["player_flush"] == "4-card spades flush K-Q-9-2"
    assert answer["results"]["straight_flush"] == 35


@pytest.mark.parametrize(("player", "flush_pays"), [
    ("5h 6h Th Jh 2s 3d 4c", {HCF: 1, TOLEDO: 1, NH: 1}),
    ("5h 6h Th Jh Kh 3d 4c", {HCF: 10, TOLEDO: 12, NH: 10}),
    ("5h 6h Th Jh Kh Ah 4c", {HCF: 100, TOLEDO: 60, NH: 50}),
    ("5h 6h Th Jh Kh Ah 3h", {HCF: 300, TOLEDO: 400, NH: 200}),
    ("5h 6h Th 2s 3s 3d 4c", {HCF: -1, TOLEDO: -1, NH: -1}),
])
@pytest.mark.parametrize("rules", [HCF, TOLEDO, NH])
def test_flush_bonus_table(rules: str, player: str, flush_pays: dict[str, int]) -> None:
    answer = settled(flush_request(rules, player, DEALER, 2, ante=2, flush=3))
    assert answer["results"]["flush"] == 3 * flush_pays[rules]


@pytest.mark.parametrize(("rules", "flush", "straight"), [
    (HCF, 10 * 10, 10 * 60), (TOLEDO, 10 * 12, 10 * 60)])
def test_bonuses_paid_on_a_fold(rules: str, flush: int, straight: int) -> None:
    answer = settled(flush_request(rules, "5h 6h 7h 8h Kh 2s 3d", DEALER, 0, ante=10,
                                   flush=10, straight_flush=10))
    assert answer["results"] == {"ante": -10, "flush": flush, "straight_flush": straight}
    assert answer["total"] == flush + straight - 10


def test_nh_fold_loses_flush_bonus_keeps_straight_flush_bonus() -> None:
    answer = settled(flush_request(NH, "5h 6h 7h 8h 2h Ks 3d", DEALER, 0, ante=5, flush=5,
                                   straight_flush=5))
    assert answer["results"] == {"ante": -5, "flush": -5, "straight_flush": 5 * 50}
    assert answer["total"] == 240


SEVEN_SPADES = "2s 3s 4s 5s 6s 7s 8s"
SEVEN_HEARTS = "Ah Kh Qh Jh Th 9h 8h"


@pytest.mark.parametrize(("rules", "ante", "raise_", "bonus", "won", "total", "capped"), [
    # won: 10*200 + 10*200 = 4,000 capped at 2,000; Ante and Raise still collected.
    (NH, 10, 20, 10, 4000, 2000 - 30, True),
    # won: 100*400 + 100*1000 = 140,000 capped at 25,000.
    (TOLEDO, 1000, 3000, 100, 140000, 25000 - 4000, True),
    # no cap: 100*300 + 100*8000.
    (HCF, 1000, 3000, 100, 830000, 830000 - 4000, False),
])
def test_aggregate_cap(rules: str, ante: int, raise_: int, bonus: int, won: int, total: int,
                       capped: bool) -> None:
    answer = settled(flush_request(rules, SEVEN_SPADES, SEVEN_HEARTS, raise_, ante=ante,
                                   flush=bonus, straight_flush=bonus))
    results = answer["results"]
    assert results["ante"] == -ante and results["raise"] == -raise_
    assert results["flush"] + results["straight_flush"] == won
    assert answer["total"] == total
    assert answer["capped"] is capped


def test_cap_not_applied_below_the_cap() -> None:
    answer = settled(flush_request(NH, SEVEN_SPADES, SEVEN_HEARTS, 2, ante=1, flush=4,
                                   straight_flush=4))
    assert answer["results"]["flush"] == 800 and answer["total"] == 1600 - 3
    assert answer["capped"] is False


# --- raise sizes ---------------------------------------------------------------------

TWO_CARD = "As Ks Ah Kh Ad Kd 2c"
FOUR_CARD = "As Ks Qs Js 2h 3d 4c"
FIVE_CARD = "As Ks Qs Js 9s 3d 4c"
SIX_CARD = "As Ks Qs Js 9s 8s 4c"
SEVEN_CARD = "As Ks Qs Js 9s 8s 2s"
DEALER_FOR_RAISES = "5h 6h 8h Td Jd 9h 3c"


@pytest.mark.parametrize(("rules", "player", "allowed", "refused"), [
    (HCF, TWO_CARD, [10], [5, 11, 20]),
    (HCF, FOUR_CARD, [10], [9, 11, 20]),
    (HCF, FIVE_CARD, [10, 15, 20], [9, 21, 30]),
    (HCF, SIX_CARD, [10, 25, 30], [9, 31]),
    (TOLEDO, SEVEN_CARD, [10, 30], [9, 31]),
    (NH, TWO_CARD, [], [5, 10]),
    (NH, FOUR_CARD, [5], [4, 6, 10]),
    (NH, FIVE_CARD, [5, 10], [4, 7, 15]),
    (NH, SEVEN_CARD, [5, 10], [7, 15]),
])
def test_raise_sizes(rules: str, player: str, allowed: list[int], refused: list[int]) -> None:
    ante = 5 if rules == NH else 10
    for amount in allowed:
        answer = settled(flush_request(rules, player, DEALER_FOR_RAISES, amount, ante=ante))
        assert abs(answer["results"]["raise"]) == amount  # the dealer qualifies
    for amount in refused:
        assert_refused(payout(flush_request(rules, player, DEALER_FOR_RAISES, amount,
                                            ante=ante)), "raise")


def test_nh_two_card_flush_may_only_fold() -> None:
    assert_refused(payout(flush_request(NH, TWO_CARD, DEALER_FOR_RAISES, 5, ante=5)),
                   "2-card flush may not raise", "fold")
    assert settled(flush_request(NH, TWO_CARD, DEALER_FOR_RAISES, 0, ante=5))["total"] == -5


def test_raise_messages_name_the_limit() -> None:
    assert_refused(payout(flush_request(HCF, FIVE_CARD, DEALER_FOR_RAISES, 21, ante=10)),
                   "raise of 21", "maximum of 2x", "5-card flush")
    assert_refused(payout(flush_request(HCF, FIVE_CARD, DEALER_FOR_RAISES, 9, ante=10)),
                   "raise of 9", "minimum")
    assert_refused(payout(flush_request(NH, FIVE_CARD, DEALER_FOR_RAISES, 7, ante=5)),
                   "raise of 7", "whole multiple of the ante")


# --- 9 Card Flush --------------------------------------------------------------------

NINE_CASES: list[tuple[str, dict[str, Any], dict[str, int], dict[str, int]]] = [
    ("2 hearts + 2 diamonds count 2, not 4",
     nine_request("red", "2h 3h 4s", "5d 6d 7c 8c 9s Ts", True, all9=10, player6=3, first3=2),
     {"all9": -10, "play": -10, "player6": -3, "first3": 4},
     {"flush_cards_9": 2, "flush_cards_player6": 2, "flush_cards_first3": 2}),
    ("exactly 3 pushes All 9 and Play",
     nine_request("red", "2h 3h 4s", "5h 6d 7c 8c 9s Ts", True, all9=10),
     {"all9": 0, "play": 0}, {"flush_cards_9": 3}),
    ("4 wins All 9 and Play 1 to 1",
     nine_request("black", "2s 3s 4h", "5s 6s 7c 8c 9h Th", True, all9=10),
     {"all9": 10, "play": 10}, {"flush_cards_9": 4}),
    ("folded: All 9 lost, no Play, optional wagers settled",
     nine_request("red", "2h 3h 4h", "5h 6h 7h 8h 9s Ts", False, all9=10, bonus9=2,
                  player6=3, first3=4),
     {"all9": -10, "bonus9": 2 * 100, "player6": 3 * 3, "first3": 4 * 5},
     {"flush_cards_9": 7, "flush_cards_player6": 4, "flush_cards_first3": 3}),
    ("Player 6: 3 pay 2 to 1; First 3: 1 loses",
     nine_request("black", "2c 3h 4d", "5s 6s 7s 8c 9h Th", True, all9=10, player6=3, first3=4),
     {"all9": 0, "play": 0, "player6": 6, "first3": -4},
     {"flush_cards_9": 3, "flush_cards_player6": 3, "flush_cards_first3": 1}),
    ("Player 6: 2 lose; 9 Card Bonus: 3 lose",
     nine_request("black", "2c 3c 4d", "5s 6s 7c 8h 9h Th", True, all9=10, player6=3,
                  bonus9=5),
     {"all9": 0, "play": 0, "player6": -3, "bonus9": -5}, {"flush_cards_9": 3}),
    ("9 Card Bonus: all 9 of one suit pays 500",
     nine_request("red", "2d 3d 4d", "5d 6d 7d 8d 9d Td", True, all9=1, bonus9=2),
     {"all9": 1, "play": 1, "bonus9": 1000}, {"flush_cards_9": 9}),
    ("9 Card Bonus: 4 pays 1",
     nine_request("red", "2d 3d 4d", "5d 6h 7h 8h 9s Ts", True, all9=1, bonus9=2),
     {"all9": 1, "play": 1, "bonus9": 2}, {"flush_cards_9": 4}),
    ("9 Card Bonus: 5 pays 3",
     nine_request("red", "2d 3d 4d", "5d 6d 7h 8h 9s Ts", True, all9=1, bonus9=2),
     {"all9": 1, "play": 1, "bonus9": 6}, {"flush_cards_9": 5}),
]


@pytest.mark.parametrize(("request_", "results", "details"),
                         [case[1:] for case in NINE_CASES], ids=[case[0] for case in NINE_CASES])
def test_nine_card_flush(request_: dict[str, Any], results: dict[str, int],
                         details: dict[str, int]) -> None:
    answer = settled(request_)
    assert answer["results"] == results
    assert answer["total"] == sum(results.values())
    for key, value in details.items():
        assert answer[key] == value


# --- Hold'em Stud ------------------------------------------------------------------

@pytest.mark.parametrize(("player", "community", "name", "multiple"), [
    ("Ah Kh", "Qh Jh Th", "royal_flush", 125),
    ("9h Kh", "Qh Jh Th", "straight_flush", 80),
    ("Ah 2h", "3h 4h 5h", "straight_flush", 80),
    ("9c 9h", "9d 9s Th", "four_of_a_kind", 30),
    ("9c 9h", "9d Ts Th", "full_house", 8),
    ("2c 9c", "Jc Kc 4c", "flush", 6),
    ("Ah 2c", "3d 4s 5h", "straight", 4),
    ("Ah Kc", "Qd Js Th", "straight", 4),
    ("7h 7c", "7d 2s 9h", "three_of_a_kind", 3),
    ("7h 7c", "2d 2s 9h", "two_pair", 2),
    ("Jh Js", "2c 7d 9s", "high_pair", 1),
    ("Ah 3s", "Ac 7d 9s", "high_pair", 1),
    ("6h 6c", "2d 9s Kh", "mid_pair", 0),
    ("Th 2c", "Td 9s Kh", "mid_pair", 0),
    ("5h 5c", "2d 9s Kh", "low_pair", -1),
    ("2h 3c", "2d 9s Kh", "low_pair", -1),
    ("Kh Qc", "2d 9s 4h", "high_card", -1),
    ("Kh Ac", "2d 3s 4h", "high_card", -1),  # K-A-2-3-4 does not wrap
])
def test_holdem_pay_table(player: str, community: str, name: str, multiple: int) -> None:
    answer = settled(stud_request(player, community, [5, 10, 15], ante=5))
    assert answer["player_hand"] == name
    assert answer["folded"] is False
    expected = {"ante": 5 * multiple, "street3": 5 * multiple, "street4": 10 * multiple,
                "street5": 15 * multiple}
    assert answer["results"] == expected
    assert answer["total"] == 35 * multiple


@pytest.mark.parametrize("streets", [[], [5], [5, 15]])
def test_holdem_fold_loses_ante_and_bets_made(streets: list[int]) -> None:
    answer = settled(stud_request("Ah Kh", "Qh Jh Th", streets, ante=5))
    assert answer["folded"] is True
    assert answer["results"] == {"ante": -5, **{
        name: -amount for name, amount in zip(["street3", "street4", "street5"], streets,
                                              strict=False)}}
    assert answer["total"] == -5 - sum(streets)


@pytest.mark.parametrize(("community", "name", "pays"), [
    ("Qh Kh Ah", "straight_flush", 40),
    ("Ah 2h 3h", "straight_flush", 40),
    ("7h 7c 7d", "three_of_a_kind", 30),
    ("Ad 2h 3c", "straight", 6),
    ("Qd Kh Ac", "straight", 6),
    ("Kd Ah 2c", "high_card", -1),  # no wrap-around
    ("2h 9h Kh", "flush", 3),
    ("2h 2c Kh", "pair", 1),
    ("2h 9c Kh", "high_card", -1),
])
@pytest.mark.parametrize("streets", [[], [4], [4, 4], [4, 8, 12]])
def test_bonus3_on_the_community_folded_or_not(community: str, name: str, pays: int,
                                               streets: list[int]) -> None:
    answer = settled(stud_request("5s 6d", community, streets, ante=4, bonus3=3))
    assert answer["bonus3_hand"] == name
    assert answer["results"]["bonus3"] == 3 * pays


# --- one request through a real process -------------------------------------------

def test_subprocess_module_and_entry_point() -> None:
    requests = [flush_request(NH, SEVEN_SPADES, SEVEN_HEARTS, 20, ante=10, flush=10,
                              straight_flush=10),
                stud_request("Ah 2c", "3d 4s 5h", [5, 5, 5], ante=5)]
    run = subprocess.run([sys.executable, "-m", "feltlab.cli", "payout"],
                         input=json.dumps(requests), capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    answers = json.loads(run.stdout)
    assert [answer["total"] for answer in answers] == [1970, 80]
    entry = Path(sys.executable).with_name("feltlab")
    bad = subprocess.run([str(entry), "payout"], input='{"rules": "nh-flush-poker", "wagers"',
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "not valid JSON" in bad.stderr


def test_array_input_settles_each_item() -> None:
    outcome = payout([stud_request("Jh Js", "2c 7d 9s", [5, 5, 10], ante=5),
                      nine_request("red", "2h 3h 4h", "5h 6h 7h 8h 9s Ts", True, all9=10)])
    assert outcome.exit_code == 0
    assert [answer["total"] for answer in outcome.json()] == [25, 20]


def test_options_instead_of_json() -> None:
    outcome = run_cli(["payout", "--rules", STUD, "--wagers", "ante=5,bonus3=2", "--player",
                       "Jh Js", "--community", "2c 7d 9s", "--streets", "5,5,10"])
    assert outcome.exit_code == 0, outcome.stderr
    assert outcome.json()["results"] == {"ante": 5, "street3": 5, "street4": 5, "street5": 10,
                                         "bonus3": -2}
    nine = run_cli(["payout", "--rules", NINE, "--wagers", '{"all9": 3}', "--colour", "red",
                    "--community", "2h 3h 4s", "--player", "5h 6d 7c 8c 9s Ts", "--fold"])
    assert nine.json()["results"] == {"all9": -3}


# --- refusals: exit status 2, one line on stderr naming the rule, nothing on stdout ---

GOOD_FLUSH = flush_request(HCF, "Ks Qs Js Ts 2h 3d 4c", "Kh Qh Jh 9h 2s 3c 5d", 10, ante=10)
GOOD_NINE = nine_request("red", "2h 3h 4s", "5h 6d 7c 8c 9s Ts", True, all9=10)
GOOD_STUD = stud_request("Jh Js", "2c 7d 9s", [5, 5, 10], ante=5)


def changed(request: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {**request, **fields}


REFUSALS: list[tuple[str, object, tuple[str, ...]]] = [
    ("unreadable card", changed(GOOD_FLUSH, player="Ks Qs Js Ts 2h 3d Xc"),
     ("player", "cannot read card 'Xc'")),
    ("unreadable card in a list", changed(GOOD_STUD, community=["2c", "7d", "1s"]),
     ("community", "'1s'")),
    ("card that is not text", changed(GOOD_STUD, player=["Jh", 5]), ("player", "5")),
    ("duplicate within a hand", changed(GOOD_FLUSH, player="Ks Qs Js Ts 2h 3d Ks"),
     ("card Ks appears twice",)),
    ("duplicate between player and dealer", changed(GOOD_FLUSH, dealer="Ks Qh Jh 9h 2s 3c 5d"),
     ("card Ks appears twice",)),
    ("duplicate between player and community", changed(GOOD_STUD, community="Jh 7d 9s"),
     ("card Jh appears twice",)),
    ("duplicate between community and 9 Card Flush player",
     changed(GOOD_NINE, player="2h 6d 7c 8c 9s Ts"), ("card 2h appears twice",)),
    ("6 player cards in a flush game", changed(GOOD_FLUSH, player="Ks Qs Js Ts 2h 3d"),
     ("player needs 7 cards, got 6",)),
    ("8 dealer cards", changed(GOOD_FLUSH, dealer="Kh Qh Jh 9h 2s 3c 5d 6d"),
     ("dealer needs 7 cards, got 8",)),
    ("2 community cards", changed(GOOD_NINE, community="2h 3h"), ("community needs 3 cards",)),
    ("3 Hold'em player cards", changed(GOOD_STUD, player="Jh Js Jc"),
     ("player needs 2 cards, got 3",)),
    ("missing cards", {k: v for k, v in GOOD_FLUSH.items() if k != "dealer"},
     ("missing field 'dealer'",)),
    ("unknown rule set", changed(GOOD_FLUSH, rules="high-card-flash"),
     ("no rule set 'high-card-flash'",)),
    ("missing rules", {k: v for k, v in GOOD_FLUSH.items() if k != "rules"},
     ("missing field 'rules'",)),
    ("wager below minimum", changed(GOOD_STUD, wagers={"ante": 1}),
     ("wager ante of 1 is below the minimum of 2",)),
    ("wager above maximum", changed(GOOD_FLUSH, rules=NH, wagers={"ante": 11}),
     ("wager ante of 11 is above the maximum of 10",)),
    ("bonus above maximum", changed(GOOD_FLUSH, wagers={"ante": 10, "flush": 101}),
     ("wager flush of 101 is above the maximum of 100",)),
    ("negative wager", changed(GOOD_NINE, wagers={"all9": 10, "first3": -1}),
     ("wager first3 of -1 is below the minimum",)),
    ("missing required wager", changed(GOOD_NINE, wagers={"player6": 5}),
     ("wager all9 is required",)),
    ("unknown wager", changed(GOOD_FLUSH, wagers={"ante": 10, "tip": 1}),
     ("unknown wager 'tip'",)),
    ("wagers not an object", changed(GOOD_FLUSH, wagers=[10]), ("field 'wagers'",)),
    ("fractional wager", changed(GOOD_FLUSH, wagers={"ante": 2.5}),
     ("wager ante must be a whole number", "2.5")),
    ("wager as text", changed(GOOD_FLUSH, wagers={"ante": "10"}),
     ("wager ante must be a whole number", '"10"')),
    ("wager as boolean", changed(GOOD_FLUSH, wagers={"ante": True}),
     ("wager ante must be a whole number",)),
    ("unequal bonuses", changed(GOOD_FLUSH, rules=NH,
                                wagers={"ante": 5, "flush": 5, "straight_flush": 3}),
     ("flush (5) and straight_flush (3) must be equal",)),
    ("raise too large", changed(GOOD_FLUSH, **{"raise": 11}),
     ("raise of 11 is above the maximum of 1x",)),
    ("raise too small", changed(GOOD_FLUSH, **{"raise": 5}),
     ("raise of 5 is below the minimum",)),
    ("negative raise", changed(GOOD_FLUSH, **{"raise": -10}), ("raise of -10",)),
    ("fractional raise", changed(GOOD_FLUSH, **{"raise": 10.5}),
     ("raise must be a whole number",)),
    ("raise not allowed", flush_request(NH, TWO_CARD, DEALER_FOR_RAISES, 5, ante=5),
     ("raise", "2-card flush may not raise")),
    ("raise not a multiple", flush_request(NH, FIVE_CARD, DEALER_FOR_RAISES, 8, ante=5),
     ("raise of 8 must be a whole multiple of the ante (5)",)),
    ("street bet below 1x", changed(GOOD_STUD, streets=[5, 4, 5]), ("street4 bet of 4",)),
    ("street bet above 3x", changed(GOOD_STUD, streets=[20, 5, 5]),
     ("street3 bet of 20 is not 1x to 3x the ante of 5",)),
    ("street bet not a multiple", changed(GOOD_STUD, streets=[5, 5, 7]), ("street5 bet of 7",)),
    ("street bet of 0", changed(GOOD_STUD, streets=[0]), ("street3 bet of 0",)),
    ("street bet as text", changed(GOOD_STUD, streets=["5"]), ("street3 bet must be a whole",)),
    ("too many streets", changed(GOOD_STUD, streets=[5, 5, 5, 5]),
     ("at most 3 street bets, got 4",)),
    ("streets not a list", changed(GOOD_STUD, streets=5), ("field 'streets'",)),
    ("bad colour", changed(GOOD_NINE, colour="green"),
     ("colour must be 'red' or 'black', got 'green'",)),
    ("missing colour", {k: v for k, v in GOOD_NINE.items() if k != "colour"}, ("colour",)),
    ("missing play", {k: v for k, v in GOOD_NINE.items() if k != "play"},
     ("missing field 'play'",)),
    ("play not a boolean", changed(GOOD_NINE, play="yes"), ("play must be true or false",)),
    ("field of another game", changed(GOOD_STUD, dealer="2h 3h 4h 5h 6h 7h 8h"),
     ("unknown field 'dealer'",)),
    ("not an object", "settle this", ("must be a JSON object", "str")),
    ("array with one bad item", [GOOD_FLUSH, GOOD_STUD, changed(GOOD_NINE, colour="blue")],
     ("item 2:", "colour")),
]


@pytest.mark.parametrize(("document", "fragments"), [case[1:] for case in REFUSALS],
                         ids=[case[0] for case in REFUSALS])
def test_refused(document: object, fragments: tuple[str, ...]) -> None:
    assert_refused(payout(document), *fragments)


def test_refusal_cases_are_valid_once_fixed() -> None:
    for good in (GOOD_FLUSH, GOOD_NINE, GOOD_STUD):
        settled(good)


@pytest.mark.parametrize(("stdin", "fragment"), [
    ('{"rules": "nh-flush-poker", ', "not valid JSON"),
    ("", "the input is empty"),
    ("   \n", "the input is empty"),
    ('[{"rules": "x"', "item 0: not valid JSON"),
    ('[{"rules": "nh-flush-poker"}, 2', "item 0: field 'wagers' must be an object"),
    ("[1, 2", "item 0: each request must be a JSON object"),
])
def test_malformed_input(stdin: str, fragment: str) -> None:
    assert_refused(run_cli(["payout"], stdin), fragment)


def test_option_errors() -> None:
    assert_refused(run_cli(["payout", "--rules", STUD, "--wagers", "ante=five", "--player",
                            "Jh Js", "--community", "2c 7d 9s"]), "five", "whole number")
    assert_refused(run_cli(["payout", "--rules", STUD, "--wagers", "ante=5", "--player",
                            "Jh Js", "--community", "2c 7d 9s", "--streets", "5,x"]),
                   "--streets")


INVALID_RULE_FILES = [
    ("negative pay", "[flush_pays]\n7 = 300\n6 = 100\n5 = 10\n4 = 1\n",
     "[flush_pays]\n7 = 300\n6 = 100\n5 = 10\n4 = -1\n", "flush_pays.4"),
    ("missing qualifier", '[qualifier]\nmin_length = 3\nmin_high_card = "9"\n', "",
     "field qualifier"),
    ("bad qualifier rank", 'min_high_card = "9"', 'min_high_card = "Z"',
     "qualifier.min_high_card"),
    ("min above max", "ante = { min = 1, max = 1000 }", "ante = { min = 5, max = 2 }",
     "limits.ante"),
]


@pytest.mark.parametrize(("old", "new", "field"), [case[1:] for case in INVALID_RULE_FILES],
                         ids=[case[0] for case in INVALID_RULE_FILES])
def test_invalid_rule_file_as_rules_path(tmp_path: Path, old: str, new: str,
                                         field: str) -> None:

    source = rule_set_file("high-card-flush")
    text = source.read_text("utf-8")
    assert old in text
    path = tmp_path / "broken.toml"
    path.write_text(text.replace(old, new), "utf-8")
    line = assert_refused(payout(changed(GOOD_FLUSH, rules=str(path))), field)
    assert "broken.toml" in line


def test_user_rule_file_works_as_rules_path(tmp_path: Path) -> None:

    source = rule_set_file("high-card-flush")
    text = source.read_text("utf-8").replace('id = "high-card-flush"', 'id = "my-house"')
    text = text.replace("7 = 300", "7 = 999")
    path = tmp_path / "house.toml"
    path.write_text(text, "utf-8")
    answer = settled(flush_request(str(path), "5h 6h Th Jh Kh Ah 3h", DEALER, 10, ante=10,
                                   flush=2))
    assert answer["rules"] == "my-house"
    assert answer["results"]["flush"] == 2 * 999


@pytest.mark.parametrize("args", [["payout", "--raise", "abc", "--rules", HCF],
                                  ["payout", "--no-such-option"]])
def test_option_parsing_errors_are_one_line(args: list[str]) -> None:
    assert_refused(run_cli(args), "--")


def test_extra_arguments_are_one_line() -> None:
    assert_refused(run_cli(["rules", "a", "b"]), "unexpected extra argument")


def test_raise_null_is_a_fold_and_false_is_refused() -> None:
    folded = settled(flush_request(HCF, "Th 8h 6h Js Ad Qd 2c", DEALER, 0, ante=5))
    request = flush_request(HCF, "Th 8h 6h Js Ad Qd 2c", DEALER, 0, ante=5)
    request["raise"] = None
    assert settled(request)["results"] == folded["results"] == {"ante": -5}
    request["raise"] = False
    assert_refused(payout(request), "raise must be a whole number")
