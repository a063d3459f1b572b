"""`nonseq queue add|list|show|edit|remove`: keep the topic queue."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import api, locked_workspace, workspace
from nonseq.errors import UsageError
from nonseq.models import Stage
from nonseq.ui import console as out
from nonseq.ui.console import print_json

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
    topic = api(ctx).add_topic(title, category=category, focus=focus, queries=query or [],
                               persona=persona, schema=schema, priority=priority, slug=slug)
    if as_json:
        print_json(topic.to_dict())
    else:
        out.console.print(f"queued [bold]#{topic.id}[/bold] {topic.slug} ({topic.category})")


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
    from nonseq.ui.topics import print_queue

    stages = _parse_stages(stage)
    from nonseq import queue

    rows = [r for r in queue.overview(workspace(ctx).db) if stages is None or r["topic"].stage in stages]
    if as_json:
        print_json([r["topic"].to_dict() for r in rows])
        return
    print_queue(rows)


@queue_app.command("show")
def show(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Show a topic, its stage history and its fetched sources."""
    from nonseq.pipeline.topics import show_topic
    from nonseq.ui.topics import print_topic

    details = show_topic(workspace(ctx), topic_id)
    if as_json:
        print_json(details.to_dict())
        return
    print_topic(details)


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
    from nonseq.pipeline.topics import edit_topic

    topic, moved = edit_topic(locked_workspace(ctx, "queue edit"), topic_id, title=title, category=category,
                              focus=focus, sub_queries=query, persona=persona, schema=schema, priority=priority)
    out.console.print(f"updated #{topic.id} {topic.slug}"
                  + (f" ({moved} research chunk(s) moved to {topic.category})" if moved else ""))


@queue_app.command("remove")
def remove(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
) -> None:
    """Delete a topic and its research chunks (knowledge stays)."""
    from nonseq.pipeline.topics import delete_topic

    topic, removed = delete_topic(locked_workspace(ctx, "queue remove"), topic_id)
    out.console.print(f"removed #{topic.id} {topic.slug} and {removed} research chunk(s)")


@queue_app.command("retry")
def retry(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
) -> None:
    """Reopen a topic: failed → queued; insufficient_research → researched (research kept)."""
    from nonseq import queue

    topic = queue.retry(locked_workspace(ctx, "queue retry").db, topic_id)
    out.console.print(f"reopened #{topic.id} {topic.slug} → {topic.stage}")


def register(app: typer.Typer) -> None:
    """Attach the queue group to the root app."""
    app.add_typer(queue_app, name="queue")
