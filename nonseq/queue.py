"""The topic queue: topics, their stages and the only allowed stage moves."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import unicodedata
from collections.abc import Iterable
from typing import Any

from nonseq.db import now, transaction
from nonseq.errors import NotFoundError, StageError, UsageError
from nonseq.models import Outcome, Source, Stage, Topic
from nonseq.text.urls import strip_credentials

#: Every allowed stage move; anything else is refused. Any stage may also move to FAILED.
ALLOWED_MOVES: dict[Stage, frozenset[Stage]] = {
    Stage.QUEUED: frozenset({Stage.RESEARCHING}),
    # researched → researching: research again (more sources, or a resumed run).
    Stage.RESEARCHING: frozenset({Stage.RESEARCHED}),
    Stage.RESEARCHED: frozenset({Stage.GATED, Stage.RESEARCHING}),
    # gated → researching: the gate only judges; more sources (own or Uber) can still come in.
    Stage.GATED: frozenset({Stage.WRITING, Stage.THIN, Stage.RESEARCHING}),
    # thin → gated: judged again OK (e.g. after [gate] settings changed).
    Stage.THIN: frozenset({Stage.RESEARCHING, Stage.INSUFFICIENT, Stage.WRITING, Stage.GATED}),
    # writing → draft: the reply failed the quality gate (kept as a draft article).
    Stage.WRITING: frozenset({Stage.WRITTEN, Stage.DRAFT}),
    # draft → writing: `write` on a draft writes again (a new file beside the draft).
    Stage.DRAFT: frozenset({Stage.WRITING}),
    # written → writing: `write --force` writes a new version.
    Stage.WRITTEN: frozenset({Stage.WRITING}),
    # insufficient → researched (`queue retry`, research kept) or researching (new sources).
    Stage.INSUFFICIENT: frozenset({Stage.RESEARCHED, Stage.RESEARCHING}),
    # failed → researched: a topic that failed after its research finished resumes at the gate.
    Stage.FAILED: frozenset({Stage.QUEUED, Stage.RESEARCHED}),
}
#: A topic that failed from one of these stages still has its complete research.
RESEARCH_KEPT = frozenset({Stage.RESEARCHED, Stage.GATED, Stage.THIN, Stage.WRITING})

#: Largest priority (and topic id) SQLite's 64-bit integers hold.
MAX_PRIORITY = 2**63 - 1
EDITABLE = ("title", "category", "focus", "sub_queries", "persona", "schema", "priority")


def can_move(current: Stage, target: Stage) -> bool:
    """True when current → target is an allowed move."""
    if target is Stage.FAILED:
        return current is not Stage.FAILED
    return target in ALLOWED_MOVES[current]


def slugify(text: str, max_length: int = 60) -> str:
    """A lower-case ASCII slug from a title in any script ("" only when the text has no letter, digit or symbol).

    Latin titles keep the slug they always had; other scripts are transliterated (python-slugify);
    text with nothing to transliterate (emoji, symbols) gets a stable slug from its hash.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    if all(c.isascii() for c in decomposed if c.isalnum()):
        slug = _ascii_slug(decomposed, max_length)
        if slug:
            return slug
    from slugify import slugify as transliterate

    slug = transliterate(text, max_length=max_length, word_boundary=False)
    if slug:
        return slug.rstrip("-")
    if not any(unicodedata.category(c)[0] in "LNS" for c in text):
        return ""
    return "t-" + hashlib.sha256(unicodedata.normalize("NFC", text.strip()).encode()).hexdigest()[:12]


def _ascii_slug(text: str, max_length: int) -> str:
    """The original slug: ASCII letters and digits of the NFKD text, runs of anything else as one '-'."""
    ascii_text = text.encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:max_length].rstrip("-")


