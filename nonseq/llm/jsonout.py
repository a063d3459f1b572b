"""JSON answers: find the JSON in a reply, repair common slips, check it against a schema."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from nonseq.llm.thinking import strip_think

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)(?:```|$)", re.DOTALL)
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "integer": (int,), "number": (int, float), "null": (type(None),),
}


class JSONOutputError(ValueError):
    """The reply holds no usable JSON, or the JSON does not match the schema."""


def _chars(text: str, start: int = 0) -> Iterator[tuple[int, str, bool]]:
    """Each character from start with whether it is inside a JSON string (the opening quote is, the
    closing one is not)."""
    in_str = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_str:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        yield i, ch, in_str


def _scan(text: str, start: int) -> tuple[int, list[str], bool]:
    """Walk a JSON value from start: (end index or -1, open closers left, inside a string)."""
    stack: list[str] = []
    in_str = False
    for i, ch, in_str in _chars(text, start):
        if in_str:
            continue
        if ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]":
            if not stack or stack[-1] != ch:
                return i, stack, False
            stack.pop()
            if not stack:
                return i + 1, [], False
    return -1, stack, in_str


def _drop_trailing_commas(text: str) -> str:
    """Remove commas right before a closing bracket, outside strings."""
    out: list[str] = []
    for _i, ch, in_str in _chars(text):
        if not in_str and ch in "}]":
            while out and out[-1].isspace():
                out.pop()
            if out and out[-1] == ",":
                out.pop()
        out.append(ch)
    return "".join(out)


_DANGLING_KEY = re.compile(r'([{,])\s*"(?:[^"\\]|\\.)*"\s*:?\s*$')


def _close_truncated(text: str, stack: list[str], in_str: bool) -> str:
    """Close a reply cut off by max_tokens: end the string, drop a dangling key, add closers."""
    if in_str:
        text += '"'
    if stack and stack[-1] == "}":
        text = _DANGLING_KEY.sub(r"\1", text)
    text = text.rstrip().rstrip(",:").rstrip()
    return text + "".join(reversed(stack))


def _loads(candidate: str) -> Any:
    """json.loads, then again with trailing commas removed."""
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        return json.loads(_drop_trailing_commas(candidate))


def extract_json(text: str) -> Any:
    """The first JSON object (or array) in a model reply, repaired if needed."""
    text = strip_think(text)
    fenced = _FENCE.search(text)
    candidates = [fenced.group(1), text] if fenced else [text]
    for body in candidates:
        match = re.search(r"[{\[]", body)
        if not match:
            continue
        end, stack, in_str = _scan(body, match.start())
        chunk = body[match.start():end] if end > 0 else body[match.start():]
        try:
            return _loads(chunk)
        except json.JSONDecodeError:
            pass
        if end < 0:
            try:
                return _loads(_close_truncated(chunk, stack, in_str))
            except json.JSONDecodeError:
                pass
    raise JSONOutputError("no JSON object in the reply" if "{" not in text else
                          "the reply's JSON is malformed")


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """Follow a local $ref (#/$defs/X or #/definitions/X)."""
    seen = 0
    while "$ref" in schema and seen < 20:
        node: Any = root
        for part in str(schema["$ref"]).lstrip("#/").split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        schema, seen = node, seen + 1
    return schema


def _type_ok(value: Any, kind: str | list[str]) -> bool:
    """Whether value has the JSON type kind (bool is not a number)."""
    kinds = [kind] if isinstance(kind, str) else kind
    for k in kinds:
        if k in ("integer", "number") and isinstance(value, bool):
            continue
        if k == "integer" and isinstance(value, float) and value.is_integer():
            return True
        if isinstance(value, _TYPES.get(k, (object,))):
            return True
    return False


def _check_scalar(value: Any, schema: dict[str, Any], path: str) -> list[str]:
    """Enum, const, string lengths, pattern and number ranges."""
    errs: list[str] = []
    if "enum" in schema and value not in schema["enum"]:
        errs.append(f"{path}: {value!r} is not one of {schema['enum']}")
    if "const" in schema and value != schema["const"]:
        errs.append(f"{path}: must be {schema['const']!r}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            errs.append(f"{path}: shorter than {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errs.append(f"{path}: longer than {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            errs.append(f"{path}: does not match {schema['pattern']!r}")
    if isinstance(value, int | float) and not isinstance(value, bool):
        for key, bad in (("minimum", value < schema.get("minimum", value)),
                         ("maximum", value > schema.get("maximum", value)),
                         ("exclusiveMinimum", value <= schema.get("exclusiveMinimum", value - 1)),
                         ("exclusiveMaximum", value >= schema.get("exclusiveMaximum", value + 1))):
            if bad:
                errs.append(f"{path}: {value} breaks {key} {schema[key]}")
    return errs


def _check_container(value: Any, schema: dict[str, Any], path: str, root: dict) -> list[str]:
    """Object properties and required keys, array items and lengths."""
    errs: list[str] = []
    if isinstance(value, dict):
        props = schema.get("properties", {})
        errs += [f"{path}: missing key {k!r}" for k in schema.get("required", []) if k not in value]
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if key in props:
                errs += _errors(item, props[key], f"{path}.{key}", root)
            elif extra is False:
                errs.append(f"{path}: unexpected key {key!r}")
            elif isinstance(extra, dict):
                errs += _errors(item, extra, f"{path}.{key}", root)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errs.append(f"{path}: fewer than {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errs.append(f"{path}: more than {schema['maxItems']} items")
        if isinstance(schema.get("items"), dict):
            for i, item in enumerate(value):
                errs += _errors(item, schema["items"], f"{path}[{i}]", root)
    return errs


def _errors(value: Any, schema: dict[str, Any], path: str, root: dict) -> list[str]:
    """Every way value breaks schema (a practical subset of JSON Schema)."""
    schema = _resolve(schema, root)
    if "type" in schema and not _type_ok(value, schema["type"]):
        return [f"{path}: expected {schema['type']}, got {type(value).__name__}"]
    for key in ("anyOf", "oneOf"):
        if key in schema and not any(
            not _errors(value, option, path, root) for option in schema[key]
        ):
            return [f"{path}: matches none of the {key} options"]
    errs: list[str] = []
    for sub in schema.get("allOf", []):
        errs += _errors(value, sub, path, root)
    return errs + _check_scalar(value, schema, path) + _check_container(value, schema, path, root)


def validate(value: Any, schema: dict[str, Any]) -> list[str]:
    """The schema violations of value, as short messages ([] when it is valid)."""
    return _errors(value, schema, "$", schema)


def parse_json(text: str, schema: dict[str, Any]) -> dict[str, Any]:
    """Extract, repair and validate a JSON object from a reply; raise JSONOutputError otherwise."""
    value = extract_json(text)
    if not isinstance(value, dict):
        raise JSONOutputError(f"expected a JSON object, got {type(value).__name__}")
    problems = validate(value, schema)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise JSONOutputError(problems[0] + more)
    return value


def schema_instruction(schema: dict[str, Any]) -> str:
    """The system-prompt line that asks for JSON matching schema."""
    compact = json.dumps(schema, separators=(",", ":"), ensure_ascii=False)
    return f"Reply with one JSON object only, no prose, matching this JSON schema: {compact}"
