"""`nonseq queue add|list|show|edit|remove`: keep the topic queue."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from nonseq import queue
from nonseq.commands._common import console, print_json, workspace
from nonseq.errors import UsageError
from nonseq.models import Stage

queue_app = typer.Typer(help="Keep the topic queue: add, list, show, edit, remove.",
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
    ws = workspace(ctx)
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
    table = Table(title=f"{len(topics)} topic(s)")
    for col in ("id", "slug", "category", "stage", "pri"):
        table.add_column(col, no_wrap=True)
    table.add_column("persona/schema", overflow="ellipsis", no_wrap=True, max_width=20)
    table.add_column("focus", overflow="ellipsis", no_wrap=True, max_width=30)
    for t in topics:
        table.add_row(str(t.id), t.slug, t.category, str(t.stage), str(t.priority),
                      "/".join(p for p in (t.persona, t.schema) if p), t.focus)
    console.print(table)


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
    console.print(f"[bold]#{topic.id} {topic.title}[/bold]  ({topic.slug})")
    for key in ("category", "stage", "focus", "persona", "schema", "priority", "error"):
        value = getattr(topic, key)
        if value not in ("", None):
            console.print(f"  {key}: {value}")
    for q in topic.sub_queries:
        console.print(f"  query: {q}")
    console.print("history:")
    for m in moves:
        console.print(f"  {m['at']}  {m['from'] or '-'} → {m['to']}  {m['reason']}")
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
    ws = workspace(ctx)
    topic = queue.edit_topic(ws.db, topic_id, ws.categories, title=title, category=category,
                             focus=focus, sub_queries=query, persona=persona, schema=schema,
                             priority=priority)
    console.print(f"updated #{topic.id} {topic.slug}")


@queue_app.command("remove")
def remove(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
) -> None:
    """Delete a topic and its research chunks (knowledge stays)."""
    topic, removed = queue.delete_topic(workspace(ctx), topic_id)
    console.print(f"removed #{topic.id} {topic.slug} and {removed} research chunk(s)")


@queue_app.command("retry")
def retry(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
) -> None:
    """Put a failed topic back in the queue."""
    topic = queue.move(workspace(ctx).db, topic_id, Stage.QUEUED, reason="retry")
    console.print(f"re-queued #{topic.id} {topic.slug}")


def register(app: typer.Typer) -> None:
    """Attach the queue group to the root app."""
    app.add_typer(queue_app, name="queue")
