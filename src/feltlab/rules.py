"""Rule sets as data: the TOML files in ``feltlab/rulesets`` and any file a user passes.

Every number a game uses (pay tables, limits, raise caps, the qualifier, the aggregate
cap, seats) is a field here, validated on load; the engine, the analysis and the
simulator read these models and hold no rule of their own.

>>> rules = load_rules("nh-flush-poker")
>>> rules.max_raise_multiple(2), rules.max_raise_multiple(5), rules.max_aggregate_payout
(0, 2, 2000)
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from feltlab.cards import RANKS
from feltlab.evaluators import PokerHand, ThreeCardHand

Push = Literal["push"]


class RulesError(ValueError):
    """A rule set that cannot be found or does not validate; the message names the field."""


class Limit(BaseModel):
    """Inclusive bounds of one wager, in whole units."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min: int = Field(ge=1)
    max: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> Limit:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self


PayTable = dict[int, Annotated[int, Field(ge=0)]]
"""Count -> pays N to 1; the highest line whose count the hand reaches pays."""


def check_pay_table(name: str, table: PayTable, cards: int) -> None:
    """Refuse a count-based pay table with no lines or with a line no hand can reach.

    >>> check_pay_table("flush_pays", {8: 300, 4: 1}, 7)
    Traceback (most recent call last):
    ...
    ValueError: flush_pays: a line for 8 cards, but the hand has only 7
    """
    if not table:
        raise ValueError(f"{name}: the pay table has no lines")
    for count in table:
        if count < 1:
            raise ValueError(f"{name}: a line for {count} cards; counts start at 1")
        if count > cards:
            raise ValueError(f"{name}: a line for {count} cards, but the hand has only {cards}")


def pays_for(table: PayTable, count: int) -> int | None:
    """What a count-based pay table pays for ``count`` (``None``: the wager loses).

    >>> pays_for({4: 1, 5: 10, 6: 50}, 7), pays_for({4: 1}, 3)
    (50, None)
    """
    lines = [line for line in table if line <= count]
    return table[max(lines)] if lines else None


class BaseRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    name: str
    source: str = ""
    notes: str = ""
    seats: int = Field(ge=1)
    limits: dict[str, Limit]
    required_wagers: tuple[str, ...]
    max_aggregate_payout: int | None = Field(default=None, ge=1)

    @cached_property
    def fingerprint(self) -> str:
        """SHA-256 (hex) of the rule set's canonical content: every field, in a fixed
        order, whatever the file's layout, comments or key order. Two rule sets settle
        alike when their fingerprints are equal."""
        return hashlib.sha256(canonical_content(self).encode("utf-8")).hexdigest()

    @property
    def modified(self) -> bool:
        """True when the rule set reuses a built-in id with other content."""
        return self.id in _builtin_ids() and builtin_fingerprint(self.id) != self.fingerprint

    @property
    def label(self) -> str:
        """The id as shown to people: a modified built-in says so with its fingerprint."""
        if self.modified:
            return f"{self.id} (modified, fingerprint {self.fingerprint[:12]})"
        return self.id

    def identity(self) -> dict[str, str | bool]:
        """The fields every JSON output carries to say which rule set produced it."""
        return {"rules": self.id, "fingerprint": self.fingerprint, "modified": self.modified}

    @property
    def wager_names(self) -> tuple[str, ...]:
        return tuple(self.limits)

    @property
    def optional_wagers(self) -> tuple[str, ...]:
        return tuple(name for name in self.limits if name not in self.required_wagers)

    @model_validator(mode="after")
    def _known_wagers(self) -> BaseRules:
        allowed = set(self._placeable_wagers())
        unknown = sorted(set(self.limits) - allowed)
        if unknown:
            raise ValueError(f"limits: unknown wager {unknown[0]!r}; allowed: {sorted(allowed)}")
        for name in self.required_wagers:
            if name not in self.limits:
                raise ValueError(f"required_wagers: {name!r} has no entry in limits")
        return self

    def _placeable_wagers(self) -> tuple[str, ...]:
        raise NotImplementedError


