"""One conformance suite for every registered game family: feltlab's three and the toy
installed from ``tests/toy_game`` (its own package, found by entry point like any other),
each rule set through the same checks, written only against the
:class:`~feltlab.core.family.GameFamily` protocol and the generic code above it. Each
family is checked through the optional facets it provides (exact math, kernel,
protection) and through the generic paths (the engine's simulator, Monte Carlo
estimates) too. A new family passes them or says, by failing, which promise it breaks.

Randomness is seeded (``random.Random`` by rule-set id), so every run checks the same
rounds.
"""

from __future__ import annotations

import inspect
import io
import json
import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from feltlab.analysis import (
    advice_inputs,
    advise,
    capped_returns,
    evaluate_strategy,
    load_strategy_file,
)
from feltlab.analysis.sheets import sheet_for
from feltlab.cli.play import PlaySession, deck_source
from feltlab.cli.rulescard import rules_card
from feltlab.core import registry
from feltlab.core.cards import full_deck
from feltlab.core.decisions import DecisionKind
from feltlab.core.engine import (
    Action,
    ActionError,
    ChooseColour,
    Deal,
    Decide,
    Fold,
    HandState,
    Phase,
    PlaceWager,
    Reveal,
    Settle,
    action_from_json,
    action_to_json,
)
from feltlab.core.family import (
    OPTIONAL_FACETS,
    EngineSteps,
    ExactMath,
    MissingFacet,
    ProtectionModel,
    SimulationKernel,
    family_of,
    provides,
)
from feltlab.core.payout import settle_request
from feltlab.core.protection import Case
from feltlab.core.rules import Rules, canonical_content, load_rules, parse_rules
from feltlab.core.words import Words
from feltlab.present.catalogue import rule_card
from feltlab.present.display import hand_view, settlement_rows
from feltlab.present.rulesdoc import rule_set_section, rules_document
from feltlab.present.trainer import advice_json, check_payouts, dealer_round
from feltlab.protect.cases import check_case, default_cases, evaluate_case, house_edge
from feltlab.simulate.runner import load_strategy, prepare, simulate
from feltlab.simulate.session import run_sessions

pytestmark = [pytest.mark.filterwarnings(
    "ignore::numba.core.errors.NumbaExperimentalFeatureWarning")]

TOY = "toy-pull-back"
"""The game of ``tests/toy_game`` (``pip install -e tests/toy_game``)."""
GAMES = registry.game_names()
RULE_SETS = registry.builtin_ids()
ROUNDS = 40
"""Random rounds per rule set and table size."""
SIMULATED = 1 << 18
"""Rounds the simulator deals per rule set."""
ROUND_ARGUMENTS = ["deck", "seats", "p", "table", "table2", "table3", "keys", "values", "state",
                   "nets", "counters"]
"""What the simulator's loops pass a family's compiled round (:mod:`feltlab.simulate.kernel`)."""
API_ACTIONS = ("fold", *(kind.name for kind in registry.decision_kinds()))
"""API v1's decision names (``ActionRequest``)."""
ENGINE_ROUNDS = 2_000
"""Rounds the engine's simulator deals per rule set against the compiled kernel."""


def test_every_family_is_here() -> None:
    assert {"high-card-flush", "nine-card-flush", "holdem-stud", TOY} <= set(GAMES)
    assert registry.family(TOY).provides == frozenset()  # the required facets only


def needs(rules: Rules, facet: str) -> None:
    """Skip a check of an optional facet the rule set's family does not provide."""
    if not provides(rules, facet):
        pytest.skip(f"{family_of(rules).game} has no {OPTIONAL_FACETS[facet]}")


# --- the protocol ----------------------------------------------------------------------------

def _members(protocol: type) -> list[str]:
    return [name for name in vars(protocol) if not name.startswith("_")]


