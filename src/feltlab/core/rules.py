"""Rule sets as data: the TOML files each game family ships and any file a user passes.

Every number a game uses (pay tables, limits, raise caps, the qualifier, the aggregate
cap, seats) is a field of a rule-set model, validated on load; the engine, the analysis
and the simulator read these models and hold no rule of their own. :class:`Rules` is
what every rule set has; each game family's folder under :mod:`feltlab.games` defines
its own model on it, and :func:`parse_rules` picks the model by the file's
``game = "..."`` through the registry (:mod:`feltlab.core.registry`).

Validation is strict: nothing is coerced (``"300"`` is not 300, ``true`` is not 1, a
pay line ``04`` is not line 4), every pay table has lines and never pays less for a
better hand, the main wager is required and has limits, and every number is bounded
(:data:`MAX_PAY`, :data:`MAX_WAGER`, :data:`MAX_MULTIPLE`, :data:`MAX_CAP`) so that no
exact count, simulator accumulator or ledger balance can overflow 64 bits
(``tests/core/test_bounds.py`` proves it). A refusal names the file, the field and the reason.

>>> rules = load_rules("nh-flush-poker")
>>> rules.game, rules.main_wager, rules.max_aggregate_payout
('high-card-flush', 'ante', 2000)
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import tomllib
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Self, TypeVar

from feltlab.core import registry
from feltlab.core.exposure import Payout, top_pay
from feltlab.core.strict import (
    Before,
    Constrained,
    StrictData,
    construct,
    json_text,
    validate,
)

if TYPE_CHECKING:
    from pydantic import BaseModel, ValidationError

MAX_PAY: Final = 100_000
"""Largest pay-table line, N to 1."""
MAX_WAGER: Final = 1_000_000
"""Largest wager limit, in units."""
MAX_MULTIPLE: Final = 10
"""Largest raise or street bet, in antes."""
MAX_CAP: Final = 10**12
"""Largest aggregate payout cap, in units."""
MAX_HAND_NET: Final = (2 + 3 * MAX_MULTIPLE) * MAX_WAGER * MAX_PAY
"""The most one seat can win or lose on one hand under any valid rule set: no game has
more than 2 + 3 x MAX_MULTIPLE wagers' worth of stakes in play (Hold'em Stud: the Ante,
three street bets of up to MAX_MULTIPLE antes and the bonus), each paid at most MAX_PAY
to 1 (3.2e12 units; ``tests/core/test_bounds.py`` shows every 64-bit sum built on it fits)."""
MAX_RULES_BYTES: Final = 256 * 1024
"""Largest rule-set file read."""
MAX_PATH_LENGTH: Final = 4096
RULES_ID_PATTERN: Final = r"^[a-z0-9][a-z0-9-]*$"
"""What a rule set's id looks like (``high-card-flush``), at most 64 characters."""
"""Longest rule-set id or path accepted."""

_CANONICAL_COUNT = re.compile(r"0|[1-9][0-9]{0,2}")
Pays = Annotated[int, Constrained(ge=0, le=MAX_PAY)]


class RulesError(ValueError):
    """A rule set that cannot be found or does not validate; the message names the field."""


class Limit(StrictData):
    """Inclusive bounds of one wager, in whole units."""

    min: Annotated[int, Constrained(ge=1, le=MAX_WAGER)]
    max: Annotated[int, Constrained(ge=1, le=MAX_WAGER)]

    def __post_init__(self) -> None:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")


def integer_keys(value: object) -> object:
    """A TOML table's keys read as counts: only plain whole numbers (``4``, not ``04``,
    ``+4`` or ``four``); anything else is refused, so two spellings of one line cannot
    collapse into one.

    >>> integer_keys({"7": 300, "4": 1})
    {7: 300, 4: 1}
    >>> integer_keys({"04": 1})
    Traceback (most recent call last):
    ...
    ValueError: line '04' is not a plain whole number such as 4
    """
    if not isinstance(value, Mapping):
        return value
    counts: dict[object, object] = {}
    for key, pays in value.items():
        if isinstance(key, str) and _CANONICAL_COUNT.fullmatch(key):
            counts[int(key)] = pays
        elif isinstance(key, int) and not isinstance(key, bool):
            counts[key] = pays
        else:
            raise ValueError(f"line {key!r} is not a plain whole number such as 4")
    return counts


PayTable = Annotated[dict[int, Pays], Before(integer_keys)]
"""Count -> pays N to 1; the highest line whose count the hand reaches pays."""


