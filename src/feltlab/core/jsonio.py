"""Reading JSON from people and networks: strictly, and within limits.

Python's ``json`` lets a second ``"rules"`` key silently win, reads ``NaN`` and
``Infinity``, turns a 100,000-digit number into an integer and recurses until the
interpreter gives up. :func:`loads` refuses each of these with one ``JSONInputError``
line, and :func:`iter_items` reads a JSON array item by item from a stream, so a batch
of any length is read in constant memory.

>>> loads('{"rules": "a", "wagers": {"ante": 5}}')
{'rules': 'a', 'wagers': {'ante': 5}}
>>> loads('{"rules": "a", "rules": "b"}')
Traceback (most recent call last):
...
feltlab.core.jsonio.JSONInputError: key 'rules' appears twice in one object
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import IO, Any, Final

MAX_DEPTH: Final = 32
"""Deepest nesting of arrays and objects read (a payout request is 3 deep)."""
MAX_NUMBER_DIGITS: Final = 40
"""Longest number read, in characters."""
MAX_ITEM_BYTES: Final = 1 << 20
"""Largest single JSON document or array item read."""
_READ_SIZE: Final = 1 << 16


class JSONInputError(ValueError):
    """JSON that is malformed, ambiguous or beyond the limits; the message says which."""


class _Malformed(JSONInputError):
    """Text the decoder cannot read: bad JSON, or JSON cut short by the end of a chunk."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise JSONInputError(f"key {key!r} appears twice in one object")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise JSONInputError(f"{name} is not a JSON number")


def _bounded_number(kind: type[int] | type[float]) -> Any:
    def parse(text: str) -> int | float:
        if len(text) > MAX_NUMBER_DIGITS:
            raise JSONInputError(f"a number of {len(text):,} characters is too long "
                                 f"(at most {MAX_NUMBER_DIGITS})")
        return kind(text)
    return parse


_DECODER: Final = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constant,
                                   parse_int=_bounded_number(int),
                                   parse_float=_bounded_number(float))


def depth(value: object) -> int:
    """Nesting depth of a decoded JSON value, measured without recursion.

    >>> depth(1), depth([]), depth({"a": [1, {"b": 2}]})
    (0, 1, 3)
    """
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level + 1)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _checked(value: object) -> object:
    if depth(value) > MAX_DEPTH:
        raise JSONInputError(f"nested more than {MAX_DEPTH} deep")
    return value


def _decode_at(text: str, start: int) -> tuple[object, int]:
    try:
        return _DECODER.raw_decode(text, start)
    except RecursionError:
        raise JSONInputError(f"nested more than {MAX_DEPTH} deep") from None
    except json.JSONDecodeError as error:
        raise _Malformed(f"not valid JSON: {error}") from None


def loads(text: str) -> Any:
    """One JSON document, strictly: no duplicate keys, NaN or Infinity, no number longer
    than :data:`MAX_NUMBER_DIGITS`, no nesting deeper than :data:`MAX_DEPTH`, nothing but
    white space after it.

    >>> loads('[' * 40 + ']' * 40)
    Traceback (most recent call last):
    ...
    feltlab.core.jsonio.JSONInputError: nested more than 32 deep
    >>> loads('{"ante": NaN}')
    Traceback (most recent call last):
    ...
    feltlab.core.jsonio.JSONInputError: NaN is not a JSON number
    """
    if len(text) > MAX_ITEM_BYTES:
        raise JSONInputError(f"a JSON document is at most {MAX_ITEM_BYTES:,} characters")
    start = _skip_space(text, 0)
    if start == len(text):
        raise JSONInputError("the input is empty: expected JSON")
    value, end = _decode_at(text, start)
    if _skip_space(text, end) != len(text):
        raise JSONInputError(f"not valid JSON: extra data after the value at character {end}")
    return _checked(value)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


class _Buffer:
    """Text read from a stream on demand, dropping what has been consumed."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream, self.text, self.position, self.ended = stream, "", 0, False

    def fill(self) -> bool:
        """Read more; False at the end of the stream."""
        if self.ended:
            return False
        chunk = self.stream.read(_READ_SIZE)
        if not chunk:
            self.ended = True
            return False
        self.text = self.text[self.position:] + chunk
        self.position = 0
        return True

    def next_char(self) -> str:
        """The next character that is not white space ("" at the end), not consumed."""
        while True:
            self.position = _skip_space(self.text, self.position)
            if self.position < len(self.text):
                return self.text[self.position]
            if not self.fill():
                return ""

    def value(self) -> object:
        """Decode the value that starts here, reading more of the stream as needed."""
        self.next_char()
        while True:
            try:
                value, end = _decode_at(self.text, self.position)
            except _Malformed:
                if len(self.text) - self.position > MAX_ITEM_BYTES:
                    raise JSONInputError(f"an item is at most {MAX_ITEM_BYTES:,} "
                                         "characters") from None
                if self.fill():
                    continue
                raise
            if end == len(self.text) and not self.ended and self.fill():
                continue  # a number may go on in the next chunk
            self.position = end
            return _checked(value)


def iter_items(stream: IO[str]) -> Iterator[tuple[bool, object]]:
    """The JSON on ``stream``: ``(False, value)`` once for a single document, or
    ``(True, item)`` for each item of a top-level array, read one at a time.

    >>> import io
    >>> list(iter_items(io.StringIO('[{"a": 1}, 2]')))
    [(True, {'a': 1}), (True, 2)]
    >>> list(iter_items(io.StringIO('{"a": 1}')))
    [(False, {'a': 1})]
    """
    buffer = _Buffer(stream)
    first = buffer.next_char()
    if first == "":
        raise JSONInputError("the input is empty: expected a JSON object or array")
    if first != "[":
        value = buffer.value()
        if buffer.next_char() != "":
            raise JSONInputError("not valid JSON: extra data after the value")
        yield False, value
        return
    buffer.position += 1
    if buffer.next_char() == "]":
        buffer.position += 1
    else:
        for position in itertools.count():
            try:
                item = buffer.value()
            except JSONInputError as error:
                raise JSONInputError(f"item {position}: {error}") from None
            yield True, item
            separator = buffer.next_char()
            buffer.position += 1
            if separator == "]":
                break
            if separator == "":
                raise JSONInputError("not valid JSON: the array is not closed with ']'")
            if separator != ",":
                raise JSONInputError(f"not valid JSON: expected ',' or ']' after item "
                                     f"{position}")
    if buffer.next_char() != "":
        raise JSONInputError("not valid JSON: extra data after the array")
