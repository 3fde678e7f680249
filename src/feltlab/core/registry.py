"""The game families feltlab knows, and the rule sets they ship.

A family is one folder (OpenSpiel's model): everything one game knows, behind the
:class:`~feltlab.core.family.GameFamily` protocol. Installed families are found by entry
point in the group :data:`ENTRY_POINT_GROUP` (feltlab's own three in its
``pyproject.toml``; another installed package adds a game the same way, without
editing feltlab); :func:`register` adds one in process, as the tests do with a toy game.

A rule set names its family by ``game = "..."``; each family ships its built-in rule sets
as ``rulesets/ID.toml`` in its folder and its strategy cards as ``strategies/ID.toml``.

>>> [family.game for family in families()][:3]
['high-card-flush', 'nine-card-flush', 'holdem-stud']
>>> family_of_rule_set("nh-flush-poker").title
'High Card Flush family'
"""

from __future__ import annotations

import threading
from functools import cache
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Final, Protocol

if TYPE_CHECKING:
    from feltlab.core.decisions import DecisionKind
    from feltlab.core.family import GameFamily

ENTRY_POINT_GROUP: Final = "feltlab.games"
"""The entry-point group installed game families register in (name: the family's game)."""

_in_process: dict[str, GameFamily] = {}


class RegistryError(RuntimeError):
    """Two families claim one game or one rule-set id, or an entry point is not a family."""


@cache
def _installed() -> dict[str, GameFamily]:
    """The families installed as entry points, loaded once."""
    from importlib import metadata  # 15 ms to import: only once a family is asked for

    found: dict[str, GameFamily] = {}
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        family: GameFamily = entry.load()
        if getattr(family, "game", None) != entry.name:
            raise RegistryError(f"entry point {entry.name!r} in {ENTRY_POINT_GROUP} is not the "
                                f"family of game {entry.name!r}: {entry.value}")
        found[entry.name] = family
    return found


def register(family: GameFamily) -> None:
    """Add ``family`` in this process (it takes the place of an installed family of the
    same game until :func:`unregister`)."""
    _in_process[family.game] = family
    _forget()


def unregister(game: str) -> None:
    """Take back a family added by :func:`register`."""
    _in_process.pop(game, None)
    _forget()


def _forget() -> None:
    _by_game.cache_clear()
    _rule_sets.cache_clear()
    _kinds.cache_clear()


@cache
def _by_game() -> dict[str, GameFamily]:
    every = {**_installed(), **_in_process}
    return dict(sorted(every.items(), key=lambda item: (item[1].position, item[0])))


def families() -> list[GameFamily]:
    """Every family, in their order for documents and lists."""
    return list(_by_game().values())


@cache
def _kinds() -> dict[str, DecisionKind]:
    found: dict[str, DecisionKind] = {}
    for each in families():
        for kind in each.decisions:
            known = found.setdefault(kind.name, kind)
            if known != kind:
                raise RegistryError(f"two families declare the decision {kind.name!r} "
                                    f"differently: {known} and {kind}")
    return found


def decision_kinds() -> tuple[DecisionKind, ...]:
    """Every installed family's decision kinds (a kind two games share, once)."""
    return tuple(_kinds().values())


def decision_kind(name: str) -> DecisionKind | None:
    """The decision kind called ``name`` in any installed family, or ``None``."""
    return _kinds().get(name)


def decision_logged(log_type: str) -> DecisionKind | None:
    """The decision kind whose action-log ``type`` is ``log_type``, or ``None``."""
    for kind in _kinds().values():
        if kind.log_type == log_type:
            return kind
    return None


def game_names() -> tuple[str, ...]:
    return tuple(_by_game())


def family(game: str) -> GameFamily:
    """The family of ``game`` (a rule set's ``game``)."""
    try:
        return _by_game()[game]
    except KeyError:
        raise RegistryError(f"no game family {game!r}; families are "
                            f"{', '.join(game_names())}") from None


@cache
def _rule_sets() -> dict[str, tuple[GameFamily, Traversable]]:
    """Every built-in rule set's file and family, by id, in id order."""
    found: dict[str, tuple[GameFamily, Traversable]] = {}
    for each in families():
        folder = each.folder / "rulesets"
        if not folder.is_dir():
            continue
        for item in folder.iterdir():
            if not item.name.endswith(".toml"):
                continue
            rules_id = item.name.removesuffix(".toml")
            if rules_id in found:
                raise RegistryError(f"rule set {rules_id!r} is shipped by both "
                                    f"{found[rules_id][0].game} and {each.game}")
            found[rules_id] = (each, item)
    return dict(sorted(found.items()))


def builtin_ids() -> tuple[str, ...]:
    """The ids of every family's built-in rule sets, in id order."""
    return tuple(_rule_sets())


def builtin_file(rules_id: str) -> Traversable:
    """The file of a built-in rule set (``KeyError`` for an unknown id)."""
    return _rule_sets()[rules_id][1]


def builtin_text(rules_id: str) -> str:
    return builtin_file(rules_id).read_text("utf-8")


def family_of_rule_set(rules_id: str) -> GameFamily:
    """The family shipping the built-in rule set ``rules_id``."""
    return _rule_sets()[rules_id][0]


def strategy_file(rules_id: str) -> Traversable | None:
    """The strategy card shipped for a built-in rule set, if its family ships one."""
    if rules_id not in _rule_sets():
        return None
    item = family_of_rule_set(rules_id).folder / "strategies" / f"{rules_id}.toml"
    return item if item.is_file() else None


# Published rule sets ---------------------------------------------------------------------

class PublishedSource(Protocol):
    """Where rule sets published at run time are kept (the table server's database): a
    published rule set is immutable, so its text may be kept once read."""

    def text(self, rules_id: str) -> str | None:
        """The TOML text of the published rule set ``rules_id`` (withdrawn ones included),
        or ``None``."""

    def open_ids(self) -> list[str]:
        """The ids of the published rule sets not withdrawn, in id order."""


_published_source: PublishedSource | None = None
_published_texts: dict[str, str] = {}
_published_lock = threading.Lock()


def set_published_source(source: PublishedSource | None) -> None:
    """Use ``source`` for published rule sets from now on (``None``: there are none)."""
    global _published_source
    with _published_lock:
        _published_source = source
        _published_texts.clear()


def published_source() -> PublishedSource | None:
    """The source :func:`set_published_source` installed last, if any."""
    return _published_source


def published_text(rules_id: str) -> str | None:
    """The TOML text of a published rule set (withdrawn or not), or ``None``: never a
    built-in's."""
    if rules_id in _rule_sets():
        return None
    with _published_lock:
        kept = _published_texts.get(rules_id)
        source = _published_source
    if kept is not None or source is None:
        return kept
    text = source.text(rules_id)
    if text is not None:
        with _published_lock:
            _published_texts[rules_id] = text
    return text


def open_published_ids() -> tuple[str, ...]:
    """The ids of published rule sets new tables may use."""
    source = _published_source
    return () if source is None else tuple(source.open_ids())
