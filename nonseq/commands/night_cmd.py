"""`nonseq night [status]`: run the queue unattended; see the current or last run from elsewhere."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from nonseq.commands._common import console, locked_workspace, print_json, safe, workspace

night_app = typer.Typer(help="Research, gate and write the queue unattended, in priority order; "
                        "`night status` shows the run in progress or the last one. Exit codes: 0 no "
                        "topic failed, 4 some failed, 5 nothing could run (SearXNG or the LLM down), "
                        "75 the workspace is busy.")


def _print_summary(summary: Any) -> None:
    """The rich morning summary: one row per topic, then what stopped the run and where to read more."""
    if summary.entries:
        table = Table(title=f"night run {summary.run}: {summary.topics} topic(s) in {summary.seconds} s")
        for col in ("topic", "outcome", "s"):
            table.add_column(col, no_wrap=col != "topic", overflow="fold")
        table.add_column("details", overflow="fold")
        for e in summary.entries:
            art = e.article or {}
            if e.outcome in ("written", "draft"):
                detail = (f"{art.get('path', '')} (citations {art.get('citations')}, added "
                          f"{art.get('added')}, unsupported {art.get('unsupported')})")
                if e.facts:
                    detail += f"; facts new {e.facts.get('new', 0)}"
            elif e.outcome == "failed":
                detail = e.error + (" (retried next night)" if e.transient else "")
            else:
                detail = "; ".join((e.verdict or {}).get("reasons") or []) if e.verdict else ""
            colour = {"written": "green", "failed": "red", "draft": "yellow"}.get(e.outcome, "yellow")
            table.add_row(safe(e.topic), f"[{colour}]{e.outcome}[/{colour}]", str(e.seconds), safe(detail))
        console.print(table)
    else:
        console.print(f"night run {summary.run}: nothing to do (the queue has no runnable topic)")
    if summary.stopped:
        console.print(f"[yellow]stopped[/yellow]: {safe(summary.stopped)}")
    if summary.not_started:
        console.print(f"not started: {len(summary.not_started)} topic(s)")
    if summary.facts_pending:
        console.print(f"facts waiting for review: {summary.facts_pending} (`nonseq knowledge review`)")
    console.print(f"report: {safe(summary.report)}\nlog: {safe(summary.log)}", soft_wrap=True)


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
    from nonseq.night import NightOptions, parse_until, run_night

    deadline = parse_until(until) if until else None
    ws = locked_workspace(ctx, "night")
    cfg = ws.settings.night
    options = NightOptions(max_topics or cfg.max_topics, cfg.topic_timeout, cfg.retries, deadline)

    def live(kind: str, data: Any) -> None:
        """One line per step and per finished topic (not with --json)."""
        if as_json:
            return
        if kind == "step":
            console.print(f"[dim]{safe(data[0])}: {safe(data[1])}[/dim]")
        else:
            console.print(f"{safe(data.topic)}: {data.outcome}")

    summary = run_night(ws, options, on_event=live)
    if as_json:
        print_json(summary.to_dict())
    else:
        _print_summary(summary)
    if summary.exit_code:
        raise typer.Exit(summary.exit_code)


@night_app.command("status")
def status(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Show the night run in progress, or the last one (works while a run holds the workspace)."""
    from nonseq.night_report import night_status

    info = night_status(workspace(ctx))
    if as_json:
        print_json(info)
        return
    if info["state"] == "none":
        console.print("no night run yet: `nonseq night` runs the queue")
        return
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted((info.get("outcomes") or {}).items())) or "none"
    console.print(f"night run {info['run']}: {info['state']} (started {info['started_at']})")
    if info["state"] == "running":
        console.print(f"  {info['done']} of {len(info['planned'])} topic(s) done; now: "
                      f"{safe(info.get('topic') or '-')} ({safe(info.get('step') or '-')})")
    elif info["state"] == "interrupted":
        console.print(f"  stopped after {info['done']} topic(s); the next `nonseq night` resumes")
    else:
        console.print(f"  finished {info['finished_at']} in {info.get('seconds')} s, "
                      f"exit code {info.get('exit_code')}")
        if info.get("report"):
            console.print(f"  report: {safe(info['report'])}", soft_wrap=True)
    console.print(f"  outcomes: {outcomes}")


def register(app: typer.Typer) -> None:
    """Attach the night group."""
    app.add_typer(night_app, name="night")
