"""The payout calculator's contract: one JSON object in, one settlement out.

Input fields (see the README): ``rules`` (an id or a rule-set path) and ``wagers``; for
the flush family ``player``, ``dealer`` and ``raise``; for 9 Card Flush ``colour``,
``community``, ``player`` and ``play``; for Hold'em Stud ``player``, ``community`` and
``streets``. Cards are text (``"Ah Kd 10c"``) or a list of card texts.

>>> settle_request({"rules": "nh-holdem-stud", "wagers": {"ante": 5},
...                 "player": "Jh Js", "community": "2c 7d 9s", "streets": [5, 5, 10]})["results"]
{'ante': 5, 'street3': 5, 'street4': 5, 'street5': 10}
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Mapping
from typing import IO, Any

from feltlab.cards import Card, CardError, parse_cards
from feltlab.jsonio import iter_items
from feltlab.rules import FlushRules, HoldemStudRules, NineCardRules, Rules, load_rules
from feltlab.settle import settle_flush, settle_holdem, settle_nine_card

FIELDS = {
    "high-card-flush": {"rules", "wagers", "player", "dealer", "raise"},
    "nine-card-flush": {"rules", "wagers", "colour", "community", "player", "play"},
    "holdem-stud": {"rules", "wagers", "player", "community", "streets"},
}


class RequestError(ValueError):
    """A payout request with a missing, unknown or malformed field."""


def _cards(request: Mapping[str, Any], name: str) -> tuple[Card, ...]:
    if name not in request:
        raise RequestError(f"missing field {name!r}")
    value = request[name]
    if not isinstance(value, str | list):
        raise RequestError(f"field {name!r} must be card text or a list of cards")
    try:
        return parse_cards(value)
    except CardError as error:
        raise CardError(f"{name}: {error}") from error


def settle_request(request: object,
                   loader: Callable[[str], Rules] = load_rules) -> dict[str, Any]:
    """Settle one request object; raises a ``ValueError`` subclass naming what is wrong.
    ``loader`` reads the rule set the request names (a batch passes one that reads each
    file once)."""
    if not isinstance(request, dict):
        raise RequestError(f"each request must be a JSON object, got {type(request).__name__}")
    if "rules" not in request:
        raise RequestError("missing field 'rules' (a rule-set id or path)")
    if not isinstance(request["rules"], str):
        raise RequestError("field 'rules' must be a rule-set id or path")
    rules = loader(request["rules"])
    unknown = sorted(set(request) - FIELDS[rules.game])
    if unknown:
        raise RequestError(f"unknown field {unknown[0]!r} for {rules.id}; "
                           f"fields are {', '.join(sorted(FIELDS[rules.game]))}")
    wagers = request.get("wagers")
    if not isinstance(wagers, dict):
        raise RequestError("field 'wagers' must be an object of wager amounts")
    if isinstance(rules, FlushRules):
        amount = request.get("raise")
        settlement = settle_flush(rules, wagers, _cards(request, "player"),
                                  _cards(request, "dealer"), 0 if amount is None else amount)
    elif isinstance(rules, NineCardRules):
        if "play" not in request:
            raise RequestError("missing field 'play' (true to play, false to fold)")
        settlement = settle_nine_card(rules, wagers, request.get("colour"),
                                      _cards(request, "community"), _cards(request, "player"),
                                      request["play"])
    else:
        assert isinstance(rules, HoldemStudRules)
        streets = request.get("streets", [])
        if not isinstance(streets, list):
            raise RequestError("field 'streets' must be a list of street bet amounts")
        settlement = settle_holdem(rules, wagers, _cards(request, "player"),
                                   _cards(request, "community"), streets)
    return {**rules.identity(), **settlement.as_json()}


def settle_document(document: object) -> dict[str, Any] | list[dict[str, Any]]:
    """Settle one request or a list of them; an error names the item that broke."""
    if isinstance(document, list):
        loader = _loader_reading_once()
        results = []
        for position, request in enumerate(document):
            try:
                results.append(settle_request(request, loader))
            except ValueError as error:
                raise RequestError(f"item {position}: {error}") from error
        return results
    return settle_request(document)


def _loader_reading_once() -> Callable[[str], Rules]:
    loaded: dict[str, Rules] = {}

    def load(name: str) -> Rules:
        if name not in loaded:
            loaded[name] = load_rules(name)
        return loaded[name]
    return load


def settle_stream(source: IO[str], out: IO[str]) -> None:
    """Settle the JSON on ``source`` (one request, or an array read item by item) and
    write the settlement to ``out`` as ``json.dumps(..., indent=2)`` would.

    Memory stays flat whatever the number of items: results are spooled to a temporary
    file and written to ``out`` only once every item has settled, so a refused item
    leaves ``out`` untouched. Each rule file is read once.
    """
    loader = _loader_reading_once()
    with tempfile.SpooledTemporaryFile(max_size=1 << 23, mode="w+", encoding="utf-8") as spool:
        count, array = 0, True
        for array, request in iter_items(source):
            try:
                text = json.dumps(settle_request(request, loader), indent=2)
            except ValueError as error:
                raise RequestError(f"item {count}: {error}" if array else str(error)
                                   ) from error
            if array:
                text = ("[\n" if count == 0 else ",\n") + "\n".join(
                    "  " + line for line in text.splitlines())
            spool.write(text)
            count += 1
        spool.write("\n]" if array and count else "[]" if array else "")
        spool.seek(0)
        shutil.copyfileobj(spool, out)
    out.write("\n")
