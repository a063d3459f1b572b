"""Research as people see it: progress bars while it runs, a summary when it is done."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from nonseq.events import Event, Kind, Step
from nonseq.ui.console import console, err_console, safe

if TYPE_CHECKING:
    from nonseq.pipeline.ingest import FileReport
    from nonseq.pipeline.research import ResearchSummary


class ResearchProgress:
    """Rich progress bars (pages and chunks) fed by research's progress events."""

    def __init__(self, out: Console = err_console) -> None:
        self.bars = Progress(SpinnerColumn(), TextColumn("{task.description:<10}"), BarColumn(),
                             MofNCompleteColumn(), TextColumn("{task.fields[note]}"),
                             TimeElapsedColumn(), console=out, transient=True)
        self.pages = self.bars.add_task("searching", total=None, note="")
        self.chunks = self.bars.add_task("chunks", total=None, note="", visible=False)

    def __enter__(self) -> ResearchProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bars.live.is_started:
            self.bars.stop()

    def __call__(self, event: Event) -> None:
        """Show the running summary (the bars appear with the first event: input is checked by then)."""
        s: ResearchSummary | None = event.data
        if s is None or event.kind in (Kind.DONE, Kind.NOTE):
            return
        if not self.bars.live.is_started:
            self.bars.start()
        if event.step is Step.SEARCH and not s.found:
            self.bars.update(self.pages, description="searching")
            return
        failed = sum(s.failed.values())
        note = f"{s.fetched} ok, {s.blocked} blocked, {failed} failed"
        self.bars.update(self.pages, description="pages", total=s.found or None,
                         completed=s.done, note=note)
        self.bars.update(self.chunks, visible=True, total=s.chunks + s.queued_chunks or None,
                         completed=s.chunks, note=f"{s.distinct_domains} domain(s)")


def print_research(s: ResearchSummary) -> None:
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
    for cut in s.capped:
        console.print(f"  [yellow]cut short[/yellow]: {safe(cut['url'])}: kept the first {cut['kept']} chunks "
                      f"({cut['setting']})", soft_wrap=True)
    if s.files is not None:
        print_files(s.files)
    if not s.chunks:
        console.print("  [yellow]no chunks indexed[/yellow]: add sources with --url or --file")


def print_files(report: FileReport) -> None:
    """The user's files: counts, each skipped file on its own line with its reason, then a count by reason."""
    console.print(f"  files: {report.found} found, {report.indexed} indexed, {report.unchanged} unchanged "
                  f"(already indexed), {len(report.skipped)} skipped")
    for skipped in report.skipped:
        console.print(f"    skipped {escape(skipped.path)}: {escape(skipped.reason)}", soft_wrap=True)
    if report.skipped:
        counts = ", ".join(f"{n} {reason}" for reason, n in report.by_reason().items())
        console.print(f"    skipped by reason: {counts}")