@pytest.mark.parametrize("game", GAMES)
def test_family_has_every_facet(game: str) -> None:
    family = registry.family(game)
    assert family.game == game and family.title
    assert family.provides <= set(OPTIONAL_FACETS)
    optional: dict[str, type] = {"math": ExactMath, "kernel": SimulationKernel,
                                 "protection": ProtectionModel}
    facets: list[tuple[object, type]] = [(family.engine, EngineSteps), (family.words, Words)]
    for name, protocol in optional.items():
        if name in family.provides:
            facets.append((getattr(family, name), protocol))
        else:
            with pytest.raises(MissingFacet, match=f"{game} has no"):
                getattr(family, name)
    for facet, protocol in facets:
        missing = [name for name in _members(protocol) if not hasattr(facet, name)]
        assert not missing, f"{game}'s {protocol.__name__} lacks {missing}"
    assert family.decisions and all(isinstance(kind, DecisionKind) for kind in family.decisions)
    assert len({kind.name for kind in family.decisions}) == len(family.decisions)
    assert "fold" not in {kind.name for kind in family.decisions}
    assert {"rules", "wagers"} <= family.engine.payout_fields
    if "kernel" in family.provides:
        assert family.kernel.WAGERS[-1] == "total"
        play: Any = family.kernel.play  # inlined into the simulator's loops
        assert play.targetoptions.get("inline") == "always"
        assert list(inspect.signature(play.py_func).parameters) == ROUND_ARGUMENTS
    assert family.strategy_keys
    assert (family.folder / "rulesets").is_dir()
    ids = [rules_id for rules_id in RULE_SETS if registry.family_of_rule_set(rules_id) is family]
    assert ids, f"{game} ships no rule set"


# --- rule sets -------------------------------------------------------------------------------

@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_rule_set_loads_with_a_stable_fingerprint(rules_id: str) -> None:
    rules = load_rules(rules_id)
    family = registry.family_of_rule_set(rules_id)
    assert family_of(rules) is family and isinstance(rules, family.rules_model)
    assert rules.game == family.game and rules.main_wager in rules.required_wagers
    assert not rules.modified and rules.label == rules_id
    text = registry.builtin_text(rules_id)
    # The fingerprint hashes the content, not the file: comments and blank lines aside.
    bare = "\n".join(line for line in text.splitlines()
                     if line.strip() and not line.lstrip().startswith("#"))
    for again in (parse_rules(text, "again.toml"), parse_rules(bare, "bare.toml"),
                  load_rules(Path(str(registry.builtin_file(rules_id))))):
        assert again.fingerprint == rules.fingerprint
    assert re.fullmatch("[0-9a-f]{64}", rules.fingerprint)
    assert canonical_content(rules).startswith("feltlab-rules-1\n")
    renamed = type(rules).model_validate({**rules.model_dump(mode="json"),
                                          "name": rules.name + " (renamed)"})
    assert renamed.fingerprint != rules.fingerprint and renamed.modified


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_shipped_rule_set_passes_the_strict_validation(rules_id: str) -> None:
    """A family's built-in rule sets are read without pydantic's checks (they are the
    program's own data): this is where they pass them, every field the same."""
    text = registry.builtin_text(rules_id)
    validated = parse_rules(text, "strict.toml")
    checked = parse_rules(text, "checked.toml", checked=True)
    assert checked == validated and type(checked) is type(validated)
    assert checked.model_dump() == validated.model_dump()
    assert load_rules(rules_id) == validated


# --- rounds through the engine ---------------------------------------------------------------

def _amount(rng: random.Random, low: int, high: int) -> int:
    """A stake at a limit or between them."""
    return rng.choice([low, high, rng.randint(low, high)])


def _place_wagers(state: HandState, rng: random.Random, seat: int, main: bool) -> None:
    """Wagers at and between their limits (with ``main`` false, optional ones only, as a
    seat that will not play); a colour where the game has them."""
    rules = state.rules
    colours = state.steps.colours
    if colours:
        state.apply(ChooseColour(seat, rng.choice(colours)))
    wagers = {name: _amount(rng, limit.min, limit.max) for name, limit in rules.limits.items()
              if (name in rules.required_wagers) == main or (main and rng.random() < 0.5)}
    placed = list(rules.matched_stakes(wagers).items())
    rng.shuffle(placed)
    for name, amount in placed:
        state.apply(PlaceWager(seat, name, amount))


def api_action(seat: int, option: dict[str, Any]) -> Action:
    """The engine's action for an API v1 decision (``{"action": "raise", "amount": 10}``)."""
    kind = option["action"]
    return Fold(seat) if kind == "fold" else Decide(seat, kind, option.get("amount"))


def _check_options(state: HandState, seat: int) -> None:
    """API v1's options are the engine's legal decisions."""
    legal = list(state.legal_amounts(seat))
    assert legal == sorted(legal) and all(amount > 0 for amount in legal)
    options, raise_range = state.steps.options_json(state, seat)
    assert options[0] == {"action": "fold"}
    for option in options[1:]:
        action = api_action(seat, option)
        assert state.can(action), option
        kind = registry.decision_kind(option["action"])
        assert kind is not None and action in state.choices(seat)
        if kind.money == "refund":  # money back with the settlement: nothing staked now
            assert state.stake_of(action) == 0
        else:
            assert state.stake_of(action) in legal
    if raise_range is not None:
        assert (raise_range["min"], raise_range["max"]) == (legal[0], legal[-1])


