"""Fuzz tests: every input either settles exactly as an independent settler says, or is
refused with one ``error:`` line and exit status 2; never a traceback, never the
internal-error status.

The default run keeps each test to ``FELTLAB_FUZZ_EXAMPLES`` examples (100); a longer run
is ``FELTLAB_FUZZ_EXAMPLES=20000 pytest tests/core/test_fuzz.py`` (see README, "Tests").
"""

from __future__ import annotations

import json
import math
import os
import random
import tomllib
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference_settler
from conftest import CliOutcome, run_cli
from feltlab.cli import INTERNAL_ERROR
from feltlab.core.cards import Card, format_cards
from feltlab.core.engine import Deal, HandState, PlaceWager
from feltlab.core.rules import Rules, load_rules
from feltlab.games.high_card_flush.rules import FlushRules
from feltlab.games.holdem_stud.rules import HoldemStudRules
from feltlab.games.nine_card_flush.rules import NineCardRules
from shipped import rule_set_file

EXAMPLES = int(os.environ.get("FELTLAB_FUZZ_EXAMPLES", "100"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=EXAMPLES <= 100,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
BUILTIN = ["high-card-flush", "high-card-flush-toledo", "nh-flush-poker", "nh-holdem-stud",
           "nine-card-flush"]

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10**20,
                                                               max_value=10**20),
                         st.floats(allow_nan=False), st.text(max_size=12))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=8)


def refused_or_settled(outcome: CliOutcome) -> bool:
    """True if settled; asserts the refusal rules otherwise."""
    assert outcome.exit_code != INTERNAL_ERROR, outcome.stderr
    assert "Traceback" not in outcome.stderr
    if outcome.exit_code == 0:
        return True
    assert outcome.exit_code == 2, (outcome.exit_code, outcome.stderr)
    assert outcome.stdout == ""
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), outcome.stderr
    return False


# --- a valid round, dealt and decided through the engine's own legal options -----------

def valid_request(rules: Rules, rules_name: str, rng: random.Random) -> dict[str, Any]:
    """A payout request for a hand dealt from a shuffled deck, with legal wagers and a
    decision chosen among the legal ones."""
    deck = [Card(index) for index in rng.sample(range(52), 52)]
    wagers = {name: rng.randint(limit.min, min(limit.max, limit.min + 50))
              for name, limit in rules.limits.items()
              if name in rules.required_wagers or rng.random() < 0.5}
    if isinstance(rules, FlushRules) and rules.equal_bonuses and {"flush", "straight_flush"
                                                                   } <= set(wagers):
        wagers["straight_flush"] = wagers["flush"]
    request: dict[str, Any] = {"rules": rules_name, "wagers": wagers}
    if isinstance(rules, FlushRules):
        hand = HandState(rules, deck)
        for name, amount in wagers.items():
            hand.apply(PlaceWager(1, name, amount))
        hand.apply(Deal())
        request.update(player=format_cards(deck[:7]), dealer=format_cards(deck[7:14]))
        request["raise"] = rng.choice([0, *hand.legal_raises(1)])
    elif isinstance(rules, NineCardRules):
        request.update(colour=rng.choice(["red", "black"]), community=format_cards(deck[:3]),
                       player=format_cards(deck[3:9]), play=rng.random() < 0.7)
    else:
        assert isinstance(rules, HoldemStudRules)
        streets = [wagers["ante"] * rng.randint(1, rules.max_street_multiple)
                   for _ in range(rng.choice([0, 1, 2, 3, 3, 3]))]
        request.update(player=format_cards(deck[:2]), community=format_cards(deck[2:5]),
                       streets=streets)
    return request


def check_against_reference(rules: Rules, request: dict[str, Any],
                            outcome: CliOutcome) -> None:
    printed = outcome.json()
    expected = reference_settler.settle(rules, request)
    assert printed["results"] == expected["results"], (request, printed)
    assert printed["total"] == expected["total"]
    assert printed["fingerprint"] == rules.fingerprint


def mutate(request: dict[str, Any], rng: random.Random, hostile: Any) -> dict[str, Any]:
    """The request with one hostile change: a field replaced, removed or added, a wager
    amount replaced, or a card repeated."""
    changed = json.loads(json.dumps(request))
    kind = rng.randrange(5)
    field = rng.choice(sorted(changed))
    if kind == 0:
        changed[field] = hostile
    elif kind == 1:
        del changed[field]
    elif kind == 2:
        changed[rng.choice(["extra", "Rules", "wagers ", "raise", "play", "streets"])] = hostile
    elif kind == 3 and changed["wagers"]:
        changed["wagers"][rng.choice(sorted(changed["wagers"]))] = hostile
    elif "player" in changed:
        cards = changed["player"].split()
        changed["player"] = " ".join([*cards[:-1], cards[0]])
    return changed


@FUZZ
@given(rules_id=st.sampled_from(BUILTIN), seed=st.integers(0, 2**32), hostile=json_values,
       mutated=st.booleans())
def test_payout_requests(rules_id: str, seed: int, hostile: Any, mutated: bool) -> None:
    rules = load_rules(rules_id)
    rng = random.Random(seed)
    request = valid_request(rules, rules_id, rng)
    if mutated:
        request = mutate(request, rng, hostile)
    outcome = run_cli(["payout"], json.dumps(request))
    if refused_or_settled(outcome):
        check_against_reference(rules, request, outcome)
    else:
        assert mutated, outcome.stderr


