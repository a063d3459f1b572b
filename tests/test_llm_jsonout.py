"""JSON extraction, repair and schema validation."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from nonseq.llm.jsonout import JSONOutputError, extract_json, parse_json, validate

SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "minLength": 1},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "kind": {"enum": ["news", "guide"]},
    },
    "required": ["title", "score"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! Here it is:\n```json\n{"a": [1, 2,],}\n```\nHope that helps.', {"a": [1, 2]}),
        ('<think>maybe {"a": 0}</think>{"a": 2} and then {"b": 3}', {"a": 2}),
        ('prefix {"a": "brace } in \\" string", "b": {"c": null}} suffix',
         {"a": 'brace } in " string', "b": {"c": None}}),
        ('{"a": "cut off mid str', {"a": "cut off mid str"}),
        ('{"a": 1, "b": [true, false', {"a": 1, "b": [True, False]}),
        ('{"a": 1, "dangling', {"a": 1}),
        ('{"a": 1, "b":', {"a": 1}),
        ("[1, 2, 3]", [1, 2, 3]),
    ],
)
def test_extract_and_repair(text: str, value: object) -> None:
    """The first JSON value is found and common slips are repaired."""
    assert extract_json(text) == value


@pytest.mark.parametrize("text", ["no json here", "{not: json at all}", ""])
def test_extract_fails_clearly(text: str) -> None:
    """No usable JSON raises JSONOutputError."""
    with pytest.raises(JSONOutputError):
        extract_json(text)


def test_validate_reports_each_problem() -> None:
    """Missing keys, wrong types, ranges, enums and extra keys are all reported."""
    bad = {"title": "", "score": 1.5, "tags": ["a", 2, "c", "d"], "kind": "rant", "x": 1}
    problems = validate(bad, SCHEMA)
    joined = " | ".join(problems)
    for expected in ("$.title: shorter", "$.score: 1.5 breaks maximum", "$.tags: more than 3",
                     "$.tags[1]: expected string", "$.kind: 'rant' is not one of",
                     "unexpected key 'x'"):
        assert expected in joined
    assert validate({"title": "T", "score": 1}, SCHEMA) == []
    assert validate({"title": "T", "score": True}, SCHEMA)  # bool is not a number


class _Fact(BaseModel):
    """A nested pydantic model, to produce $defs and $ref."""

    claim: str
    source: int | None = None


class _Facts(BaseModel):
    """The outer model."""

    facts: list[_Fact]


def test_validate_pydantic_schema_with_refs() -> None:
    """Schemas from pydantic ($defs, $ref, anyOf for Optional) validate correctly."""
    schema = _Facts.model_json_schema()
    assert validate({"facts": [{"claim": "x", "source": None}, {"claim": "y"}]}, schema) == []
    problems = validate({"facts": [{"source": "one"}]}, schema)
    assert any("missing key 'claim'" in p for p in problems)
    assert any("anyOf" in p for p in problems)


def test_parse_json_requires_an_object_that_validates() -> None:
    """parse_json returns the object or raises with the first problem."""
    assert parse_json('{"title": "T", "score": 0.5}', SCHEMA) == {"title": "T", "score": 0.5}
    with pytest.raises(JSONOutputError, match="missing key 'score'"):
        parse_json('{"title": "T"}', SCHEMA)
    with pytest.raises(JSONOutputError, match="expected a JSON object"):
        parse_json("[1]", SCHEMA)
