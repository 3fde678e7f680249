"""Strict data models that cost nothing to import: frozen keyword-only dataclasses that
pydantic validates, imported only when something is validated.

A rule set is data every command reads, and the quickest commands (``rules``, ``payout``,
``verify``) must not pay for importing pydantic's models (issue 35). So a rule-set model
is a :class:`StrictData`: each subclass becomes a frozen keyword-only dataclass, whose
fields are written as before (bounds as :class:`Constrained` metadata, a field's
own checks as :class:`Before` and :class:`After` metadata, checks across fields in
``__post_init__``). :func:`validate` runs pydantic over it strictly (no coercion, no
unknown field); :func:`construct` builds it from the same data with the model's own
checks but without pydantic's type checks, for data the test suite has validated
strictly (the rule sets a game family ships).

>>> class Point(StrictData):
...     x: int
...     tags: tuple[str, ...] = ()
>>> validate(Point, {"x": 1, "tags": ["a"]})
Point(x=1, tags=('a',))
>>> validate(Point, {"x": "1"})
Traceback (most recent call last):
...
pydantic_core._pydantic_core.ValidationError: 1 validation error for Point
x
  Input should be a valid integer [type=int_type, input_value='1', input_type=str]
...
>>> construct(Point, {"x": 1, "tags": ["a"]}) == validate(Point, {"x": 1, "tags": ["a"]})
True
"""

from __future__ import annotations

import copy
import dataclasses
import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar, dataclass_transform

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

S = TypeVar("S", bound="StrictData")


@dataclasses.dataclass(frozen=True)
class Before:
    """Field metadata: ``function`` turns the raw value into what the field's type
    checks (or raises ``ValueError`` naming what is wrong), before pydantic's checks."""

    function: Callable[[Any], Any]

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler
                                     ) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(self.function, handler(source))


@dataclasses.dataclass(frozen=True)
class After:
    """Field metadata: ``function`` checks (and may normalise) the value once its type
    has been checked, raising ``ValueError`` naming what is wrong."""

    function: Callable[[Any], Any]

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler
                                     ) -> CoreSchema:
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(self.function, handler(source))


@dataclasses.dataclass(frozen=True)
class Constrained:
    """Field metadata: bounds of a number (``ge``, ``le``) or of a text (``min_length``,
    ``max_length``, ``pattern``), checked by pydantic in its own words."""

    ge: int | None = None
    le: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler
                                     ) -> CoreSchema:
        schema: dict[str, object] = dict(handler(source))
        schema.update({name: value for name, value in dataclasses.asdict(self).items()
                       if value is not None})
        return typing.cast("CoreSchema", schema)


