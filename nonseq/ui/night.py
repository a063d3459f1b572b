"""Night runs as people see them: a line per step while it runs, the morning summary, `night status`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from nonseq.db import to_seconds
from nonseq.events import Event, Kind, Step
from nonseq.ui.console import console, safe

if TYPE_CHECKING:
    from nonseq.pipeline.night import NightSummary, TopicEntry


def night_lines(event: Event) -> None:
    """One line per step and per finished topic."""
    if event.step is Step.TOPIC:
        entry: TopicEntry = event.data
        console.print(f"{safe(entry.topic)}: {entry.outcome}")
    elif event.kind is Kind.START:
        console.print(f"[dim]{safe(event.detail)}: {safe(event.step.value)}[/dim]")


class NightBars:
    """A topics-done bar with the current step (the Night run menu)."""

    def __init__(self, total: int) -> None:
        self.bars = Progress(TextColumn("topics"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                             TextColumn("{task.fields[step]}"), console=console)
        self.task = self.bars.add_task("night", total=total, step="")

    def __enter__(self) -> NightBars:
        self.bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bars.stop()

    def __call__(self, event: Event) -> None:
        """Advance on a finished topic; show the step in progress."""
        if event.step is Step.TOPIC:
            entry: TopicEntry = event.data
            self.bars.update(self.task, advance=1)
            self.bars.console.print(f"{safe(entry.topic)}: {entry.outcome}")
        elif event.kind is Kind.START:
            self.bars.update(self.task, step=safe(f"{event.detail}: {event.step.value}"[:70]))


def _detail(e: TopicEntry) -> str:
    """What to say about one topic in the summary table."""
    art = e.article
    if e.outcome in ("written", "draft") and art is not None:
        detail = (f"{art.path} (citations {art.citations}, added "
                  f"{art.added}, unsupported {art.unsupported})")
        if e.facts is not None:
            detail += f"; facts new {e.facts.new}"
        return detail
    if e.outcome == "failed":
        return e.error + (" (retried next night)" if e.transient else "")
    return "; ".join(e.verdict.reasons) if e.verdict is not None else ""


def print_night_summary(summary: NightSummary) -> None:
    """The rich morning summary: one row per topic, then what stopped the run and where to read more."""
    if summary.entries:
        table = Table(title=f"night run {summary.run}: {summary.topics} topic(s) in {summary.seconds} s")
        for col in ("topic", "outcome", "s"):
            table.add_column(col, no_wrap=col != "topic", overflow="fold")
        table.add_column("details", overflow="fold")
        for e in summary.entries:
            colour = {"written": "green", "failed": "red", "draft": "yellow"}.get(e.outcome, "yellow")
            table.add_row(safe(e.topic), f"[{colour}]{e.outcome}[/{colour}]", str(e.seconds), safe(_detail(e)))
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


def print_night_status(info: dict[str, Any]) -> None:
    """The night run in progress, or the last one."""
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
        console.print(f"  finished {to_seconds(info['finished_at'])} in {info.get('seconds')} s, "
                      f"exit code {info.get('exit_code')}")
        if info.get("report"):
            console.print(f"  report: {safe(info['report'])}", soft_wrap=True)
    console.print(f"  outcomes: {outcomes}")