def play_round(rules: Rules, rng: random.Random, seats: int) -> HandState:
    """A round for ``seats`` seats chosen at random, with random wagers and random legal
    decisions, played to the end."""
    state = HandState(rules, rng.sample(full_deck(), 52))
    chosen = sorted(rng.sample(range(1, rules.seats + 1), seats))
    for seat in chosen:
        _place_wagers(state, rng, seat, main=True)
    spare = sorted(set(range(1, rules.seats + 1)) - set(chosen))
    if spare and rules.optional_wagers:  # a seat with optional wagers only does not play
        _place_wagers(state, rng, spare[0], main=False)
    state.apply(Deal())
    assert state.active_seats == chosen
    while state.phase is not Phase.COMPLETE:
        before = (state.phase, state.to_act, len(state.log))
        with pytest.raises(ActionError):  # a refused action changes nothing
            state.apply(Deal())
        assert (state.phase, state.to_act, len(state.log)) == before
        if state.phase is Phase.DECISIONS:
            seat = state.to_act
            assert seat is not None
            _check_options(state, seat)
            legal = list(state.legal_amounts(seat))
            amount = 0 if not legal or rng.random() < 0.25 else rng.choice(
                [legal[0], legal[-1], rng.choice(legal)])
            action = state.decision_action(seat, amount)
            assert state.stake_of(action) == amount
            if rng.random() < 0.25:  # any open decision, another kind's included
                action = rng.choice(state.choices(seat))
            state.apply(action)
        else:
            state.apply(Reveal() if state.phase is Phase.REVEAL else Settle())
    return state


def _outcome(state: HandState) -> list[Any]:
    return [state.phase, state.dealer_cards, state.community,
            {seat: (hand.cards, hand.decisions, hand.settlement)
             for seat, hand in state.seats.items()}]


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_random_rounds_settle_like_the_payout_calculator(rules_id: str) -> None:
    rules = load_rules(rules_id)
    rng = random.Random(rules_id)
    steps = family_of(rules).engine
    for seats in sorted({1, 2, rules.seats}):
        for _ in range(ROUNDS):
            state = play_round(rules, rng, seats)
            for seat in state.active_seats:
                hand = state.seats[seat]
                assert hand.settlement is not None
                request = json.loads(json.dumps(steps.payout_request(state, seat)))
                answer = settle_request(request)
                assert answer == json.loads(json.dumps(
                    {**rules.identity(), **hand.settlement.as_json()}))
                stakes = steps.request_stakes(request)
                assert all(stakes.get(name, 0) > 0 for name in hand.settlement.results)
                assert sum(stakes.values()) == sum(hand.wagers.values()) + sum(hand.decisions)
            assert _outcome(HandState.replay(rules, state.deck, state.log)) == _outcome(state)
            stored = [json.loads(json.dumps(action_to_json(action))) for action in state.log]
            replayed = HandState.replay(rules, state.deck, map(action_from_json, stored))
            assert _outcome(replayed) == _outcome(state)


# --- exact math, the simulator and the advisor -----------------------------------------------

