"""Reading a fact export (JSON lines) safely: every line checked, streaming, with bounded memory per line.

`check_file` reads the whole file once before anything is stored or embedded and stops at the
first bad line with one message naming it: a line too long, not JSON (or nested too deep), a field
of the wrong type, an unknown kind, status or category, a support outside 0..1, a uid repeated
inside the file (with both line numbers). `read_facts` then streams the same records.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from nonseq.errors import UsageError
from nonseq.knowledge.records import FactRecord
from nonseq.models import FactKind, FactStatus

#: The longest line read (one fact with its quote, decisions and corroborating sources).
MAX_LINE_BYTES = 1_000_000


class FactLine(BaseModel):
    """One line of an export, with the types the knowledge base needs (local fields are ignored)."""

    model_config = ConfigDict(strict=True, extra="ignore")

    uid: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1)
    category: str = Field(min_length=1)
    kind: FactKind = FactKind.TOPIC
    status: FactStatus = FactStatus.PENDING
    topic_slug: str = ""
    url: str = ""
    title: str = ""
    domain: str = ""
    published: str = ""
    fetched_at: str = ""
    quote: str = ""
    quote_start: int = -1
    quote_end: int = -1
    extractor: str = ""
    support: float | None = Field(None, ge=0, le=1)
    flags: list[str] = Field(default_factory=list)
    original_text: str = ""
    decisions: list[dict[str, Any]] = Field(default_factory=list)
    corroborations: list[dict[str, Any]] = Field(default_factory=list)
    created_at: str = ""
    updated_at: str = ""

    def record(self) -> FactRecord:
        """The fact record this line describes."""
        return FactRecord(**self.model_dump())


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


def parse_line(path: Path, number: int, line: bytes, categories: Sequence[str]) -> FactLine:
    """One line as a FactLine; a UsageError naming the line and what is wrong with it."""
    try:
        fact = FactLine.model_validate_json(line)
    except ValidationError as exc:
        raise UsageError(f"{path}:{number}: not a fact export line: {_problem(exc)}; nothing was imported") from None
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
    for number, line in _lines(path):
        fact = parse_line(path, number, line, categories)
        if fact.uid in seen:
            raise UsageError(f"{path}:{number}: uid {fact.uid!r} is repeated (first on line {seen[fact.uid]}); "
                             "nothing was imported")
        seen[fact.uid] = number
        promoted += fact.status is FactStatus.PROMOTED
    return FileCheck(len(seen), promoted)


def read_facts(path: Path, categories: Sequence[str]) -> Iterator[FactRecord]:
    """The records of a checked export, one at a time."""
    for number, line in _lines(path):
        yield parse_line(path, number, line, categories).record()
