"""Fact records in SQLite: the row type, reads, inserts and status moves (each decision timed)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
from pydantic import ConfigDict

from nonseq.db import now, transaction
from nonseq.errors import ConflictError, NotFoundError, UsageError
from nonseq.models import FactKind, FactStatus

KINDS = tuple(str(k) for k in FactKind)
STATUSES = tuple(str(s) for s in FactStatus)
#: Statuses a fact can be promoted from.
PROMOTABLE = (FactStatus.KEPT, FactStatus.EDITED)
#: Statuses whose facts absorb near-duplicates as corroborating sources.
LIVE = (FactStatus.PENDING, FactStatus.KEPT, FactStatus.EDITED, FactStatus.PROMOTED)
#: The extractor name of facts picked verbatim from the page; of hand-written text.
EXTRACTIVE, HUMAN = "extractive", "human"


@dataclass
class FactRecord:
    """A fact under review or in the knowledge base, with the evidence that stays after the wipe."""

    #: How an export line is read into a record (pydantic, see knowledge.factfile): types exact.
    __pydantic_config__ = ConfigDict(strict=True, extra="ignore")

    text: str
    category: str
    #: The database id (0 until the fact is stored).
    id: int = 0
    uid: str = ""
    kind: FactKind = FactKind.TOPIC
    topic_id: int | None = None
    topic_slug: str = ""
    url: str = ""
    title: str = ""
    domain: str = ""
    published: str = ""
    fetched_at: str = ""
    quote: str = ""
    quote_start: int = -1
    quote_end: int = -1
    #: The document pages the quote stands on (a PDF's; empty for web pages).
    pages: list[int] = field(default_factory=list)
    extractor: str = ""
    support: float | None = None
    flags: list[str] = field(default_factory=list)
    status: FactStatus = FactStatus.PENDING
    original_text: str = ""
    decisions: list[dict[str, Any]] = field(default_factory=list)
    corroborations: list[dict[str, Any]] = field(default_factory=list)
    point_id: str = ""
    collection: str = ""
    created_at: str = ""
    updated_at: str = ""

    def __post_init__(self) -> None:
        """Kind and status as their enums (they arrive as text from JSON files and forms)."""
        self.kind = check_kind(str(self.kind))
        self.status = FactStatus(check_status(str(self.status)))

    @property
    def sources(self) -> int:
        """How many sources back the fact (its own plus the corroborating ones)."""
        return 1 + len(self.corroborations)

    @property
    def evergreen(self) -> bool:
        """True for background knowledge that is not tied to the topic."""
        return self.kind is FactKind.EVERGREEN

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (`topic` is the topic's slug)."""
        data = asdict(self)
        data["topic"] = self.topic_slug
        data["sources"] = self.sources
        return data


_COLUMNS = ("uid", "topic_id", "topic_slug", "category", "kind", "text", "original_text", "url",
            "title", "domain", "published", "fetched_at", "quote", "quote_start", "quote_end", "pages",
            "extractor", "support", "flags", "status", "decisions", "corroborations", "point_id",
            "collection", "created_at", "updated_at")
_JSON = ("flags", "decisions", "corroborations", "pages")


def _from_row(row: sqlite3.Row) -> FactRecord:
    """A record from a facts row."""
    data = {k: row[k] for k in _COLUMNS}
    for key in _JSON:
        data[key] = json.loads(data[key] or "[]")
    return FactRecord(id=row["id"], **data)


def _values(fact: FactRecord) -> list[Any]:
    """Column values of a record, JSON fields serialised."""
    out = []
    for key in _COLUMNS:
        value = getattr(fact, key)
        out.append(json.dumps(value, ensure_ascii=False) if key in _JSON
                   else str(value) if isinstance(value, FactKind | FactStatus) else value)
    return out


def check_kind(kind: str) -> FactKind:
    """The kind, or a UsageError naming the allowed ones."""
    if kind not in KINDS:
        raise UsageError(f"unknown kind {kind!r} (one of {', '.join(KINDS)})")
    return FactKind(kind)


def check_status(status: str) -> str:
    """The status, or a UsageError naming the allowed ones."""
    if status not in STATUSES:
        raise UsageError(f"unknown status {status!r} (one of {', '.join(STATUSES)})")
    return status


