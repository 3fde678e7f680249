"""The payout calculator's contract: one JSON object in, one settlement out.

Input fields (see the README): ``rules`` (an id or a rule-set path) and ``wagers``, then
the fields of the rule set's game (its family's ``engine.payout_fields``: for the flush
family ``player``, ``dealer`` and ``raise``, ...). Cards are text (``"Ah Kd 10c"``) or a
list of card texts.

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

from feltlab.core.cards import Card, CardError, parse_cards
from feltlab.core.family import family_of
from feltlab.core.jsonio import iter_items
from feltlab.core.rules import Rules, load_rules


class RequestError(ValueError):
    """A payout request with a missing, unknown or malformed field."""


def request_cards(request: Mapping[str, Any], name: str) -> tuple[Card, ...]:
    """The cards in field ``name`` of a request (text, or a list of card texts)."""
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
    steps = family_of(rules).engine
    fields = steps.payout_fields
    unknown = sorted(set(request) - fields)
    if unknown:
        raise RequestError(f"unknown field {unknown[0]!r} for {rules.id}; "
                           f"fields are {', '.join(sorted(fields))}")
    if not isinstance(request.get("wagers"), dict):
        raise RequestError("field 'wagers' must be an object of wager amounts")
    settlement = steps.settle_request(rules, request)
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