def check_rising(name: str, pays_by_rank: list[tuple[str, int]]) -> None:
    """Refuse a pay table that pays less for a better hand (``pays_by_rank`` from the
    worst hand to the best, -1 for a hand that loses, 0 for a push).

    >>> check_rising("flush_pays", [("4", 1), ("5", 10), ("6", 5)])
    Traceback (most recent call last):
    ...
    ValueError: flush_pays: 6 pays 5, less than 5 (10): a better hand may not pay less
    """
    for (worse, low), (better, high) in itertools.pairwise(pays_by_rank):
        if high < low:
            shown = {-1: "loses", 0: "pushes"}.get(high, f"pays {high}")
            was = {-1: "loses", 0: "push"}.get(low, str(low))
            raise ValueError(f"{name}: {better} {shown}, less than {worse} ({was}): a better "
                             "hand may not pay less")


def check_pay_table(name: str, table: PayTable, cards: int, offered: bool = True) -> None:
    """Refuse a count-based pay table with a line no hand can reach, with a better hand
    paid less, or with no lines when its wager is ``offered``.

    >>> check_pay_table("flush_pays", {8: 300, 4: 1}, 7)
    Traceback (most recent call last):
    ...
    ValueError: flush_pays: a line for 8 cards, but the hand has only 7
    """
    if offered and not table:
        raise ValueError(f"{name}: the pay table has no lines")
    for count in table:
        if count < 1:
            raise ValueError(f"{name}: a line for {count} cards; counts start at 1")
        if count > cards:
            raise ValueError(f"{name}: a line for {count} cards, but the hand has only {cards}")
    check_rising(name, [(str(count), table[count]) for count in sorted(table)])


def pays_for(table: PayTable, count: int) -> int | None:
    """What a count-based pay table pays for ``count`` (``None``: the wager loses).

    >>> pays_for({4: 1, 5: 10, 6: 50}, 7), pays_for({4: 1}, 3)
    (50, None)
    """
    lines = [line for line in table if line <= count]
    return table[max(lines)] if lines else None


class Rules(StrictData):
    """What every rule set has, whatever its game: an id, seats, the wagers' limits, the
    required wagers and the aggregate payout cap. A game family's model adds its own
    fields, names the wagers a player may place (:meth:`placeable_wagers`, the main one
    first) and may check a combination of stakes (:meth:`check_stakes`)."""

    id: Annotated[str, Constrained(pattern=RULES_ID_PATTERN, max_length=64)]
    name: Annotated[str, Constrained(min_length=1, max_length=100)]
    game: str
    source: Annotated[str, Constrained(max_length=2000)] = ""
    notes: Annotated[str, Constrained(max_length=2000)] = ""
    seats: Annotated[int, Constrained(ge=1)]
    limits: dict[str, Limit]
    required_wagers: tuple[str, ...]
    max_aggregate_payout: Annotated[int, Constrained(ge=1, le=MAX_CAP)] | None = None

    @cached_property
    def fingerprint(self) -> str:
        """SHA-256 (hex) of the rule set's canonical content: every field, in a fixed
        order, whatever the file's layout, comments or key order. Two rule sets settle
        alike when their fingerprints are equal."""
        return hashlib.sha256(canonical_content(self).encode("utf-8")).hexdigest()

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A copy (with ``update``'s fields changed) whose fingerprint is its own: the
        cached fingerprint of the original is not carried over.

        >>> rules = load_rules("nh-flush-poker")
        >>> capped = rules.model_copy(update={"max_aggregate_payout": 20})
        >>> capped.fingerprint == rules.fingerprint, capped.modified
        (False, True)
        """
        copy = super().model_copy(update=update)
        copy.__dict__.pop("fingerprint", None)
        return copy

    @property
    def modified(self) -> bool:
        """True when the rule set reuses a built-in id with other content."""
        return (self.id in registry.builtin_ids()
                and builtin_fingerprint(self.id) != self.fingerprint)

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

    def __post_init__(self) -> None:
        """The checks across fields every rule set passes (a family's model adds its own,
        after these)."""
        allowed = set(self.placeable_wagers())
        unknown = sorted(set(self.limits) - allowed)
        if unknown:
            raise ValueError(f"limits: unknown wager {unknown[0]!r}; allowed: {sorted(allowed)}")
        main = self.main_wager
        if main not in self.required_wagers:
            raise ValueError(f"required_wagers: must include the main wager {main!r}")
        for name in self.required_wagers:
            if name not in self.limits:
                raise ValueError(f"required_wagers: {name!r} has no entry in limits")
        if len(set(self.required_wagers)) != len(self.required_wagers):
            raise ValueError("required_wagers: a wager is listed twice")

    def placeable_wagers(self) -> tuple[str, ...]:
        """The wagers a player may place before the deal, the main wager first."""
        raise NotImplementedError(f"{type(self).__name__} names no wagers")

    @property
    def main_wager(self) -> str:
        """The wager every hand needs: the first of :meth:`placeable_wagers`."""
        return self.placeable_wagers()[0]

    def check_stakes(self, stakes: Mapping[str, int]) -> str | None:
        """What is wrong with this combination of stakes (each already within its
        limits), or ``None``: a game whose wagers depend on each other says so here."""
        return None

    def matched_stakes(self, stakes: Mapping[str, int]) -> dict[str, int]:
        """``stakes`` made into a combination :meth:`check_stakes` accepts (for drawing
        random wagers, as the dealer trainer does)."""
        return dict(stakes)

    def pay_table_fields(self) -> dict[str, str]:
        """The field holding the pay table of each wager that has one."""
        return {}

    def payouts(self) -> tuple[Payout, ...]:
        """Every way a round can pay a seat, at the maximum wagers (see
        :mod:`feltlab.core.exposure`): each wager offered, at its limit, paid at its pay
        table's top line (even money for a wager without one), the main wager first and
        the decisions' stakes (:meth:`decision_payouts`) after it. A game paying a wager
        otherwise says so here."""
        tables = self.pay_table_fields()
        placed = {name: Payout(name, limit.max, top_pay(getattr(self, tables[name]).values())
                               if name in tables else 1)
                  for name, limit in self.limits.items()}
        main = placed.pop(self.main_wager)
        return (main, *self.decision_payouts(), *placed.values())

    def decision_payouts(self) -> tuple[Payout, ...]:
        """The stakes a decision adds (raises, street bets, a Play), each at its most
        and paid at its most."""
        return ()

    def ranked_pay_lines(self, wager: str) -> list[int | str]:
        """The lines ``wager``'s pay table may have, from the worst hand to the best (by
        default its lines by count; a table of named hands lists every hand)."""
        table: Mapping[int | str, object] = getattr(self, self.pay_table_fields()[wager])
        return sorted(table, key=int)


FINGERPRINT_VERSION = "feltlab-rules-1"
"""Prefix of the fingerprinted text: changes only if the canonical form itself changes."""


def canonical_content(rules: Rules) -> str:
    """The rule set as compact JSON with sorted keys, after a version line: the text
    :attr:`Rules.fingerprint` hashes."""
    body = json.dumps(rules.model_dump(mode="json"), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return f"{FINGERPRINT_VERSION}\n{body}"


def builtin_ids() -> list[str]:
    """The ids of every installed family's built-in rule sets, in order."""
    return list(registry.builtin_ids())