@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_par_sheet_adds_up_and_agrees_with_protection(rules_id: str) -> None:
    rules = load_rules(rules_id)
    sheet = sheet_for(rules)
    assert (sheet.rules_id, sheet.fingerprint) == (rules.id, rules.fingerprint)
    assert sheet.is_estimate == (not provides(rules, "math"))
    main = sheet.wagers[0]
    assert main.name == rules.main_wager and main.decisions
    for wager in sheet.wagers:
        assert wager.name in rules.limits
        assert sum(line.count for line in wager.lines) == wager.total
        assert sum((wager.probability(line) for line in wager.lines), Fraction(0)) == 1
        assert 0 <= wager.hit_frequency <= 1
    if sheet.is_estimate:  # a Monte Carlo estimate: labelled, with standard errors
        assert sheet.sampled == main.total and "Monte Carlo estimates" in sheet.notes[0]
        assert all(0 < wager.std_error < 1 for wager in sheet.wagers)
        assert sheet.upper95(main) > main.house_edge
        assert json.dumps(sheet.to_json()) and sheet.to_json()["estimate"]["rounds"]
        return
    assert main.house_edge == house_edge(rules) == family_of(rules).protection.house_edge(rules)
    card = sheet.strategy_card
    assert card is not None and card.optimal_house_edge == main.house_edge <= card.house_edge
    json.dumps(sheet.to_json())
    edges = capped_returns(rules, {name: limit.min for name, limit in rules.limits.items()})
    assert set(rules.limits) | {"total"} == set(edges)


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_shipped_strategy_card_is_no_better_than_optimal(rules_id: str) -> None:
    rules = load_rules(rules_id)
    needs(rules, "math")
    shipped = registry.strategy_file(rules_id)
    if shipped is None:
        pytest.skip(f"{rules_id} ships no strategy card")
    path = Path(str(shipped))
    edge = evaluate_strategy(rules, load_strategy_file(rules, path)).house_edge
    assert edge >= sheet_for(rules).wagers[0].house_edge
    family_of(rules).kernel.check_strategy(rules, load_strategy(rules, str(path)))


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_simulator_agrees_with_every_exact_edge(rules_id: str) -> None:
    rules = load_rules(rules_id)
    needs(rules, "kernel")
    setup = prepare(rules, seats=min(2, rules.seats))
    assert rules.main_wager in setup.exact and "total" in setup.exact
    result = simulate(setup, SIMULATED, seed=11)
    checked = [wager for wager in result.wagers if wager.exact is not None]
    assert {wager.name for wager in checked} == set(setup.exact)
    for wager in checked:
        assert wager.z_score is not None and abs(wager.z_score) < 5, wager
    kernel = family_of(rules).kernel
    assert kernel.cards_per_round(3) == family_of(rules).engine.cards_needed(rules, 3)


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_engine_simulator_agrees_with_the_compiled_kernel(rules_id: str) -> None:
    """The generic path (rounds through the engine, the advisor's decisions) and the
    compiled kernel (the optimal strategy's arrays) estimate the same edges: every wager
    within 4 standard errors of the difference. Without a kernel, the engine's run alone,
    in the same shape."""
    rules = load_rules(rules_id)
    seats = min(2, rules.seats)
    engine = simulate(prepare(rules, seats=seats, engine=True), ENGINE_ROUNDS, seed=5)
    assert engine.to_json()["path"] == "engine" and engine.rounds == ENGINE_ROUNDS
    if not provides(rules, "kernel"):
        assert engine.setup.strategy.name == "default"
        return
    compiled = simulate(prepare(rules, seats=seats), SIMULATED, seed=5)
    assert set(engine.to_json()) == set(compiled.to_json())
    assert [wager.name for wager in engine.wagers] == [wager.name for wager in compiled.wagers]
    for ours, theirs in zip(engine.wagers, compiled.wagers, strict=True):
        error = (ours.std_error ** 2 + theirs.std_error ** 2) ** 0.5
        difference = float(ours.house_edge - theirs.house_edge)
        print(f"{rules_id} {ours.name}: engine {float(ours.house_edge):+.4f} ± "
              f"{ours.std_error:.4f}, compiled {float(theirs.house_edge):+.4f} ± "
              f"{theirs.std_error:.4f}: {difference / error:+.2f} s.e.")
        assert abs(difference) < 4 * error, (ours, theirs)


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_sessions_run_through_the_engine(rules_id: str) -> None:
    """Every game's sessions run through the engine (the only way for a game without a
    kernel), and no hand loses more than the game's ``most_at_risk`` says, the figure a
    session's ruin is judged by."""
    setup = prepare(load_rules(rules_id), engine=True)
    result = run_sessions(setup, 3 * setup.most_at_risk, 12, 60, seed=5, workers=1)
    assert result.sessions == 60 and (result.played <= 12).all()
    ruined = result.ruined_at >= 0
    assert (result.final[ruined] < setup.most_at_risk).all()
    hands = np.diff(result.trajectory, axis=1)  # a checkpoint after every hand
    assert hands.min() >= -setup.most_at_risk, (hands.min(), setup.most_at_risk)


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_advisor_best_option_has_the_largest_ev(rules_id: str) -> None:
    rules = load_rules(rules_id)
    if not provides(rules, "math"):
        with pytest.raises(MissingFacet, match="no exact math"):
            advice_inputs(rules, "Ah")
        return
    rng = random.Random(rules_id)
    words = family_of(rules).words
    for _ in range(3):
        hand = words.drill_hand(rules, rng.sample(full_deck(), 52), rng.randrange)
        bets = ",".join(str(bet) for bet in hand["bets"]) or None
        inputs = advice_inputs(rules, hand["player"], hand["community"] or None,
                               hand["colour"], bets)
        advice = advise(rules, inputs.player, inputs.community, inputs.colour, inputs.bets)
        values = {option.option: option.ev for option in advice.options}
        assert values[advice.best] == max(values.values())
        answer = advice_json(advice, 2, None)  # the trainer's buttons and API actions
        assert all(option["action"]["action"] in API_ACTIONS for option in answer["options"])