@FUZZ
@given(text=st.one_of(st.text(max_size=200), st.binary(max_size=200).map(
    lambda raw: raw.decode("latin-1")), json_values.map(json.dumps)))
def test_payout_raw_text(text: str) -> None:
    refused_or_settled(run_cli(["payout"], text))


# --- rule files -------------------------------------------------------------------------

def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ("nan" if math.isnan(value) else
                                                        "inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value if item is not None) + "]"
    assert isinstance(value, dict)
    return "{ " + ", ".join(f"{json.dumps(str(key))} = {toml_value(item)}"
                            for key, item in value.items() if item is not None) + " }"


def toml_document(data: dict[str, Any]) -> str:
    return "\n".join(f"{json.dumps(key)} = {toml_value(value)}"
                     for key, value in data.items() if value is not None) + "\n"


def mutate_rules(data: dict[str, Any], rng: random.Random, hostile: Any) -> dict[str, Any]:
    changed = json.loads(json.dumps(data))
    target = changed
    key = rng.choice(sorted(changed))
    while isinstance(target[key], dict) and target[key] and rng.random() < 0.6:
        target = target[key]
        key = rng.choice(sorted(target))
    action = rng.randrange(4)
    if action == 0:
        target[key] = hostile
    elif action == 1:
        del target[key]
    elif action == 2 and isinstance(target[key], int) and not isinstance(target[key], bool):
        target[key] = rng.choice([-1, 0, 1, 2, 10**6, 10**5 + 1, 10**12 + 1, 2**63])
    else:
        target[rng.choice(["04", "extra", "7", "royal_flush", "ante"])] = hostile
    return changed


@FUZZ
@given(rules_id=st.sampled_from(BUILTIN), seed=st.integers(0, 2**32), hostile=json_values)
def test_rule_files(tmp_path: Path, rules_id: str, seed: int, hostile: Any) -> None:
    rng = random.Random(seed)
    data = tomllib.loads(rule_set_file(f"{rules_id}").read_text("utf-8"))
    path = tmp_path / f"fuzz-{seed}.toml"
    path.write_text(toml_document(mutate_rules(data, rng, hostile)), "utf-8")
    if not refused_or_settled(run_cli(["rules", str(path)])):
        return
    rules = load_rules(path)
    request = valid_request(rules, str(path), rng)
    outcome = run_cli(["payout"], json.dumps(request))
    assert refused_or_settled(outcome), outcome.stderr
    check_against_reference(rules, request, outcome)


# --- flags --------------------------------------------------------------------------------

flag_values = st.one_of(st.sampled_from(["0", "-1", "1", "3", "1000", "2.5", "", "x", "ante=1",
                                         "ante=1,ante=2", "9223372036854775808",
                                         "18446744073709551616", "1e9", "Ah Kh", "T♥ 9♥",
                                         "red", "--json", "nh-flush-poker"]),
                        st.text(max_size=10))
COMMANDS: dict[str, list[str]] = {
    "payout": ["--rules", "--wagers", "--player", "--dealer", "--raise", "--colour",
               "--community", "--play", "--fold", "--streets"],
    "rules": [],
    "advise": ["--community", "--colour", "--bets", "--json"],
}


@FUZZ
@given(command=st.sampled_from(sorted(COMMANDS)), data=st.data())
def test_flags(command: str, data: st.DataObject) -> None:
    args = [command]
    if data.draw(st.booleans()):
        args.append(data.draw(st.sampled_from(BUILTIN)))
        if command == "advise":
            args.append(data.draw(st.sampled_from(["Th 8h 6h Js Ad Qd Jc", "Ah Kh",
                                                   "2c 3c 4c", "T♥ 8♥ 6♥ J♠ A♦ Q♦ J♣"])))
    for _ in range(data.draw(st.integers(0, 4))):
        if COMMANDS[command] and data.draw(st.booleans()):
            args.append(data.draw(st.sampled_from(COMMANDS[command])))
        args.append(data.draw(flag_values))
    refused_or_settled(run_cli(args, stdin=""))


def test_the_readme_states_the_limits_the_code_enforces() -> None:
    from feltlab.core import cards, jsonio, rules

    readme = " ".join((Path(__file__).parents[2] / "README.md").read_text("utf-8").split())
    stated = [f"nested at most {jsonio.MAX_DEPTH} deep",
              f"numbers of at most {jsonio.MAX_NUMBER_DIGITS} characters",
              f"{jsonio.MAX_ITEM_BYTES // 2**20} MiB per document or batch item",
              f"rule files of at most {rules.MAX_RULES_BYTES // 1024} KiB",
              f"card text of at most {cards.MAX_CARD_TEXT:,} characters",
              f"pays up to {rules.MAX_PAY:,} to 1", f"wagers up to {rules.MAX_WAGER:,} units",
              f"up to {rules.MAX_MULTIPLE} antes", f"caps up to {rules.MAX_CAP:,} units",
              f"at most {rules.MAX_HAND_NET:,} units (`rules.MAX_HAND_NET`)",
              "FELTLAB_FUZZ_EXAMPLES=", f"exits with status {INTERNAL_ERROR}"]
    assert [phrase for phrase in stated if phrase not in readme] == []
