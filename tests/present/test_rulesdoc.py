"""docs/rules.md is what feltlab.present.rulesdoc writes from the rule-set files, holds every pay
line of every built-in rule set, describes the deal the engine does, and no Markdown link
in the README or docs/ leaves the repository."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from conftest import run_cli
from feltlab.core.cards import full_deck
from feltlab.core.engine import ChooseColour, Deal, Decide, Fold, HandState, PlaceWager, Reveal
from feltlab.core.rules import load_rules
from feltlab.core.text import pays_text
from feltlab.games.high_card_flush.words import PROCEDURE as FLUSH_PROCEDURE
from feltlab.games.holdem_stud.words import HAND_WORDS
from feltlab.games.holdem_stud.words import PROCEDURE as HOLDEM_PROCEDURE
from feltlab.games.nine_card_flush.words import PROCEDURE as NINE_PROCEDURE
from feltlab.present.rulesdoc import DOCUMENT_PATH, rule_set_section, rules_document
from shipped import own_ids, rule_set_file

ROOT = Path(__file__).resolve().parents[2]
COUNT_TABLES = ("flush_pays", "straight_flush_pays", "bonus9_pays", "player6_pays",
                "first3_pays")
NAMED_TABLES = ("pays", "bonus3_pays")


def test_docs_rules_md_is_the_generated_document() -> None:
    written = (ROOT / DOCUMENT_PATH).read_text("utf-8")
    assert written == rules_document([load_rules(i) for i in own_ids()]), (
        "docs/rules.md is stale: run `feltlab rules --markdown > docs/rules.md`")


def test_the_command_prints_the_document() -> None:
    assert run_cli(["rules", "--markdown"]).stdout == rules_document()
    one = run_cli(["rules", "nh-flush-poker", "--markdown"]).stdout
    assert "`nh-flush-poker`" in one and "`high-card-flush-toledo`" not in one
    assert "Points the posted rules leave open" in one


def _section(document: str, rules_id: str) -> str:
    """The part of the document about one rule set, up to the next heading."""
    start = document.index(f"(`{rules_id}`)\n")
    following = re.search(r"^#{2,3} ", document[start:], re.MULTILINE)
    return document[start:start + following.start()] if following else document[start:]


@pytest.mark.parametrize("rules_id", own_ids())
def test_every_pay_line_and_limit_of_the_file_is_in_the_document(rules_id: str) -> None:
    """Read straight from the TOML file (not through the model) and found in the rule
    set's own section of docs/rules.md."""
    data = tomllib.loads(rule_set_file(f"{rules_id}").read_text("utf-8"))
    section = _section((ROOT / DOCUMENT_PATH).read_text("utf-8"), rules_id)
    lines = 0
    for table in COUNT_TABLES:
        for count, pays in data.get(table, {}).items():
            assert f"| {count} | {pays_text(pays)} |" in section, (table, count)
            lines += 1
    for table in NAMED_TABLES:
        for hand, pays in data.get(table, {}).items():
            assert f"| {HAND_WORDS[hand]} | {pays_text(pays)} |" in section, (table, hand)
            lines += 1
    assert lines > 0
    for limit in data["limits"].values():
        assert re.search(rf"\| {limit['min']:,} \| {limit['max']:,} \| (required|optional) \|",
                         section)
    cap = data.get("max_aggregate_payout")
    assert (f"Maximum aggregate payout per hand: {cap:,}." if cap else
            "No maximum aggregate payout.") in section
    assert f"Seats: {data['seats']}." in section
    assert section.strip() in rule_set_section(load_rules(rules_id))


def test_raise_sizes_and_fold_rules_are_the_files() -> None:
    document = (ROOT / DOCUMENT_PATH).read_text("utf-8")
    nh = _section(document, "nh-flush-poker")
    assert "| 2 cards | fold only (no raise) |" in nh and "| 5 cards | 1x or 2x the Ante |" in nh
    assert "Flush bonus: lost; Straight Flush bonus: still settled" in nh
    assert "must be equal" in nh
    owner = _section(document, "high-card-flush")
    assert "| 6 cards | any whole amount from 1x to 3x the Ante |" in owner
    assert "must be equal" not in owner
    assert "3-card flush 9 high or better" in owner
    stud = _section(document, "nh-holdem-stud")
    assert "| Pair of sixes to tens | push |" in stud and "| No pair | lose |" in stud


