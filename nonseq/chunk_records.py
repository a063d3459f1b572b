"""Research chunk records in SQLite: the text and payload of every research point while its topic is active.

Written with each batch research indexes (before its points), moved with the topic's category,
removed with stale points, with the topic and when promotion wipes its research. The vector store's
research points can therefore always be rebuilt from SQLite (`nonseq store rebuild`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from nonseq.db import transaction
from nonseq.models import Chunk

#: Payload keys research writes on every point (see pipeline.research RUN_KEY, ORIGIN_KEY).
RUN_KEY, ORIGIN_KEY = "run_id", "origin"


def record(conn: sqlite3.Connection, topic_id: int, collection: str, chunks: Sequence[Chunk]) -> None:
    """Keep the chunks of a batch (replacing earlier copies of the same points), in one transaction."""
    rows = []
    for chunk in chunks:
        payload = chunk.to_payload()
        text = payload.pop("text", "")
        rows.append((chunk.point_id(), int(topic_id), collection, json.dumps(payload, ensure_ascii=False), text))
    with transaction(conn):
        conn.executemany("INSERT OR REPLACE INTO research_chunks VALUES (?, ?, ?, ?, ?)", rows)


def chunks_of(conn: sqlite3.Connection, collection: str | None = None,
              topic_id: int | None = None) -> Iterator[tuple[str, Chunk]]:
    """(point id, chunk) of the kept research chunks, of one collection and/or topic."""
    where, args = [], []
    if collection is not None:
        where.append("collection=?")
        args.append(collection)
    if topic_id is not None:
        where.append("topic_id=?")
        args.append(str(int(topic_id)))
    sql = "SELECT point_id, payload, text FROM research_chunks" + (f" WHERE {' AND '.join(where)}" if where else "")
    for row in conn.execute(sql + " ORDER BY rowid", args):
        payload = json.loads(row[1])
        payload["text"] = row[2]
        yield row[0], Chunk.from_payload(payload)


def point_ids(conn: sqlite3.Connection, collection: str) -> set[str]:
    """The point ids research chunks of a collection must have."""
    return {r[0] for r in conn.execute("SELECT point_id FROM research_chunks WHERE collection=?", (collection,))}


def collections(conn: sqlite3.Connection) -> list[str]:
    """The research collections that hold kept chunks."""
    return [r[0] for r in conn.execute("SELECT DISTINCT collection FROM research_chunks ORDER BY collection")]


def forget_topic(conn: sqlite3.Connection, topic_id: int) -> int:
    """Drop a topic's chunk records (its research was wiped); returns how many."""
    with transaction(conn):
        return conn.execute("DELETE FROM research_chunks WHERE topic_id=?", (int(topic_id),)).rowcount


def forget_stale(conn: sqlite3.Connection, topic_id: int, run_id: str, *, urls: Sequence[str] | None = None,
                 keep_origins: Sequence[str] = ()) -> int:
    """Drop the topic's records a finished run replaced: not written by `run_id`, and either of the
    re-read `urls` (runs over the user's own sources) or of no origin in `keep_origins` (searches)."""
    sql = ("DELETE FROM research_chunks WHERE topic_id=? AND "
           f"coalesce(json_extract(payload, '$.{RUN_KEY}'), '') != ?")
    args: list[Any] = [int(topic_id), run_id]
    if urls is not None:
        sql += f" AND json_extract(payload, '$.url') IN ({', '.join('?' * len(urls))})"
        args.extend(urls)
    if keep_origins:
        sql += (f" AND coalesce(json_extract(payload, '$.{ORIGIN_KEY}'), '') NOT IN "
                f"({', '.join('?' * len(keep_origins))})")
        args.extend(keep_origins)
    with transaction(conn):
        return conn.execute(sql, args).rowcount


def move_topic(conn: sqlite3.Connection, topic_id: int, collection: str, category: str) -> None:
    """Point a topic's records at its new research collection and category (inside the caller's transaction)."""
    conn.execute("UPDATE research_chunks SET collection=?, payload=json_set(payload, '$.category', ?)"
                 " WHERE topic_id=?", (collection, category, int(topic_id)))