def builtin_fingerprint(rules_id: str) -> str:
    return load_builtin(rules_id).fingerprint


_BUILTINS: dict[str, tuple[object, Rules]] = {}


def load_builtin(rules_id: str) -> Rules:
    """A built-in rule set by id (read and validated once for the family shipping it)."""
    shipper = registry.family_of_rule_set(rules_id)
    kept = _BUILTINS.get(rules_id)
    if kept is None or kept[0] is not shipper:
        text = registry.builtin_text(rules_id)
        kept = _BUILTINS[rules_id] = (shipper, parse_rules(text, f"{rules_id}.toml",
                                                            checked=True))
    return kept[1]


_PUBLISHED: dict[str, tuple[str, Rules]] = {}
_PUBLISHED_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def load_published(rules_id: str) -> Rules | None:
    """A rule set published at run time, by id (its text from
    :func:`feltlab.core.registry.published_text`, validated once), or ``None``."""
    if not _PUBLISHED_ID.fullmatch(rules_id):
        return None
    text = registry.published_text(rules_id)
    if text is None:
        return None
    kept = _PUBLISHED.get(rules_id)
    if kept is None or kept[0] != text:
        rules = parse_rules(text, f"{rules_id} (published)")
        if rules.id != rules_id:
            raise RulesError(f"the rule set published as {rules_id!r} has the id {rules.id!r}")
        kept = _PUBLISHED[rules_id] = (text, rules)
    return kept[1]


def is_known(rules_id: str) -> bool:
    """Whether ``rules_id`` names a built-in or a published rule set (withdrawn or not)."""
    return rules_id in registry.builtin_ids() or load_published(rules_id) is not None


def open_ids() -> list[str]:
    """The rule sets a new table may use: every built-in, then the published ones not
    withdrawn."""
    return [*registry.builtin_ids(), *registry.open_published_ids()]


def load_rules(id_or_path: str | Path) -> Rules:
    """A built-in rule set by id, or a rule-set TOML file by path.

    >>> load_rules("no-such-game")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    feltlab.core.rules.RulesError: no rule set 'no-such-game': not a built-in id (...)...
    """
    text = str(id_or_path)
    if text in registry.builtin_ids():
        return load_builtin(text)
    published = load_published(text)
    if published is not None:
        return published
    if len(text) > MAX_PATH_LENGTH or "\0" in text:
        raise RulesError(f"no rule set {text[:60]!r}...: a rule-set id or path is at most "
                         f"{MAX_PATH_LENGTH} characters")
    path = Path(text)
    try:
        if path.is_file():
            return parse_rules(read_limited(path, MAX_RULES_BYTES, "rule set"), str(path))
    except OSError as error:
        raise RulesError(f"cannot read rule set {text[:200]!r}: {error.strerror or error}"
                         ) from error
    known = ", ".join(builtin_ids())
    shown = text if len(text) <= 200 else text[:200] + "..."
    raise RulesError(f"no rule set {shown!r}: not a built-in id ({known}) and no such file")