def test_the_dealing_procedures_are_what_the_engine_deals() -> None:
    deck = full_deck()
    flush = HandState(load_rules("high-card-flush"), deck)
    for action in (PlaceWager(1, "ante", 1), PlaceWager(2, "ante", 1), Deal()):
        flush.apply(action)
    assert flush.seats[1].cards == list(deck[0:7]) and flush.seats[2].cards == list(deck[7:14])
    assert flush.dealer_cards == list(deck[14:21])
    assert "7 cards face down to each seated player, seat 1 first, then 7 cards to the dealer" \
        in FLUSH_PROCEDURE[1]

    nine = HandState(load_rules("nine-card-flush"), deck)
    for seat in (1, 2):
        nine.apply(ChooseColour(seat, "red"))
        nine.apply(PlaceWager(seat, "all9", 1))
    nine.apply(Deal())
    assert nine.community == list(deck[0:3]) and nine.seats[1].cards == []
    for action in (Fold(1), Decide(2, "play"), Reveal()):
        nine.apply(action)
    assert nine.seats[1].cards == list(deck[3:9]) and nine.seats[2].cards == list(deck[9:15])
    assert "3 community cards face up" in NINE_PROCEDURE[1]
    assert "6 cards to each player, folded or not, seat 1 first" in NINE_PROCEDURE[3]

    stud = HandState(load_rules("nh-holdem-stud"), deck)
    for action in (PlaceWager(1, "ante", 2), PlaceWager(2, "ante", 2), Deal()):
        stud.apply(action)
    assert stud.seats[1].cards == list(deck[0:2]) and stud.seats[2].cards == list(deck[2:4])
    assert stud.community == list(deck[4:7]) and stud.visible_community == []
    assert "2 cards face down to each player, seat 1 first, then 3 community cards" \
        in HOLDEM_PROCEDURE[1]


LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?[^)]*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(\s|$)", re.MULTILINE)
AUTOLINK = re.compile(r"<((?:https?|ftp|file)://[^>]+)>")
ALLOWED_SITES: tuple[str, ...] = ()
"""http(s) addresses a document may link to: none; the repository is self-contained."""


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def link_targets(text: str) -> list[str]:
    """Every link target of a Markdown text: inline, reference and autolinks.

    >>> link_targets("[a](b.md#x) [c][d] <https://e.org>\\n[d]: ../f.md")
    ['b.md#x', '../f.md', 'https://e.org']
    """
    return ([match[1] for match in LINK.finditer(text)]
            + [match[1] for match in REFERENCE.finditer(text)]
            + [match[1] for match in AUTOLINK.finditer(text)])


def link_problem(source: Path, target: str) -> str | None:
    """Why ``target`` (a link in ``source``) leaves the repository, or ``None``."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
        allowed = any(target.startswith(site) for site in ALLOWED_SITES)
        return None if allowed else "an address outside the repository"
    path = target.split("#", 1)[0]
    if not path:
        return None  # an anchor in the same page
    resolved = (ROOT / path.lstrip("/")) if path.startswith("/") else (source.parent / path)
    resolved = resolved.resolve()
    if not resolved.is_relative_to(ROOT):
        return "a path outside the repository"
    if not resolved.exists():
        return "a file that does not exist"
    return None


def test_no_markdown_link_leaves_the_repository() -> None:
    problems = []
    for source in markdown_files():
        for target in link_targets(source.read_text("utf-8")):
            problem = link_problem(source, target)
            if problem:
                problems.append(f"{source.relative_to(ROOT)}: {target} is {problem}")
    assert problems == []
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "(docs/rules.md)" in readme


def test_the_link_check_catches_what_it_should(tmp_path: Path) -> None:
    readme = ROOT / "README.md"
    assert link_problem(readme, "../shared/RULES.md") == "a path outside the repository"
    assert link_problem(readme, "docs/missing.md") == "a file that does not exist"
    assert link_problem(readme, "https://example.com") == "an address outside the repository"
    assert link_problem(readme, "docs/rules.md#common-to-every-game") is None


def test_a_rule_set_file_of_ones_own_is_documented_the_same_way(tmp_path: Path) -> None:
    text = rule_set_file("high-card-flush").read_text("utf-8")
    mine = tmp_path / "mine.toml"
    mine.write_text(text.replace('id = "high-card-flush"', 'id = "my-flush"')
                    .replace("7 = 300", "7 = 250"), "utf-8")
    document = run_cli(["rules", str(mine), "--markdown"]).stdout
    assert "(`my-flush`)" in document and "| 7 | 250 to 1 |" in document
    modified = tmp_path / "modified.toml"
    modified.write_text(text.replace("7 = 300", "7 = 250"), "utf-8")
    assert "(`high-card-flush (modified, fingerprint " in run_cli(
        ["rules", str(modified), "--markdown"]).stdout
    outcome = run_cli(["rules", str(tmp_path / "missing.toml"), "--markdown"])
    assert outcome.exit_code == 2 and outcome.stdout == ""
    assert outcome.stderr.startswith("error: no rule set")
