"""JSON that feltlab writes itself, and reads back from its own store or its own workers:
compact UTF-8, through orjson.

A money request's answer, every live watcher's message and the table states passed
between workers are encoded on the server's hot path, and stored round logs are read
back there; orjson does both ten to twenty times faster than the standard library.
JSON from people and networks is read by :mod:`feltlab.core.jsonio` instead (strictly).

>>> dumps({"seat": 1, "cards": {"player": "As Kd"}, "names": {7: "ann"}})
b'{"seat":1,"cards":{"player":"As Kd"},"names":{"7":"ann"}}'
>>> loads(dumps_text([1, "é"]))
[1, 'é']
"""

from __future__ import annotations

from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # an integer key is written as text, as json does


def dumps(value: Any) -> bytes:
    """``value`` as compact JSON in UTF-8 (its keys in their order; integer keys as text).
    Unlike the standard library, orjson also writes dates and dataclasses, and writes a
    float that is not finite as ``null``: callers give it JSON-ready values (the answers
    and views hold integers and text)."""
    return orjson.dumps(value, option=_OPTIONS)


def dumps_text(value: Any) -> str:
    """:func:`dumps` as text."""
    return orjson.dumps(value, option=_OPTIONS).decode()


def loads(text: str | bytes) -> Any:
    """JSON feltlab wrote (a stored round log, another worker's state)."""
    return orjson.loads(text)
