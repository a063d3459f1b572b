"""`nonseq queue add|list|show|edit|remove`: keep the topic queue."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from nonseq import queue
from nonseq.commands._common import (
    WIDE_COLUMNS,
    console,
    locked_workspace,
    print_json,
    safe,
    workspace,
)
from nonseq.errors import UsageError
from nonseq.models import Stage

queue_app = typer.Typer(help="Keep the topic queue: add, list, show, edit, remove, retry.",
                        no_args_is_help=True)

STAGES = ", ".join(s.value for s in Stage)


@queue_app.command("add")
def add(
    ctx: typer.Context,
    title: Annotated[str, typer.Argument(help="The article's topic")],
    category: Annotated[str, typer.Option("--category", "-c", help="One of the configured categories")],
    focus: Annotated[str, typer.Option("--focus", "-f", help="The article's direction/angle")] = "",
    query: Annotated[list[str] | None, typer.Option(
        "--query", "-q", help="A sub-query for research (repeatable)")] = None,
    persona: Annotated[str, typer.Option("--persona", help="Author voice")] = "",
    schema: Annotated[str, typer.Option("--schema", help="Article schema")] = "explainer",
    priority: Annotated[int, typer.Option("--priority", "-p", help="Higher runs first")] = 0,
    slug: Annotated[str | None, typer.Option("--slug", help="Slug (default: from the title)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the topic as JSON")] = False,
) -> None:
    """Queue a new topic."""
    ws = locked_workspace(ctx, "queue add")
    queue.check_voice(ws, persona, schema)
    topic = queue.add_topic(ws.db, title, category, ws.categories, focus=focus,
                            sub_queries=query or [], persona=persona, schema=schema,
                            priority=priority, slug=slug)
    if as_json:
        print_json(topic.to_dict())
    else:
        console.print(f"queued [bold]#{topic.id}[/bold] {topic.slug} ({topic.category})")


def _parse_stages(stage: list[str] | None) -> list[Stage] | None:
    """Stage names from --stage options; a one-line error for unknown ones."""
    if not stage:
        return None
    try:
        return [Stage(s) for s in stage]
    except ValueError:
        raise UsageError(f"unknown stage in {stage!r} (one of: {STAGES})") from None


@queue_app.command("list")
def list_(
    ctx: typer.Context,
    stage: Annotated[list[str] | None, typer.Option("--stage", "-s", help=f"Only these stages: {STAGES}")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List queued topics (highest priority first)."""
    topics = queue.list_topics(workspace(ctx).db, _parse_stages(stage))
    if as_json:
        print_json([t.to_dict() for t in topics])
        return
    if not topics:
        console.print("the queue is empty: add a topic with `nonseq queue add TITLE --category C`")
        return
    wide = console.width >= WIDE_COLUMNS
    table = Table(title=f"{len(topics)} topic(s)", title_justify="left")
    # id, stage and priority never shrink; the slug folds; extras only where there is room.
    table.add_column("id", justify="right", no_wrap=True, min_width=max(len(str(t.id)) for t in topics))
    table.add_column("slug", overflow="fold", min_width=12)
    table.add_column("category", overflow="fold")
    table.add_column("stage", no_wrap=True, min_width=max(len(t.stage) for t in topics))
    table.add_column("pri", justify="right", no_wrap=True, min_width=3)
    if wide:
        table.add_column("persona/schema", overflow="ellipsis", no_wrap=True, max_width=20)
        table.add_column("focus", overflow="ellipsis", no_wrap=True, max_width=30)
    for t in topics:
        extra = ["/".join(p for p in (t.persona, t.schema) if p), t.focus] if wide else []
        table.add_row(str(t.id), t.slug, t.category, str(t.stage), str(t.priority), *extra)
    console.print(table)
    if not wide:
        console.print("(focus, persona and schema: `nonseq queue show ID`, or a wider terminal)")


@queue_app.command("show")
def show(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Show a topic, its stage history and its fetched sources."""
    ws = workspace(ctx)
    topic = queue.get_topic(ws.db, topic_id)
    moves = queue.history(ws.db, topic.id)
    sources = queue.list_sources(ws.db, topic)
    if as_json:
        print_json({"topic": topic.to_dict(), "history": moves,
                    "sources": [s.to_dict() for s in sources]})
        return
    print_topic(topic, moves, sources)


def print_topic(topic: Any, moves: list[dict[str, Any]], sources: list[Any]) -> None:
    """A topic's fields, stage history and source counts (also the Queue menu's [s])."""
    console.print(f"[bold]#{topic.id} {safe(topic.title)}[/bold]  ({topic.slug})")
    for key in ("category", "stage", "focus", "persona", "schema", "priority", "error"):
        value = getattr(topic, key)
        if value not in ("", None):
            console.print(f"  {key}: {safe(value)}")
    for q in topic.sub_queries:
        console.print(f"  query: {safe(q)}")
    console.print("history:")
    for m in moves:
        console.print(f"  {m['at']}  {m['from'] or '-'} → {m['to']}  {safe(m['reason'])}")
    if sources:
        fetched = sum(1 for s in sources if s.outcome == "fetched")
        console.print(f"sources: {len(sources)} recorded, {fetched} fetched")


@queue_app.command("edit")
def edit(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    title: Annotated[str | None, typer.Option("--title")] = None,
    category: Annotated[str | None, typer.Option("--category", "-c")] = None,
    focus: Annotated[str | None, typer.Option("--focus", "-f")] = None,
    query: Annotated[list[str] | None, typer.Option("--query", "-q", help="Replace the sub-queries")] = None,
    persona: Annotated[str | None, typer.Option("--persona")] = None,
    schema: Annotated[str | None, typer.Option("--schema")] = None,
    priority: Annotated[int | None, typer.Option("--priority", "-p")] = None,
) -> None:
    """Change a topic's title, category, focus, sub-queries, persona, schema or priority."""
    ws = locked_workspace(ctx, "queue edit")
    queue.check_voice(ws, persona, schema)
    topic = queue.edit_topic(ws.db, topic_id, ws.categories, title=title, category=category,
                             focus=focus, sub_queries=query, persona=persona, schema=schema,
                             priority=priority)
    moved = queue.follow_category(ws, topic.id) if category is not None else 0
    console.print(f"updated #{topic.id} {topic.slug}"
                  + (f" ({moved} research chunk(s) moved to {topic.category})" if moved else ""))


@queue_app.command("remove")
def remove(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
) -> None:
    """Delete a topic and its research chunks (knowledge stays)."""
    topic, removed = queue.delete_topic(locked_workspace(ctx, "queue remove"), topic_id)
    console.print(f"removed #{topic.id} {topic.slug} and {removed} research chunk(s)")


@queue_app.command("retry")
def retry(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
) -> None:
    """Reopen a topic: failed → queued; insufficient_research → researched (research kept)."""
    topic = queue.retry(locked_workspace(ctx, "queue retry").db, topic_id)
    console.print(f"reopened #{topic.id} {topic.slug} → {topic.stage}")


def register(app: typer.Typer) -> None:
    """Attach the queue group to the root app."""
    app.add_typer(queue_app, name="queue")
