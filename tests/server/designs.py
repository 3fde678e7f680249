"""Rule-set designs for the designer's tests: a built-in rule set's TOML edited as data
and written back as TOML text (the subset rule sets use)."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from typing import Any

from feltlab.core import registry


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def _key(key: object) -> str:
    text = str(key)
    return text if text.replace("_", "").replace("-", "").isalnum() else json.dumps(text)


def to_toml(data: dict[str, Any]) -> str:
    """Plain values first, then each table as ``[name]`` (nested tables inline)."""
    lines = [f"{_key(k)} = {_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for name, table in data.items():
        if isinstance(table, dict):
            lines += ["", f"[{name}]"]
            lines += [f"{_key(k)} = {_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def builtin_data(rules_id: str) -> dict[str, Any]:
    return tomllib.loads(registry.builtin_text(rules_id))


def design(rules_id: str, edit: Callable[[dict[str, Any]], None]) -> str:
    """The built-in rule set ``rules_id`` with ``edit`` applied, as TOML text."""
    data = builtin_data(rules_id)
    edit(data)
    return to_toml(data)