def _row_to_topic(row: sqlite3.Row) -> Topic:
    """Build a Topic from a topics row."""
    return Topic(
        id=row["id"],
        title=row["title"],
        slug=row["slug"],
        category=row["category"],
        focus=row["focus"],
        sub_queries=json.loads(row["sub_queries"]),
        persona=row["persona"],
        schema=row["schema"],
        priority=row["priority"],
        stage=Stage(row["stage"]),
        error=row["error"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def _check_fields(title: str, category: str, categories: Iterable[str], priority: int = 0) -> None:
    """Refuse empty titles, unknown categories and priorities SQLite cannot hold."""
    if not title.strip():
        raise UsageError("title must not be empty")
    if not -MAX_PRIORITY <= priority <= MAX_PRIORITY:
        raise UsageError(f"priority {priority} is out of range (-{MAX_PRIORITY} to {MAX_PRIORITY})")
    allowed = list(categories)
    if category not in allowed:
        raise UsageError(f"unknown category {category!r} (allowed: {', '.join(allowed)})")


def insert_topic(
    conn: sqlite3.Connection,
    title: str,
    category: str,
    categories: Iterable[str],
    *,
    focus: str = "",
    sub_queries: list[str] | None = None,
    persona: str = "",
    schema: str = "explainer",
    priority: int = 0,
    slug: str | None = None,
) -> Topic:
    """Insert a topic record; refuses empty titles, unknown categories and duplicate slugs.

    The persona and schema are not checked here: `pipeline.topics.add_topic` does that (and calls this).
    """
    _check_fields(title, category, categories, priority)
    slug = slugify(slug or title)
    if not slug:
        raise UsageError(f"cannot make a slug from {title!r}: use letters or digits")
    queries = [q.strip() for q in (sub_queries or []) if q.strip()]
    stamp = now()
    try:
        with transaction(conn):
            cur = conn.execute(
                "INSERT INTO topics (title, slug, category, focus, sub_queries, persona, schema,"
                " priority, stage, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (title.strip(), slug, category, focus.strip(), json.dumps(queries), persona,
                 schema, priority, Stage.QUEUED.value, stamp, stamp),
            )
            conn.execute(
                "INSERT INTO stage_history (topic_id, from_stage, to_stage, reason, at)"
                " VALUES (?, NULL, ?, 'added', ?)",
                (cur.lastrowid, Stage.QUEUED.value, stamp),
            )
    except sqlite3.IntegrityError:
        raise UsageError(f"a topic with slug {slug!r} already exists") from None
    return get_topic(conn, cur.lastrowid)


def get_topic(conn: sqlite3.Connection, ref: int | str | None) -> Topic:
    """A topic by id or slug; NotFoundError when there is none."""
    text = str(ref).strip() if ref is not None else ""
    if text.isdigit():
        number = int(text)
        row = conn.execute("SELECT * FROM topics WHERE id = ?", (number,)).fetchone() \
            if number <= MAX_PRIORITY else None
    else:  # a slug, or the title as written (any script)
        row = conn.execute("SELECT * FROM topics WHERE slug = ?", (text,)).fetchone() or \
            conn.execute("SELECT * FROM topics WHERE title = ? ORDER BY id LIMIT 1", (text,)).fetchone()
    if row is None:
        raise NotFoundError(f"no topic {text!r} (see `nonseq queue list`)")
    return _row_to_topic(row)


def list_topics(conn: sqlite3.Connection, stages: Iterable[Stage] | None = None) -> list[Topic]:
    """Topics by priority (high first), then age; optionally only some stages."""
    rows = conn.execute("SELECT * FROM topics ORDER BY priority DESC, id ASC").fetchall()
    topics = [_row_to_topic(r) for r in rows]
    if stages is not None:
        wanted = set(stages)
        topics = [t for t in topics if t.stage in wanted]
    return topics


def check_edit(
    conn: sqlite3.Connection, ref: int | str, categories: Iterable[str], **changes: Any
) -> Topic:
    """The topic as an edit would leave it, checked but not saved (None values are left alone)."""
    topic = get_topic(conn, ref)
    changes = {k: v for k, v in changes.items() if v is not None}
    if not changes:
        raise UsageError("nothing to change: give at least one of "
                         + ", ".join(f"--{k.replace('sub_queries', 'query')}" for k in EDITABLE))
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise UsageError(f"cannot edit {', '.join(sorted(unknown))}")
    for key, value in changes.items():
        setattr(topic, key, value)
    _check_fields(topic.title, topic.category, categories, topic.priority)
    return topic


def edit_topic(
    conn: sqlite3.Connection, ref: int | str, categories: Iterable[str], **changes: Any
) -> Topic:
    """Change a topic's editable fields (None values are left alone)."""
    topic = check_edit(conn, ref, categories, **changes)
    with transaction(conn):
        conn.execute(
            "UPDATE topics SET title=?, category=?, focus=?, sub_queries=?, persona=?, schema=?,"
            " priority=?, updated_at=? WHERE id=?",
            (topic.title.strip(), topic.category, topic.focus, json.dumps(topic.sub_queries),
             topic.persona, topic.schema, topic.priority, now(), topic.id),
        )
    return get_topic(conn, topic.id)


def remove_topic(conn: sqlite3.Connection, ref: int | str) -> Topic:
    """Delete a topic, its history and its source records (vectors are the caller's job)."""
    topic = get_topic(conn, ref)
    with transaction(conn):
        conn.execute("DELETE FROM topics WHERE id = ?", (topic.id,))
    return topic


def move(
    conn: sqlite3.Connection, ref: int | str, target: Stage, reason: str = "",
    data: dict[str, Any] | None = None,
) -> Topic:
    """Move a topic to another stage if the move is allowed; record it in the history."""
    topic = get_topic(conn, ref)
    if not can_move(topic.stage, target):
        raise StageError(
            f"topic {topic.slug!r} cannot move from {topic.stage} to {target}"
        )
    stamp = now()
    error = reason if target is Stage.FAILED else ""
    with transaction(conn):
        conn.execute(
            "UPDATE topics SET stage=?, error=?, updated_at=? WHERE id=?",
            (target.value, error, stamp, topic.id),
        )
        conn.execute(
            "INSERT INTO stage_history (topic_id, from_stage, to_stage, reason, data, at)"
            " VALUES (?,?,?,?,?,?)",
            (topic.id, topic.stage.value, target.value, reason,
             json.dumps(data) if data else "", stamp),
        )
    return get_topic(conn, topic.id)


def retry(conn: sqlite3.Connection, ref: int | str) -> Topic:
    """Reopen a topic: failed → queued; insufficient_research → researched (its research is kept)."""
    topic = get_topic(conn, ref)
    if topic.stage is Stage.FAILED:
        return reopen_failed(conn, topic.id)
    if topic.stage is Stage.INSUFFICIENT:
        return move(conn, topic.id, Stage.RESEARCHED,
                    reason="reopened: research kept; add sources, run `uber`, or write again")
    raise StageError(f"topic {topic.slug!r} is {topic.stage}: only failed or insufficient_research "
                     "topics can be retried")


def failed_from(conn: sqlite3.Connection, topic_id: int) -> Stage | None:
    """The stage a failed topic failed from (None when unknown)."""
    row = conn.execute("SELECT from_stage FROM stage_history WHERE topic_id = ? AND to_stage = ?"
                       " ORDER BY id DESC LIMIT 1", (topic_id, Stage.FAILED.value)).fetchone()
    try:
        return Stage(row["from_stage"]) if row and row["from_stage"] else None
    except ValueError:
        return None


def reopen_failed(conn: sqlite3.Connection, ref: int | str, reason: str = "retry") -> Topic:
    """failed → researched when its research was complete (it resumes at the gate), else → queued."""
    topic = get_topic(conn, ref)
    if failed_from(conn, topic.id) in RESEARCH_KEPT:
        return move(conn, topic.id, Stage.RESEARCHED, reason=f"{reason}: research kept, resumes at the gate")
    return move(conn, topic.id, Stage.QUEUED, reason=reason)


def fail(conn: sqlite3.Connection, ref: int | str, error: BaseException | str, *, prefix: str = "",
         transient: bool | None = None) -> Topic:
    """Move a topic to failed with a one-line error, recording whether a later retry may help.

    A topic already failed keeps its first error.
    """
    from nonseq.errors import NonseqError, is_transient

    if isinstance(error, BaseException):
        text = str(error) if isinstance(error, NonseqError) else f"{type(error).__name__}: {error}"
        transient = is_transient(error) if transient is None else transient
    else:
        text = error
    topic = get_topic(conn, ref)
    if topic.stage is Stage.FAILED:
        return topic
    reason = prefix + (" ".join(text.split())[:500] or "failed")
    return move(conn, topic.id, Stage.FAILED, reason=reason, data={"transient": bool(transient)})


def failures(conn: sqlite3.Connection, topic_id: int) -> list[dict[str, Any]]:
    """A topic's failures, oldest first: {"reason", "transient", "at"}."""
    rows = conn.execute("SELECT reason, data, at FROM stage_history WHERE topic_id = ? AND to_stage = ?"
                        " AND from_stage != to_stage ORDER BY id", (topic_id, Stage.FAILED.value))
    out = []
    for row in rows:
        data = json.loads(row["data"]) if row["data"] else {}
        out.append({"reason": row["reason"], "transient": bool(data.get("transient")), "at": row["at"]})
    return out


def note(conn: sqlite3.Connection, ref: int | str, reason: str, data: dict[str, Any] | None = None) -> None:
    """Record an event in a topic's history without moving it (e.g. a gate verdict)."""
    topic = get_topic(conn, ref)
    with transaction(conn):
        conn.execute(
            "INSERT INTO stage_history (topic_id, from_stage, to_stage, reason, data, at) VALUES (?,?,?,?,?,?)",
            (topic.id, topic.stage.value, topic.stage.value, reason, json.dumps(data) if data else "", now()),
        )


def history(conn: sqlite3.Connection, ref: int | str) -> list[dict[str, Any]]:
    """A topic's stage moves, oldest first."""
    topic = get_topic(conn, ref)
    rows = conn.execute(
        "SELECT from_stage, to_stage, reason, data, at FROM stage_history"
        " WHERE topic_id = ? ORDER BY id",
        (topic.id,),
    ).fetchall()
    return [
        {"from": r["from_stage"], "to": r["to_stage"], "reason": r["reason"],
         "data": json.loads(r["data"]) if r["data"] else None, "at": r["at"]}
        for r in rows
    ]


def record_sources(conn: sqlite3.Connection, topic: Topic, sources: Iterable[Source]) -> int:
    """Store (or replace) each source's fetch outcome for a topic; returns the count."""
    rows = [
        (topic.id, strip_credentials(s.url), strip_credentials(s.final_url), s.domain, s.status, str(s.outcome),
         s.reason, s.bytes, s.seconds, s.title, s.content_hash, s.trust_boost, now())
        for s in sources
    ]
    with transaction(conn):
        conn.executemany(
            "INSERT OR REPLACE INTO sources (topic_id, url, final_url, domain, status, outcome,"
            " reason, bytes, seconds, title, content_hash, trust_boost, at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )
    return len(rows)


def list_sources(conn: sqlite3.Connection, topic: Topic) -> list[Source]:
    """The recorded sources of a topic, in the order they were recorded."""
    rows = conn.execute(
        "SELECT * FROM sources WHERE topic_id = ? ORDER BY id", (topic.id,)
    ).fetchall()
    return [
        Source(url=r["url"], final_url=r["final_url"], domain=r["domain"], status=r["status"],
               outcome=Outcome(r["outcome"]), reason=r["reason"], bytes=r["bytes"],
               seconds=r["seconds"], title=r["title"], content_hash=r["content_hash"],
               topic_slug=topic.slug, trust_boost=r["trust_boost"])
        for r in rows
    ]


def overview(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Each topic (queue order) with its research chunk count and last gate verdict, read from
    the stage history in SQLite (a search run replaces the count; own sources and Uber add to it)."""
    chunks: dict[int, int] = {}
    verdicts: dict[int, str] = {}
    rows = conn.execute("SELECT topic_id, to_stage, reason, data FROM stage_history"
                        " WHERE data IS NOT NULL AND data != '' ORDER BY id").fetchall()
    for r in rows:
        data = json.loads(r["data"])
        if not isinstance(data, dict):
            continue
        if r["reason"].startswith("gate") and "status" in data:
            verdicts[r["topic_id"]] = str(data["status"])
        elif r["to_stage"] == Stage.RESEARCHED.value and "chunks" in data:
            kept = chunks.get(r["topic_id"], 0) if data.get("mode") != "search" else 0
            chunks[r["topic_id"]] = kept + int(data["chunks"])
    return [{"topic": t, "chunks": chunks.get(t.id or 0, 0), "verdict": verdicts.get(t.id or 0, "")}
            for t in list_topics(conn)]
