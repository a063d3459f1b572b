"""`nonseq research TOPIC_ID [--url URL]... [--file PATH]... [--json]`: research a queued topic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from nonseq.commands._common import console, err_console, locked_workspace, print_json

if TYPE_CHECKING:
    from nonseq.research.research import ResearchSummary


class _ProgressView:
    """Rich progress bars (pages and chunks) fed by the service's progress callback."""

    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self.bars = Progress(SpinnerColumn(), TextColumn("{task.description:<10}"), BarColumn(),
                             MofNCompleteColumn(), TextColumn("{task.fields[note]}"),
                             TimeElapsedColumn(), console=err_console, transient=True)
        self.pages = self.bars.add_task("searching", total=None, note="")
        self.chunks = self.bars.add_task("chunks", total=None, note="", visible=False)

    def __enter__(self) -> _ProgressView:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bars.live.is_started:
            self.bars.stop()

    def __call__(self, phase: str, s: ResearchSummary) -> None:
        """Show the running summary (the bars appear with the first event: input is checked by then)."""
        if not self.bars.live.is_started:
            self.bars.start()
        if phase == "search" and not s.found:
            self.bars.update(self.pages, description="searching")
            return
        failed = sum(s.failed.values())
        note = f"{s.fetched} ok, {s.blocked} blocked, {failed} failed"
        self.bars.update(self.pages, description="pages", total=s.found or None,
                         completed=s.done, note=note)
        self.bars.update(self.chunks, visible=True, total=s.chunks + s.queued_chunks or None,
                         completed=s.chunks, note=f"{s.distinct_domains} domain(s)")


def _print_summary(s: ResearchSummary) -> None:
    """The human summary of a run."""
    resumed = " (resumed)" if s.resumed else ""
    console.print(f"researched [bold]#{s.topic_id} {s.slug}[/bold]{resumed} in {s.seconds:.1f} s")
    console.print(f"  pages: {s.found} found, {s.fetched} fetched, {s.blocked} blocked, "
                  f"{sum(s.failed.values())} failed")
    for reason, count in sorted(s.failed.items(), key=lambda kv: (-kv[1], kv[0])):
        console.print(f"    {reason}: {count}")
    console.print(f"  chunks: {s.chunks} indexed into {s.collection} from "
                  f"{s.distinct_domains} domain(s)"
                  + (f", {s.stale_removed} stale removed" if s.stale_removed else ""))
    if not s.chunks:
        console.print("  [yellow]no chunks indexed[/yellow]: add sources with --url or --file")


def research(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    url: Annotated[list[str] | None, typer.Option(
        "--url", "-u", help="Add this page (repeatable); with only --url/--file, no search")] = None,
    file: Annotated[list[str] | None, typer.Option(
        "--file", "-f", help="Add a local HTML, Markdown or text file (repeatable)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Research a topic on the web (or add your own sources) and index its chunks."""
    from nonseq.research.research import run_research

    ws = locked_workspace(ctx, "research")
    options: dict[str, Any] = {"urls": url or [], "files": file or []}
    if as_json:
        print_json(run_research(ws, topic_id, **options).to_dict())
        return
    with _ProgressView() as view:
        summary = run_research(ws, topic_id, progress=view, **options)
    _print_summary(summary)


def register(app: typer.Typer) -> None:
    """Attach `research` to the root app."""
    app.command("research")(research)