@dataclass_transform(kw_only_default=True, frozen_default=True)
class StrictData:
    """Base of the strict models: every subclass is made a frozen keyword-only
    dataclass; pydantic refuses unknown fields and coerces nothing."""

    __pydantic_config__: ClassVar[dict[str, object]] = {"extra": "forbid", "strict": True}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclasses.dataclass(frozen=True, kw_only=True)(cls)

    def model_dump(self, *, mode: str = "python", include: set[str] | None = None
                   ) -> dict[str, Any]:
        """The fields as a dict (``mode="json"``: as JSON has them, lists and text keys),
        only those in ``include`` if given."""
        return {field.name: _dumped(getattr(self, field.name), mode == "json")
                for field in dataclasses.fields(self)  # type: ignore[arg-type]
                if include is None or field.name in include}

    def model_dump_json(self) -> str:
        """The fields as compact JSON."""
        return json.dumps(self.model_dump(mode="json"), separators=(",", ":"),
                          ensure_ascii=False)

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A copy with ``update``'s fields changed, not validated again (as pydantic's
        ``model_copy``)."""
        changes = dict(update or {})
        names = {field.name for field in dataclasses.fields(self)}  # type: ignore[arg-type]
        unknown = sorted(set(changes) - names)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {unknown[0]!r}")
        copied = copy.copy(self)
        for name, value in changes.items():
            object.__setattr__(copied, name, value)
        return copied

    @classmethod
    def model_validate(cls, data: object) -> Self:
        """``data`` validated strictly (pydantic's ``ValidationError`` if it is not)."""
        return validate(cls, data)

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        """The JSON Schema pydantic gives the model."""
        schema: dict[str, Any] = _adapter(cls).json_schema()
        return schema


def _dumped(value: object, as_json: bool) -> object:
    if isinstance(value, StrictData):
        return value.model_dump(mode="json" if as_json else "python")
    if isinstance(value, Mapping):
        return {(str(key) if as_json else key): _dumped(item, as_json)
                for key, item in value.items()}
    if isinstance(value, tuple | list):
        items = [_dumped(item, as_json) for item in value]
        return items if as_json or isinstance(value, list) else tuple(items)
    return value


_ADAPTERS: dict[type[StrictData], Any] = {}
_HINTS: dict[type[StrictData], dict[str, Any]] = {}


def _adapter(model: type[StrictData]) -> Any:
    """pydantic's validator of ``model``, built once (the only place pydantic is imported)."""
    adapter = _ADAPTERS.get(model)
    if adapter is None:
        from pydantic import TypeAdapter

        adapter = _ADAPTERS[model] = TypeAdapter(model)
    return adapter


def validate(model: type[S], data: object) -> S:
    """``model`` from decoded TOML or JSON data, strictly: a text is not a number, a
    boolean is not an amount (lists may stand for tuples, text keys for numbers). Raises
    pydantic's ``ValidationError``; a value JSON has not (a TOML date) is a ``ValueError``
    naming its field."""
    validated: S = _adapter(model).validate_json(json_text(data), strict=True)
    return validated


def json_text(data: object) -> str:
    """Decoded TOML or JSON data as JSON text, for pydantic's strict JSON validation; a
    value JSON has not (a TOML date) is a ``ValueError`` naming its field."""
    try:
        return json.dumps(data)
    except (TypeError, ValueError) as error:
        where = _unlike_json(data)
        if where is None:
            raise ValueError(f"a value of a kind the format does not use: {error}") from error
        path, value = where
        raise ValueError(f"field {path}: {value!r} is a {type(value).__name__}, a kind of value "
                         "the format does not use") from error


def _unlike_json(data: object, path: str = "") -> tuple[str, object] | None:
    """Where ``data`` first holds a value JSON has not (dotted path, value), if anywhere."""
    if isinstance(data, Mapping):
        items: Iterable[tuple[object, object]] = data.items()
    elif isinstance(data, list | tuple):
        items = enumerate(data)
    elif data is None or isinstance(data, str | int | float):
        return None
    else:
        return path, data
    for key, value in items:
        found = _unlike_json(value, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def construct(model: type[S], data: Mapping[str, Any]) -> S:
    """``model`` from data the test suite has validated strictly: each field converted
    to its type (nested models, tuples, counted keys) and the model's own checks run
    (:class:`Before`, :class:`After`, ``__post_init__``), pydantic's skipped."""
    hints = _hints(model)
    values = {name: _converted(hints[name], value) for name, value in data.items()}
    return model(**values)


def _hints(model: type[StrictData]) -> dict[str, Any]:
    hints = _HINTS.get(model)
    if hints is None:
        hints = _HINTS[model] = typing.get_type_hints(model, include_extras=True)
    return hints


def _converted(kind: Any, value: Any) -> Any:
    """``value`` as the annotation ``kind`` holds it."""
    origin = typing.get_origin(kind)
    if origin is typing.Annotated:
        inner, *metadata = typing.get_args(kind)
        for each in metadata:
            if isinstance(each, Before):
                value = each.function(value)
        value = _converted(inner, value)
        for each in metadata:
            if isinstance(each, After):
                value = each.function(value)
        return value
    if isinstance(kind, type) and issubclass(kind, StrictData):
        return construct(kind, value)
    if origin is tuple:
        return tuple(_converted(typing.get_args(kind)[0], item) for item in value)
    if origin is dict:
        key_kind, item_kind = typing.get_args(kind)
        return {(int(key) if key_kind is int else key): _converted(item_kind, item)
                for key, item in value.items()}
    if origin in (typing.Union, types.UnionType) and value is not None:
        options = [option for option in typing.get_args(kind) if option is not type(None)]
        return _converted(options[0], value) if len(options) == 1 else value
    return value