def insert(conn: sqlite3.Connection, fact: FactRecord, vector: np.ndarray | None = None,
           model: str = "") -> int:
    """Insert a fact (inside the caller's transaction); returns its id."""
    stamp = now()
    fact.uid = fact.uid or uuid.uuid4().hex
    fact.created_at = fact.created_at or stamp
    fact.updated_at = fact.updated_at or stamp
    if not fact.decisions:
        fact.decisions = [{"status": fact.status, "at": stamp}]
    cols = ", ".join((*_COLUMNS, "vector", "vector_model"))
    marks = ", ".join("?" * (len(_COLUMNS) + 2))
    blob = np.asarray(vector, dtype=np.float32).tobytes() if vector is not None else None
    cur = conn.execute(f"INSERT INTO facts ({cols}) VALUES ({marks})",
                       (*_values(fact), blob, model if vector is not None else ""))
    fact.id = int(cur.lastrowid or 0)
    return fact.id


def stamp() -> str:
    """The current UTC time to the microsecond: a fact's updated_at, which tells an editor's edit is stale."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def claim_edit(conn: sqlite3.Connection, fact: FactRecord, seen: str, by: str) -> None:
    """Inside the caller's transaction: mark the fact as changed by `by`, or refuse in one line when it
    changed since `seen` (its updated_at when it was shown), naming who changed it and when."""
    cursor = conn.execute("UPDATE facts SET updated_by=?, revision=revision+1 WHERE id=? AND updated_at=?",
                          (by, fact.id, seen))
    if not cursor.rowcount:
        refuse_changed(conn, int(fact.id or 0))


def refuse_changed(conn: sqlite3.Connection, fact_id: int) -> None:
    """Raise the one-line ConflictError naming who changed the fact last, and when."""
    row = conn.execute("SELECT updated_by, updated_at FROM facts WHERE id=?", (fact_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no fact #{fact_id} (it was removed since it was shown)")
    who = row["updated_by"] or "another process"
    raise ConflictError(f"fact #{fact_id} was changed by {who} at {row['updated_at']} since it was shown "
                        "(nothing saved): show it again and redo the change")


def update(conn: sqlite3.Connection, fact: FactRecord, vector: np.ndarray | None = None,
           model: str = "") -> None:
    """Write a record's fields back (and its vector when given), inside the caller's transaction."""
    fact.updated_at = stamp()
    sets = ", ".join(f"{k}=?" for k in _COLUMNS)
    conn.execute(f"UPDATE facts SET {sets} WHERE id=?", (*_values(fact), fact.id))
    if vector is not None:
        conn.execute("UPDATE facts SET vector=?, vector_model=? WHERE id=?",
                     (np.asarray(vector, dtype=np.float32).tobytes(), model, fact.id))


def set_vector(conn: sqlite3.Connection, fact_id: int, vector: np.ndarray, model: str) -> None:
    """Replace a fact's stored vector (inside the caller's transaction)."""
    conn.execute("UPDATE facts SET vector=?, vector_model=? WHERE id=?",
                 (np.asarray(vector, dtype=np.float32).tobytes(), model, int(fact_id)))


def decide(fact: FactRecord, status: FactStatus | str, note: str = "", by: str = "") -> None:
    """Move a record to a status and log the decision with its time (and who made it)."""
    fact.status = FactStatus(check_status(str(status)))
    entry = {"status": str(fact.status), "at": now()}
    if note:
        entry["note"] = note
    if by:
        entry["by"] = by
    fact.decisions.append(entry)


def get(conn: sqlite3.Connection, fact_id: int) -> FactRecord:
    """One fact by id, or NotFoundError (also for an id beyond SQLite's 64-bit range)."""
    fact_id = int(fact_id)
    row = conn.execute("SELECT * FROM facts WHERE id=?", (fact_id,)).fetchone() if 0 < fact_id < 2**63 else None
    if row is None:
        raise NotFoundError(f"no fact #{fact_id} (see `nonseq knowledge list`)")
    return _from_row(row)


def get_many(conn: sqlite3.Connection, ids: Sequence[int]) -> list[FactRecord]:
    """Facts by id, in the order given; NotFoundError names the first missing one."""
    return [get(conn, i) for i in dict.fromkeys(int(i) for i in ids)]


def select(conn: sqlite3.Connection, *, statuses: Iterable[str] | None = None,
           topic_id: int | None = None, category: str | None = None) -> list[FactRecord]:
    """Facts matching every filter given, oldest first."""
    where: list[str] = []
    args: list[str | int] = []
    if statuses is not None:
        wanted = [str(s) for s in statuses]
        where.append(f"status IN ({', '.join('?' * len(wanted))})")
        args.extend(wanted)
    if topic_id is not None:
        where.append("topic_id=?")
        args.append(int(topic_id))
    if category is not None:
        where.append("category=?")
        args.append(category)
    sql = "SELECT * FROM facts" + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY id"
    return [_from_row(r) for r in conn.execute(sql, args)]


def vectors(conn: sqlite3.Connection, category: str, model: str) -> tuple[list[int], list[str],
                                                                         np.ndarray | None]:
    """(ids, statuses, matrix) of the category's facts embedded with `model` (for dedup)."""
    rows = conn.execute("SELECT id, status, vector FROM facts WHERE category=? AND vector_model=?"
                        " AND vector IS NOT NULL ORDER BY id", (category, model)).fetchall()
    if not rows:
        return [], [], None
    matrix = np.stack([np.frombuffer(r["vector"], dtype=np.float32) for r in rows])
    return [r["id"] for r in rows], [r["status"] for r in rows], matrix


def uids(conn: sqlite3.Connection) -> set[str]:
    """Every fact uid in the workspace."""
    return {r[0] for r in conn.execute("SELECT uid FROM facts")}


def _in_chunks(values: Sequence[Any], size: int = 500) -> Iterator[Sequence[Any]]:
    """Values in slices small enough for one SQL IN list."""
    for start in range(0, len(values), size):
        yield values[start:start + size]


def by_uid(conn: sqlite3.Connection, wanted: Sequence[str]) -> dict[str, FactRecord]:
    """The facts with these uids (the ones that exist), by uid."""
    found: dict[str, FactRecord] = {}
    for part in _in_chunks(list(wanted)):
        rows = conn.execute(f"SELECT * FROM facts WHERE uid IN ({', '.join('?' * len(part))})", list(part))
        found.update((r["uid"], _from_row(r)) for r in rows)
    return found


def stored_vectors(conn: sqlite3.Connection, ids: Sequence[int], model: str) -> dict[int, np.ndarray]:
    """The vectors SQLite holds for these facts, embedded with `model`, by fact id."""
    out: dict[int, np.ndarray] = {}
    for part in _in_chunks([int(i) for i in ids]):
        rows = conn.execute(f"SELECT id, vector FROM facts WHERE vector_model=? AND vector IS NOT NULL"
                            f" AND id IN ({', '.join('?' * len(part))})", [model, *part])
        out.update((r["id"], np.frombuffer(r["vector"], dtype=np.float32)) for r in rows)
    return out


def iter_facts(conn: sqlite3.Connection, statuses: Iterable[str], page: int = 512) -> Iterator[list[FactRecord]]:
    """Facts with these statuses, oldest first, a page at a time (bounded memory)."""
    wanted = [str(s) for s in statuses]
    last = 0
    while True:
        rows = conn.execute(f"SELECT * FROM facts WHERE status IN ({', '.join('?' * len(wanted))}) AND id>?"
                            " ORDER BY id LIMIT ?", [*wanted, last, page]).fetchall()
        if not rows:
            return
        yield [_from_row(r) for r in rows]
        last = rows[-1]["id"]


def extracted_urls(conn: sqlite3.Connection, topic_id: int) -> set[str]:
    """URLs of the topic whose extraction finished."""
    rows = conn.execute("SELECT url FROM fact_extractions WHERE topic_id=?", (int(topic_id),))
    return {r[0] for r in rows}


def mark_extracted(conn: sqlite3.Connection, topic_id: int, url: str, extractor: str,
                   facts: int, merged: int) -> None:
    """Record a finished page (inside the caller's transaction, with its facts)."""
    conn.execute("INSERT OR REPLACE INTO fact_extractions VALUES (?, ?, ?, ?, ?, ?)",
                 (int(topic_id), url, extractor, facts, merged, now()))


def save(conn: sqlite3.Connection, facts: Sequence[FactRecord]) -> None:
    """Write several records back in one transaction."""
    with transaction(conn):
        for fact in facts:
            update(conn, fact)
