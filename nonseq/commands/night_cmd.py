"""`nonseq night`: write the queue unattended (no prompts; THIN ends as insufficient_research)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from nonseq.commands._common import console, print_json, workspace


def night(
    ctx: typer.Context,
    limit: Annotated[int | None, typer.Option("--limit", "-n", help="Most topics (default [night] max_topics)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Research, gate and write queued topics in priority order without asking anything."""
    from nonseq.night import run_night

    def show(slug: str, entry: dict[str, Any]) -> None:
        """One line per finished topic."""
        if not as_json:
            art = entry.get("article") or {}
            console.print(f"{slug}: {entry['outcome']} {art.get('path', entry.get('error', ''))}")

    summary = run_night(workspace(ctx), limit, on_topic=show)
    if as_json:
        print_json(summary)
    else:
        console.print(f"night run {summary['run']}: {summary['topics']} topic(s) {summary['outcomes']} "
                      f"in {summary['seconds']} s; log {summary['log']}")


def register(app: typer.Typer) -> None:
    """Attach the night command."""
    app.command("night")(night)
