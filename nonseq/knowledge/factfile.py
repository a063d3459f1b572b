"""Reading a fact export (JSON lines) safely: every line checked, streaming, with bounded memory per line.

The line's schema is FactRecord's own fields (exact JSON types; a field added to the record is
imported too). `check_file` reads the whole file once before anything is stored or embedded and
stops at the first bad line with one message naming it: a line too long, not JSON (or nested too deep), a field
of the wrong type, an unknown kind, status or category, a support outside 0..1, a uid repeated
inside the file (with both line numbers). `read_facts` then streams the same records.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from nonseq.errors import UsageError
from nonseq.knowledge.records import FactRecord
from nonseq.models import FactStatus

#: The longest line read (one fact with its quote, decisions and corroborating sources).
MAX_LINE_BYTES = 1_000_000
#: The largest integer magnitude a line may hold anywhere (exact in JSON and in SQLite's 64-bit integers).
MAX_INT = 2**53
#: Fields that belong to one workspace: whatever a line says, an imported fact starts without them.
LOCAL_FIELDS = {"id": 0, "topic_id": None, "point_id": "", "collection": ""}
#: Fields a fact cannot do without.
REQUIRED = ("uid", "text", "category")


@dataclass
class FileCheck:
    """What a checked file holds."""

    facts: int
    promoted: int


def _problem(error: ValidationError) -> str:
    """The first validation error as a short phrase."""
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    got = repr(first.get("input"))
    got = got if len(got) <= 40 else got[:37] + "..."
    if first["type"] == "json_invalid":
        return f"not valid JSON ({first['msg'].removeprefix('Invalid JSON: ')})"
    if not where:
        return f"{first['msg'].lower()} (got {got})"
    return f"field {where!r}: {first['msg'][0].lower()}{first['msg'][1:]} (got {got})"


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(number, bytes) of each non-blank line; a UsageError for a line over MAX_LINE_BYTES."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        number = 0
        while line := handle.readline(MAX_LINE_BYTES + 1):
            number += 1
            if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                raise UsageError(f"{path}:{number}: line longer than {MAX_LINE_BYTES:,} bytes (one fact a line); "
                                 "nothing was imported")
            if line.strip():
                yield number, line


def reader() -> TypeAdapter[FactRecord]:
    """The validator of export lines: a FactRecord's fields, with exact JSON types."""
    return TypeAdapter(FactRecord)


def _invalid(path: Path, number: int, problem: str) -> UsageError:
    """The one line for a bad export line."""
    return UsageError(f"{path}:{number}: not a fact export line: {problem}; nothing was imported")


def _big_integer(value: Any, where: str = "") -> str:
    """The first integer (at any depth) beyond ±MAX_INT, as a problem phrase; "" when there is none."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
        shown = str(value) if len(str(value)) <= 24 else f"{str(value)[:20]}... ({len(str(value))} digits)"
        return f"field {where!r}: {shown} is out of range (at most ±2**53)"
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _big_integer(item, f"{where}.{key}" if where else str(key))
        if found:
            return found
    return ""


def parse_line(path: Path, number: int, line: bytes, categories: Sequence[str],
               read: TypeAdapter[FactRecord]) -> FactRecord:
    """One line as a FactRecord; a UsageError naming the line and what is wrong with it."""
    try:
        fact = read.validate_json(line)
    except ValidationError as exc:
        raise _invalid(path, number, _problem(exc)) from None
    for key, value in LOCAL_FIELDS.items():
        setattr(fact, key, value)
    for key in REQUIRED:
        if not getattr(fact, key).strip():
            raise _invalid(path, number, f"field {key!r} is missing or empty")
    big = _big_integer(vars(fact))
    if big:
        raise _invalid(path, number, big)
    if fact.support is not None and not 0.0 <= fact.support <= 1.0:
        raise _invalid(path, number, f"field 'support': {fact.support:g} is not between 0 and 1")
    if fact.category not in categories:
        raise UsageError(f"{path}:{number}: unknown category {fact.category!r} (allowed: {', '.join(categories)}; "
                         "add it to [categories] names); nothing was imported")
    return fact


def check_file(path: Path, categories: Sequence[str]) -> FileCheck:
    """Check every line of an export before anything is stored; the first bad line is one UsageError."""
    if not path.is_file():
        raise UsageError(f"cannot read {path}: not a file")
    seen: dict[str, int] = {}
    promoted = 0
    read = reader()
    for number, line in _lines(path):
        fact = parse_line(path, number, line, categories, read)
        if fact.uid in seen:
            raise UsageError(f"{path}:{number}: uid {fact.uid!r} is repeated (first on line {seen[fact.uid]}); "
                             "nothing was imported")
        seen[fact.uid] = number
        promoted += fact.status is FactStatus.PROMOTED
    return FileCheck(len(seen), promoted)


def read_facts(path: Path, categories: Sequence[str]) -> Iterator[FactRecord]:
    """The records of a checked export, one at a time."""
    read = reader()
    for number, line in _lines(path):
        yield parse_line(path, number, line, categories, read)