class Qualifier(BaseModel):
    """The dealer qualifies with a flush of ``min_length`` cards whose high card is at
    least ``min_high_card``, or with any longer flush."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min_length: int = Field(ge=1, le=7)
    min_high_card: str

    @field_validator("min_high_card")
    @classmethod
    def _rank(cls, value: str) -> str:
        text = "T" if value == "10" else value.upper()
        if len(text) != 1 or text not in RANKS:
            raise ValueError(f"{value!r} is not a rank (2-9, T, J, Q, K, A)")
        return text

    @property
    def min_high_rank(self) -> int:
        return RANKS.index(self.min_high_card)

    @property
    def threshold(self) -> int:
        """Smallest flush value that qualifies (see :mod:`feltlab.evaluators`)."""
        return (self.min_length << 13) | (1 << self.min_high_rank)


class FlushRules(BaseRules):
    """High Card Flush and its variants: 7 cards each, fold or raise, two bonus wagers."""

    game: Literal["high-card-flush"]
    hand_size: Literal[7] = 7
    raise_multiples: dict[int, Annotated[int, Field(ge=0, le=10)]]
    raise_in_whole_antes: bool = False
    qualifier: Qualifier
    flush_pays: PayTable
    straight_flush_pays: PayTable
    settled_on_fold: dict[Literal["flush", "straight_flush"], bool]
    equal_bonuses: bool = False

    def _placeable_wagers(self) -> tuple[str, ...]:
        return ("ante", "flush", "straight_flush")

    @model_validator(mode="after")
    def _consistent(self) -> FlushRules:
        missing = [length for length in range(2, 8) if length not in self.raise_multiples]
        if missing:
            raise ValueError(f"raise_multiples: no entry for a {missing[0]}-card flush")
        extra = sorted(set(self.raise_multiples) - set(range(2, 8)))
        if extra:
            raise ValueError(f"raise_multiples: a {extra[0]}-card flush cannot occur in 7 cards "
                             "(entries are for 2 to 7)")
        check_pay_table("flush_pays", self.flush_pays, self.hand_size)
        check_pay_table("straight_flush_pays", self.straight_flush_pays, self.hand_size)
        if self.seats * 7 + 7 > 52:
            raise ValueError(f"seats: {self.seats} seats and the dealer need more than 52 cards")
        for name in ("flush", "straight_flush"):
            if name not in self.settled_on_fold:
                raise ValueError(f"settled_on_fold: missing {name!r}")
        return self

    def max_raise_multiple(self, flush_length: int) -> int:
        """Largest raise, in antes, for a flush of this length (0: the hand may only fold)."""
        return self.raise_multiples.get(flush_length, 0)


class NineCardRules(BaseRules):
    """9 Card Flush: a colour, 3 community cards, fold or Play, then 6 cards each."""

    game: Literal["nine-card-flush"]
    all9_win_at: int = Field(ge=1, le=9)
    all9_push_at: int | None = Field(default=None, ge=1, le=9)
    bonus9_pays: PayTable
    player6_pays: PayTable
    first3_pays: PayTable

    def _placeable_wagers(self) -> tuple[str, ...]:
        return ("all9", "bonus9", "player6", "first3")

    @model_validator(mode="after")
    def _seats_fit(self) -> NineCardRules:
        if 3 + self.seats * 6 > 52:
            raise ValueError(f"seats: {self.seats} seats need more than 52 cards")
        if self.all9_push_at is not None and self.all9_push_at >= self.all9_win_at:
            raise ValueError(f"all9_push_at: {self.all9_push_at} must be below all9_win_at "
                             f"({self.all9_win_at})")
        check_pay_table("bonus9_pays", self.bonus9_pays, 9)
        check_pay_table("player6_pays", self.player6_pays, 6)
        check_pay_table("first3_pays", self.first3_pays, 3)
        return self


class HoldemStudRules(BaseRules):
    """Hold'em Stud: 2 cards, three streets to buy 3 community cards, a 5-card pay table."""

    game: Literal["holdem-stud"]
    # Three community cards, a decision before each is turned: the game's shape, not a knob.
    streets: Literal[3] = 3
    max_street_multiple: int = Field(ge=1, le=10)
    pays: dict[str, Annotated[int, Field(ge=0)] | Push]
    bonus3_pays: dict[str, Annotated[int, Field(ge=0)] | Push]

    def _placeable_wagers(self) -> tuple[str, ...]:
        return ("ante", "bonus3")

    @field_validator("pays")
    @classmethod
    def _poker_classes(cls, value: dict[str, int | str]) -> dict[str, int | str]:
        return _check_classes(value, PokerHand)

    @field_validator("bonus3_pays")
    @classmethod
    def _three_card_classes(cls, value: dict[str, int | str]) -> dict[str, int | str]:
        return _check_classes(value, ThreeCardHand)

    @model_validator(mode="after")
    def _seats_fit(self) -> HoldemStudRules:
        if 3 + self.seats * 2 > 52:
            raise ValueError(f"seats: {self.seats} seats need more than 52 cards")
        return self

    def net_multiple(self, hand: PokerHand) -> int:
        """Net result per unit bet for a final hand: N to 1, 0 for a push, -1 to lose."""
        return _net(self.pays.get(hand.name.lower()))

    def bonus3_net_multiple(self, hand: ThreeCardHand) -> int:
        return _net(self.bonus3_pays.get(hand.name.lower()))


