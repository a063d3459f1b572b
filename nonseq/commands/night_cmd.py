"""`nonseq night [status]`: run the queue unattended; see the current or last run from elsewhere."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import api, workspace
from nonseq.ui.console import print_json

night_app = typer.Typer(help="Research, gate and write the queue unattended, in priority order; "
                        "`night status` shows the run in progress or the last one. Exit codes: 0 no "
                        "topic failed, 4 some failed, 5 nothing could run (SearXNG or the LLM down), "
                        "75 the workspace is busy.")


@night_app.callback(invoke_without_command=True)
def night(
    ctx: typer.Context,
    max_topics: Annotated[int | None, typer.Option(
        "--max-topics", "--limit", "-n", min=1, help="Most topics (default [night] max_topics)")] = None,
    until: Annotated[str | None, typer.Option(
        "--until", help="Start no topic after this local time HH:MM (earlier than now: tomorrow)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Research, gate and write queued topics in priority order without asking anything.

    Exit codes: 0 no topic failed, 4 some topics failed, 5 nothing could run (SearXNG or the LLM
    down), 75 the workspace is busy (another nonseq process).
    """
    if ctx.invoked_subcommand is not None:
        return
    from nonseq.ui.night import night_lines, print_night_summary

    summary = api(ctx).night(max_topics=max_topics, until=until, progress=None if as_json else night_lines)
    if as_json:
        print_json(summary.to_dict())
    else:
        print_night_summary(summary)
    if summary.exit_code:
        raise typer.Exit(summary.exit_code)


@night_app.command("status")
def status(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Show the night run in progress, or the last one (works while a run holds the workspace)."""
    from nonseq.pipeline.report import night_status
    from nonseq.ui.night import print_night_status

    info = night_status(workspace(ctx))
    if as_json:
        print_json(info)
        return
    print_night_status(info)


def register(app: typer.Typer) -> None:
    """Attach the night group."""
    app.add_typer(night_app, name="night")
