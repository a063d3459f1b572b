"""Articles in the database: one row per topic (the latest version), with its text and the worker who wrote it.

The Markdown files stay the article's home on the machine that wrote it; the row lets any machine
of a team list and read every article. Recording is an upsert on the topic, so a stage redone after
a crash leaves one row.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nonseq.db import now, transaction


def record(conn: Any, *, topic_id: int | None, path: Path, title: str, status: str, worker: str,
           meta: dict[str, Any] | None = None) -> None:
    """Keep (or replace) the topic's article row, text included."""
    stamp = now()
    body = Path(path).read_text(encoding="utf-8")
    with transaction(conn):
        row = conn.execute("SELECT created_at FROM articles WHERE topic_id=?", (topic_id,)).fetchone() \
            if topic_id is not None else None
        conn.execute(
            "INSERT OR REPLACE INTO articles (topic_id, slug, title, status, worker, path, body, meta, created_at,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (topic_id, Path(path).stem, title, status, worker, str(path), body,
             json.dumps(meta or {}, ensure_ascii=False, default=str), row[0] if row else stamp, stamp))


def list_rows(conn: Any) -> list[dict[str, Any]]:
    """Every article in the database, newest first: topic_id, title, slug, status, worker, path, dates."""
    rows = conn.execute("SELECT topic_id, title, slug, status, worker, path, created_at, updated_at FROM articles"
                        " ORDER BY updated_at DESC, id DESC").fetchall()
    return [{key: row[key] for key in ("topic_id", "title", "slug", "status", "worker", "path", "created_at",
                                       "updated_at")} for row in rows]


def body_of(conn: Any, slug: str) -> str | None:
    """The text of the article with this slug (file stem), or None."""
    row = conn.execute("SELECT body FROM articles WHERE slug=? ORDER BY id DESC LIMIT 1", (slug,)).fetchone()
    return str(row[0]) if row else None
