"""Every command reads the card forms any command writes: the cards ``play`` prints (suit
symbols), the cards ``payout`` and ``advise --json`` print (letters) go back into
``advise`` and ``payout`` unchanged; and every command that takes cards shows the format
in its help."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console

from conftest import run_cli
from feltlab.cli.play import PlaySession, cards_text
from feltlab.core.cards import CARD_FORMAT, Card, format_cards, full_deck, parse_cards
from feltlab.core.rules import load_rules

SYMBOL_CARD = re.compile(r"(?:[2-9TJQKA][♠♥♦♣] ?)+")


def played_cards(seed: int) -> tuple[tuple[Card, ...], tuple[Card, ...], str]:
    """One hand of High Card Flush at the terminal: the player's and the dealer's cards
    read back from what ``play`` printed, and the printed text."""
    output = io.StringIO()
    deck = full_deck()
    shuffled = (*deck[seed:], *deck[:seed])
    PlaySession(load_rules("high-card-flush"), Console(file=output, width=120),
                io.StringIO("1\n0\n0\nf\nq\n"), new_deck=lambda: shuffled).run()
    text = output.getvalue()
    player = re.search(r"Your cards: (.*?)   ", text)
    dealer = re.search(r"Dealer: (.*?)   ", text)
    assert player and dealer, text
    assert SYMBOL_CARD.fullmatch(player[1]) and SYMBOL_CARD.fullmatch(dealer[1])
    return parse_cards(player[1]), parse_cards(dealer[1]), text


def advise_json(rules: str, cards: str, *options: str) -> dict[str, object]:
    outcome = run_cli(["advise", rules, cards, "--json", *options])
    assert outcome.exit_code == 0, outcome.stderr
    advice: dict[str, object] = json.loads(outcome.stdout)
    return advice


def payout_json(document: dict[str, object]) -> dict[str, object]:
    outcome = run_cli(["payout"], json.dumps(document, ensure_ascii=False))
    assert outcome.exit_code == 0, outcome.stderr
    settled: dict[str, object] = json.loads(outcome.stdout)
    return settled


@pytest.mark.parametrize("seed", [0, 17, 33])
def test_the_cards_play_prints_go_into_advise_and_payout(seed: int) -> None:
    player, dealer, printed = played_cards(seed)
    deck = full_deck()
    shuffled = (*deck[seed:], *deck[:seed])
    assert set(player) == set(shuffled[:7]) and set(dealer) == set(shuffled[7:14])
    shown_player = cards_text(player).plain  # exactly as play prints them: T♥ 8♥ ...
    assert shown_player in printed
    advice = advise_json("high-card-flush", shown_player)
    assert parse_cards(str(advice["hand"])) == parse_cards(format_cards(player))
    settled = payout_json({"rules": "high-card-flush", "wagers": {"ante": 1},
                           "player": shown_player, "dealer": cards_text(dealer).plain,
                           "raise": 1})
    assert settled["player_cards"] == format_cards(player)
    assert settled["dealer_cards"] == format_cards(dealer)
    by_options = run_cli(["payout", "--rules", "high-card-flush", "--wagers", "ante=1",
                          "--player", shown_player, "--dealer", cards_text(dealer).plain,
                          "--raise", "1"])
    assert json.loads(by_options.stdout)["total"] == settled["total"]


def test_the_cards_payout_and_advise_print_go_back_in() -> None:
    """Letters out of payout, into advise and payout again; same for every game."""
    first = payout_json({"rules": "nh-holdem-stud", "wagers": {"ante": 2, "bonus3": 2},
                         "player": "A♠ K♠", "community": "Q♠ J♠ T♠", "streets": [2, 2, 2]})
    again = payout_json({"rules": "nh-holdem-stud", "wagers": {"ante": 2, "bonus3": 2},
                         "player": first["player_cards"], "community": first["community_cards"],
                         "streets": [2, 2, 2]})
    assert again == first and first["player_cards"] == "As Ks"
    holdem = advise_json("nh-holdem-stud", str(first["player_cards"]))
    assert holdem["hand"] == "As Ks"
    nine = payout_json({"rules": "nine-card-flush", "wagers": {"all9": 1}, "colour": "red",
                        "community": "A♥ K♥ 2♦", "player": "Q♥ J♥ 3♣ 4♣ 5♠ 6♠",
                        "play": True})
    nine_advice = advise_json("nine-card-flush", str(nine["community_cards"]))
    assert nine_advice["community"] == "Ah Kh 2d"
    flush = advise_json("nh-flush-poker", "T♥ 8♥ 6♥ J♠ A♦ Q♦ J♣")
    assert advise_json("nh-flush-poker", str(flush["hand"]))["options"] == flush["options"]


@pytest.mark.parametrize("written", ["Th 8h 6h Js Ad Qd Jc", "T♥ 8♥ 6♥ J♠ A♦ Q♦ J♣",
                                     "10h,8h,6h,js,AD,qd,JC", "T♡8♡6♡J♤A♢Q♢J♧"])
def test_every_written_form_reads_alike(written: str) -> None:
    assert advise_json("high-card-flush", written)["hand"] == "Th 8h 6h Js Ad Qd Jc"


@pytest.mark.parametrize(("command", "options"), [
    (["advise"], ["CARDS", "--community"]),
    (["payout"], ["--player", "--dealer", "--community"]),
])
def test_help_of_every_command_taking_cards_shows_the_format(
        command: list[str], options: list[str]) -> None:
    text = " ".join(re.sub("[│╭╮╰╯─]", " ", run_cli([*command, "--help"]).stdout).split())
    assert " ".join(CARD_FORMAT.split()) in text or "A♠ T♥" in text
    for option in options:
        start = text.index(option if option != "CARDS" else "cards ")
        assert "Ah Td 2c" in text[start:start + 400] or "same card format" in \
            text[start:start + 200], option
    assert "Cards:" in run_cli(["--help"]).stdout