def _net(line: int | str | None) -> int:
    if line is None:
        return -1
    return 0 if line == "push" else int(line)


def _check_classes(value: dict[str, int | str], classes: type[PokerHand] | type[ThreeCardHand],
                   ) -> dict[str, int | str]:
    names = {member.name.lower() for member in classes}
    for key in value:
        if key not in names:
            raise ValueError(f"unknown hand {key!r}; known: {sorted(names)}")
    return value


Rules = FlushRules | NineCardRules | HoldemStudRules


class _RulesFile(BaseModel):
    rules: Annotated[Rules, Field(discriminator="game")]


def builtin_ids() -> list[str]:
    return list(_builtin_ids())


@cache
def _builtin_ids() -> tuple[str, ...]:
    folder = resources.files("feltlab") / "rulesets"
    return tuple(sorted(item.name[:-5] for item in folder.iterdir()
                        if item.name.endswith(".toml")))


FINGERPRINT_VERSION = "feltlab-rules-1"
"""Prefix of the fingerprinted text: changes only if the canonical form itself changes."""


def canonical_content(rules: BaseRules) -> str:
    """The rule set as compact JSON with sorted keys, after a version line: the text
    :attr:`BaseRules.fingerprint` hashes."""
    body = json.dumps(rules.model_dump(mode="json"), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return f"{FINGERPRINT_VERSION}\n{body}"


@cache
def builtin_fingerprint(rules_id: str) -> str:
    return _load_builtin(rules_id).fingerprint


@cache
def _load_builtin(rules_id: str) -> Rules:
    text = (resources.files("feltlab") / "rulesets" / f"{rules_id}.toml").read_text("utf-8")
    return parse_rules(text, f"{rules_id}.toml")


def load_rules(id_or_path: str | Path) -> Rules:
    """A built-in rule set by id, or a rule-set TOML file by path.

    >>> load_rules("no-such-game")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    feltlab.rules.RulesError: no rule set 'no-such-game': not a built-in id (...) and no such file
    """
    text = str(id_or_path)
    if text in _builtin_ids():
        return _load_builtin(text)
    path = Path(text)
    if path.is_file():
        try:
            content = path.read_text("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise RulesError(f"cannot read rule set {path}: {error}") from error
        return parse_rules(content, str(path))
    known = ", ".join(builtin_ids())
    raise RulesError(f"no rule set {text!r}: not a built-in id ({known}) and no such file")


def parse_rules(text: str, origin: str = "<rules>") -> Rules:
    """Validate rule-set TOML text; errors name the file and the field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{origin}: not valid TOML: {error}") from error
    try:
        return _RulesFile.model_validate({"rules": data}).rules
    except ValidationError as error:
        raise RulesError(f"{origin}: {describe_validation_error(error, skip=1)}") from error


def describe_validation_error(error: ValidationError, skip: int = 0) -> str:
    """A pydantic error in one line naming each field (``field limits.ante.max: ...``);
    ``skip`` drops leading parts of each location (a wrapper model's field)."""
    problems = []
    for item in error.errors():
        location = [str(part) for part in item["loc"][skip:]]
        if location and location[0] in {"high-card-flush", "nine-card-flush", "holdem-stud"}:
            location = location[1:]  # the discriminator's tag
        message = item["msg"].removeprefix("Value error, ")
        if location:
            problems.append(f"field {'.'.join(location)}: {message}")
        else:  # a check across fields: its message starts with the field's name
            problems.append(f"field {message}")
    return "; ".join(problems)
