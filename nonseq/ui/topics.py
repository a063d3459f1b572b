"""Views of the queue: the queue table, and one topic with its history and sources."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.table import Table

from nonseq.ui.console import console, safe, wide

if TYPE_CHECKING:
    from nonseq.pipeline.topics import TopicDetails


def queue_table(rows: Sequence[dict[str, Any]], title: str | None = None, name: str = "title") -> Table:
    """The queue (rows of queue.overview): id, the topic's `name` (title or slug), category, stage,
    priority; chunks, the last verdict, persona/schema and focus where the terminal has room."""
    roomy = wide()
    table = Table(title=title or f"Queue: {len(rows)} topic(s)", title_justify="left")
    topics = [r["topic"] for r in rows]
    # id, stage and priority never shrink; the title folds; extras only where there is room.
    table.add_column("id", justify="right", no_wrap=True, min_width=max((len(str(t.id)) for t in topics), default=2))
    table.add_column(name, overflow="fold", min_width=12)
    table.add_column("category", overflow="fold")
    table.add_column("stage", no_wrap=True, min_width=max((len(t.stage) for t in topics), default=5))
    table.add_column("pri", justify="right", no_wrap=True, min_width=3)
    if roomy:
        table.add_column("chunks", justify="right", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        table.add_column("persona/schema", overflow="ellipsis", no_wrap=True, max_width=20)
        table.add_column("focus", overflow="ellipsis", no_wrap=True, max_width=30)
    for row in rows:
        t = row["topic"]
        extra = [str(row.get("chunks", "")), row.get("verdict") or "-",
                 "/".join(p for p in (t.persona, t.schema) if p), safe(t.focus)] if roomy else []
        table.add_row(str(t.id), safe(getattr(t, name)), t.category, str(t.stage), str(t.priority), *extra)
    return table


def print_queue(rows: Sequence[dict[str, Any]]) -> None:
    """The queue table, or how to start one."""
    if not rows:
        console.print("the queue is empty: add a topic with `nonseq queue add TITLE --category C`")
        return
    console.print(queue_table(rows, f"{len(rows)} topic(s)", name="slug"))
    if not wide():
        console.print("(chunks, verdict, focus, persona and schema: `nonseq queue show ID`, or a wider terminal)")


def print_topic(details: TopicDetails) -> None:
    """A topic's fields, stage history and source counts."""
    topic = details.topic
    console.print(f"[bold]#{topic.id} {safe(topic.title)}[/bold]  ({topic.slug})")
    for key in ("category", "stage", "focus", "persona", "schema", "priority", "error"):
        value = getattr(topic, key)
        if value not in ("", None):
            console.print(f"  {key}: {safe(value)}")
    for q in topic.sub_queries:
        console.print(f"  query: {safe(q)}")
    console.print("history:")
    for m in details.history:
        console.print(f"  {m['at']}  {m['from'] or '-'} → {m['to']}  {safe(m['reason'])}")
    if details.sources:
        fetched = sum(1 for s in details.sources if s.outcome == "fetched")
        console.print(f"sources: {len(details.sources)} recorded, {fetched} fetched")
