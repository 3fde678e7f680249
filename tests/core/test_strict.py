"""Strict data models (``feltlab.core.strict``): pydantic's strict validation in its own
words over frozen dataclasses, and the same data built without pydantic for data
already validated (a family's built-in rule sets)."""

import datetime
import subprocess
import sys
from typing import Annotated

import pytest
from pydantic import ValidationError

from feltlab.core.rules import describe_validation_error, integer_keys, load_rules
from feltlab.core.strict import After, Before, Constrained, StrictData, construct, validate


def upper(value: str) -> str:
    if not value.isalpha():
        raise ValueError(f"{value!r} is not a word")
    return value.upper()


class Inner(StrictData):
    low: Annotated[int, Constrained(ge=1, le=9)]
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError(f"low {self.low} is above high {self.high}")


class Outer(StrictData):
    name: Annotated[str, Constrained(min_length=1, max_length=8, pattern=r"^[a-z]+$")]
    word: Annotated[str, After(upper)] = "a"
    counts: Annotated[dict[int, int], Before(integer_keys)]
    inner: dict[str, Inner]
    tags: tuple[str, ...] = ()
    cap: Annotated[int, Constrained(ge=1)] | None = None


GOOD = {"name": "abc", "word": "b", "counts": {"4": 1, "7": 2},
        "inner": {"x": {"low": 1, "high": 2}}, "tags": ["t"], "cap": 3}


def refusal(data: object) -> str:
    with pytest.raises(ValidationError) as caught:
        validate(Outer, data)
    return describe_validation_error(caught.value)


def test_valid_data_is_the_same_validated_or_constructed() -> None:
    validated = validate(Outer, GOOD)
    assert validated == construct(Outer, GOOD)
    assert validated.word == "B" and validated.tags == ("t",) and validated.counts == {4: 1, 7: 2}
    assert isinstance(validated.inner["x"], Inner)
    with pytest.raises(AttributeError):
        validated.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize(("change", "words"), [
    ({"name": 5}, "field name: Input should be a valid string"),
    ({"name": ""}, "field name: String should have at least 1 character"),
    ({"name": "ABC"}, "field name: String should match pattern '^[a-z]+$'"),
    ({"word": "b1"}, "field word: 'b1' is not a word"),
    ({"counts": {"04": 1}}, "field counts: line '04' is not a plain whole number such as 4"),
    ({"counts": {"4": True}}, "field counts.4: Input should be a valid integer"),
    ({"inner": {"x": {"low": 0, "high": 2}}},
     "field inner.x.low: Input should be greater than or equal to 1"),
    ({"inner": {"x": {"low": 3, "high": 2}}}, "field inner.x: low 3 is above high 2"),
    ({"inner": {"x": {"low": 1, "high": 2, "extra": 1}}},
     "field inner.x.extra: Extra inputs are not permitted"),
    ({"inner": {"x": {"low": 1}}}, "field inner.x.high: Field required"),
    ({"cap": 0}, "field cap: Input should be greater than or equal to 1"),
    ({"cap": "3"}, "field cap: Input should be a valid integer"),
])
def test_a_refusal_names_the_field_in_pydantics_words(change: dict[str, object], words: str
                                                     ) -> None:
    assert refusal({**GOOD, **change}) == words


def test_a_value_json_has_not_is_refused_naming_its_field() -> None:
    with pytest.raises(ValueError, match=r"^field inner\.x\.low: datetime\.date\(2020, 1, 1\) "
                                         "is a date"):
        validate(Outer, {**GOOD, "inner": {"x": {"low": datetime.date(2020, 1, 1), "high": 2}}})


def test_construct_runs_the_models_own_checks_only() -> None:
    with pytest.raises(ValueError, match="low 3 is above high 2"):
        construct(Outer, {**GOOD, "inner": {"x": {"low": 3, "high": 2}}})
    with pytest.raises(ValueError, match="is not a word"):
        construct(Outer, {**GOOD, "word": "b1"})
    unchecked = construct(Outer, {**GOOD, "cap": 0})  # pydantic's bounds are not checked
    assert unchecked.cap == 0


def test_dump_copy_and_schema() -> None:
    model = validate(Outer, GOOD)
    assert model.model_dump(mode="json")["counts"] == {"4": 1, "7": 2}
    assert model.model_dump(mode="json")["tags"] == ["t"]
    assert model.model_dump()["tags"] == ("t",)
    assert model.model_dump(include={"name"}) == {"name": "abc"}
    assert validate(Outer, model.model_dump(mode="json")) == model
    copied = model.model_copy(update={"cap": 0})  # not validated again, as pydantic's
    assert (copied.cap, model.cap, copied.name) == (0, 3, "abc")
    with pytest.raises(TypeError, match="Outer has no field 'capp'"):
        model.model_copy(update={"capp": 1})
    schema = Outer.model_json_schema()
    assert schema["additionalProperties"] is False
    assert schema["properties"]["name"] == {"maxLength": 8, "minLength": 1,
                                            "pattern": "^[a-z]+$", "title": "Name",
                                            "type": "string"}


def test_a_copied_rule_set_has_its_own_fingerprint() -> None:
    rules = load_rules("nh-flush-poker")
    assert rules.fingerprint  # cached on the original
    capped = rules.model_copy(update={"max_aggregate_payout": 20})
    assert capped.fingerprint != rules.fingerprint
    assert rules.model_copy().fingerprint == rules.fingerprint


def test_reading_a_built_in_rule_set_imports_no_pydantic() -> None:
    code = ("import sys; from feltlab.core.rules import load_rules; "
            "[load_rules(i) for i in ('high-card-flush', 'nine-card-flush', 'nh-holdem-stud')]; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'typer'}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"