def read_limited(path: Path, limit: int, what: str) -> str:
    """A UTF-8 text file of at most ``limit`` bytes; otherwise a ``RulesError`` naming it."""
    try:
        with path.open("rb") as stream:
            data = stream.read(limit + 1)
    except OSError as error:
        raise RulesError(f"cannot read {what} {path}: {error.strerror or error}") from error
    if len(data) > limit:
        raise RulesError(f"{path}: a {what} file is at most {limit:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RulesError(f"cannot read {what} {path}: not UTF-8 text ({error.reason} at byte "
                         f"{error.start})") from error


def parse_toml(text: str, origin: str) -> dict[str, Any]:
    """TOML text as a dict; anything tomllib cannot read (bad syntax, nesting too deep,
    an integer too long to convert) is one ``ValueError`` naming ``origin``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"{origin}: not valid TOML: {error}") from error
    except RecursionError:
        raise RulesError(f"{origin}: not valid TOML: nested too deeply") from None
    except ValueError as error:  # e.g. an integer of more than 4,300 digits
        raise RulesError(f"{origin}: not valid TOML: {error}") from error


M = TypeVar("M", bound="BaseModel")


def validate_strict(model: type[M], data: object) -> M:
    """``model`` from decoded TOML or JSON data with no coercion: a text is not a number,
    a boolean is not an amount (lists may stand for tuples, text keys for numbers).
    Raises pydantic's ``ValidationError``; a value TOML has but JSON has not (a date) is
    refused as a ``ValueError`` naming its field."""
    return model.model_validate_json(json_text(data), strict=True)


def parse_rules(text: str, origin: str = "<rules>", *, checked: bool = False) -> Rules:
    """Validate rule-set TOML text with the model of its game's family; errors name the
    file and the field. ``checked``: a text the test suite has validated strictly (a
    rule set a family ships), read with the model's own checks but not pydantic's, which
    a quick command would otherwise spend most of its time importing."""
    if len(text) > MAX_RULES_BYTES:
        raise RulesError(f"{origin}: a rule set is at most {MAX_RULES_BYTES:,} bytes")
    data = parse_toml(text, origin)
    game = data.get("game")
    games = ", ".join(registry.game_names())
    if game is None:
        raise RulesError(f"{origin}: field game: missing; a rule set names its game, one of "
                         f"{games}")
    if not isinstance(game, str) or game not in registry.game_names():
        raise RulesError(f"{origin}: field game: unknown game {game!r}; games are {games}")
    model = registry.family(game).rules_model
    if checked:
        try:
            return construct(model, data)
        except (TypeError, ValueError, KeyError, AttributeError) as error:
            raise RulesError(f"{origin}: {error}") from error
    from pydantic import ValidationError

    try:
        return validate(model, data)
    except ValidationError as error:
        raise RulesError(f"{origin}: {describe_validation_error(error)}") from error
    except ValueError as error:  # a value JSON has not, such as a date
        raise RulesError(f"{origin}: {error}") from error


_DATACLASS_WORDS: Final = {"unexpected_keyword_argument": "Extra inputs are not permitted",
                           "missing_keyword_only_argument": "Field required"}
"""What pydantic says of a strict model's unknown or missing field, in the words it uses
for every model."""
_INNER_KEY = re.compile(r"([a-z0-9_]+): (.*)", re.DOTALL)
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _field_part(part: str | int) -> str:
    """A field name as written, or quoted when it is not a plain key (``'\\r'``, ``''``)."""
    text = str(part)
    return text if _PLAIN_KEY.fullmatch(text) else repr(text)


def describe_validation_error(error: ValidationError, skip: int = 0) -> str:
    """A pydantic error in one line naming each field (``field limits.ante.max: ...``);
    ``skip`` drops leading parts of each location (a wrapper model's field)."""
    problems = []
    for item in error.errors():
        location = [_field_part(part) for part in item["loc"][skip:]]
        message = _DATACLASS_WORDS.get(item["type"], item["msg"]).removeprefix("Value error, ")
        inner = _INNER_KEY.match(message)
        if location and inner:  # a validator's "key: reason" about an entry of the field
            location.append(inner[1])
            message = inner[2]
        if location:
            problems.append(f"field {'.'.join(location)}: {message}")
        else:  # a check across fields: its message starts with the field's name
            problems.append(f"field {message}")
    return "; ".join(problems)
