"""Unattended night runs: write the queue's topics in priority order, never asking, logging JSON lines."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nonseq import queue
from nonseq.db import now, transaction
from nonseq.errors import NonseqError
from nonseq.models import Stage

#: Stages a night run picks up (interrupted ones resume where they stopped).
RUNNABLE = (Stage.QUEUED, Stage.RESEARCHING, Stage.RESEARCHED, Stage.GATED, Stage.WRITING)


def log_line(path: Path, event: str, **fields: Any) -> None:
    """Append one JSON line to the night log."""
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"at": now(), "event": event, **fields}
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")


def run_night(ws: Any, limit: int | None = None,
              on_topic: Callable[[str, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Write up to `limit` runnable topics; THIN research ends as insufficient_research."""
    from nonseq.writer import write_topic

    log = ws.data_dir / ws.settings.night.log_file
    limit = limit or ws.settings.night.max_topics
    topics = queue.list_topics(ws.db, RUNNABLE)[:limit]
    started = time.perf_counter()
    with transaction(ws.db):
        run_id = ws.db.execute("INSERT INTO night_runs (started_at) VALUES (?)", (now(),)).lastrowid
    log_line(log, "start", run=run_id, topics=[t.slug for t in topics])
    counts: dict[str, int] = {}
    for topic in topics:
        try:
            result = write_topic(ws, topic.id, decide=None)
            entry = result.to_dict()
        except Exception as exc:  # noqa: BLE001 - one topic's failure must not end the night
            message = str(exc) if isinstance(exc, NonseqError) else f"{type(exc).__name__}: {exc}"
            entry = {"topic": topic.slug, "outcome": "failed", "error": message}
            current = queue.get_topic(ws.db, topic.id)
            if current.stage is not Stage.FAILED:
                queue.move(ws.db, topic.id, Stage.FAILED, reason=message)
        counts[entry["outcome"]] = counts.get(entry["outcome"], 0) + 1
        log_line(log, "topic", run=run_id, **entry)
        if on_topic:
            on_topic(topic.slug, entry)
    summary = {"run": run_id, "topics": len(topics), "outcomes": counts,
               "seconds": round(time.perf_counter() - started, 1), "log": str(log)}
    with transaction(ws.db):
        ws.db.execute("UPDATE night_runs SET finished_at=?, summary=? WHERE id=?",
                      (now(), json.dumps(summary), run_id))
    log_line(log, "end", **summary)
    return summary