# --- words -------------------------------------------------------------------------------------

def _round_json(state: HandState, seat: int) -> dict[str, Any]:
    """A complete round as API v1 shows it to ``seat`` (the fields the pages read)."""
    hand = state.seats[seat]
    assert hand.settlement is not None
    return {"wagers": dict(hand.wagers), "decisions": list(hand.decisions),
            "results": dict(hand.settlement.results), "settlement": hand.settlement.as_json(),
            "payout_request": state.steps.payout_request(state, seat)}


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_words_render(rules_id: str) -> None:
    rules = load_rules(rules_id)
    family = family_of(rules)
    words = family.words
    card = rule_card(rules_id)
    json.dumps(card)
    assert card["game"] == family.game and card["lines"] and card["procedure"]
    assert card["decisions"][0] == {"label": "Fold", "action": "fold"}
    assert {decision["action"] for decision in card["decisions"]} <= set(API_ACTIONS)
    dealt = sum(step["count"] * (3 if step["per_seat"] else 1) for step in card["deal"])
    assert dealt == family.engine.cards_needed(rules, 3)  # the layout is what is dealt
    assert set(card["titles"]) >= set(rules.limits)
    section = rule_set_section(rules)
    assert rules.fingerprint in section and rules.name in section
    assert f"## {family.title}" in rules_document([rules])
    Console(file=io.StringIO(), width=100).print(rules_card(rules))
    rng = random.Random(rules_id)
    for _ in range(10):
        state = play_round(rules, rng, 1)
        seat = state.active_seats[0]
        hand = state.seats[seat]
        assert hand.settlement is not None
        cards = {"player": [str(card) for card in hand.cards],
                 "dealer": [str(card) for card in state.dealer_cards],
                 "community": [str(card) for card in state.community]}
        json.dumps(hand_view(rules_id, cards, hand.colour))
        rows = settlement_rows(rules_id, _round_json(state, seat))
        assert [row["wager"] for row in rows] == list(hand.settlement.results)
        for name in hand.settlement.results:
            for brief in (False, True):
                on = words.settled_on(rules, hand.settlement.details, name, hand.folded, brief)
                assert isinstance(on, str)
    trainee = dealer_round(rules_id)  # the dealer trainer's round, paid right
    answers = settle_request(trainee["request"])["results"]
    assert check_payouts(trainee["request"], answers)["right"] == len(answers)


@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_terminal_session(rules_id: str) -> None:
    """A scripted session: default wagers, the rules card, a refused answer, then each
    game's words for playing on tried in turn (an answer another prompt refuses is asked
    again), three times; then quit."""
    rules = load_rules(rules_id)
    prompts = len(rules.limits) + (1 if family_of(rules).engine.colours else 0)
    block = ["" for _ in range(prompts)] + ["?", "nonsense", "r", "play", "b", "f"]
    script = io.StringIO("\n".join(block * 3 + ["q"]) + "\n")
    out = Console(file=io.StringIO(), width=120)
    session = PlaySession(rules, out, script, new_deck=deck_source(5))
    session.run()
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert session.hands_played >= 2
    assert "Not allowed: 'nonsense' is not a choice" in text
    assert rules.name in text and "Session over" in text
    totals = [hand.seats[1].settlement.total for hand in session.hands
              if hand.seats[1].settlement is not None]
    assert len(totals) == session.hands_played
    assert session.bankroll == 1000 + sum(totals)
    assert any(any(hand.seats[1].decisions) for hand in session.hands)  # one played on


# --- protection --------------------------------------------------------------------------------

@pytest.mark.parametrize("rules_id", RULE_SETS)
def test_protection_baseline_is_the_exact_house_edge(rules_id: str) -> None:
    rules = load_rules(rules_id)
    if not provides(rules, "protection"):
        with pytest.raises(MissingFacet, match="no protection model"):
            default_cases(rules)
        return
    model = family_of(rules).protection
    baseline = evaluate_case(rules, Case(), model.default_deals, 0)
    assert baseline.exact and baseline.player_edge == -house_edge(rules)
    leaks = {leak.name: leak.applies for leak in model.leaks(rules)}
    assert set(leaks) == {"colluders", "dealer_seen", "next_seen"}
    assert leaks["dealer_seen"] == (model.max_dealer_seen(rules) > 0)
    assert leaks["next_seen"] == (model.max_next_seen(rules) > 0)
    for case in default_cases(rules):
        check_case(rules, case)
    with pytest.raises(ValueError, match="--dealer-seen"):
        check_case(rules, Case(1, model.max_dealer_seen(rules) + 1))
