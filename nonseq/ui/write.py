"""Writing as people see it: step lines and the text as it is generated, then the closing summary."""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from nonseq.events import Event, Kind, Step
from nonseq.ui.console import console, err_console, safe

if TYPE_CHECKING:
    from nonseq.knowledge.extract import ExtractReport
    from nonseq.pipeline.write import WriteResult


class WriteProgress:
    """A progress callback: step lines on stderr, generated text streamed to `stream` as it comes."""

    def __init__(self, stream: TextIO, quiet: bool = False) -> None:
        self.stream = stream
        self.quiet = quiet

    def __call__(self, event: Event) -> None:
        """Print one event."""
        if event.kind is Kind.TEXT:
            if not self.quiet:
                self.stream.write(event.detail)
                self.stream.flush()
        elif event.kind is Kind.START or (event.step is Step.GENERATE and event.kind is Kind.UPDATE):
            err_console.print(f"[cyan]›[/cyan] {safe(event.detail)}")
        elif event.kind is Kind.NOTE:
            err_console.print(f"  {safe(event.detail)}")


def print_write_result(result: WriteResult) -> None:
    """The closing summary of a write."""
    topic = result.topic
    console.print()
    if result.article is None:
        console.print(f"[yellow]no article[/yellow] for {topic.slug}: {result.outcome}")
        if result.verdict is not None:
            for reason in result.verdict.reasons:
                console.print(f"  - {safe(reason)}")
        return
    art = result.article
    if art.status == "draft":
        console.print(f"[yellow]draft[/yellow] {safe(art.path)} (not presented as written: "
                      f"{safe('; '.join(art.reasons))}); `nonseq write {topic.id}` tries again",
                      soft_wrap=True)
    else:
        console.print(f"[green]wrote[/green] {safe(art.path)}", soft_wrap=True)
    console.print(f"  sources {len(art.sources)}, citations {art.citations} "
                  f"(resolved {art.resolved}, added {art.added}, removed {art.removed}), "
                  f"unsupported sentences {art.unsupported}/{art.sentences} "
                  f"(supported {art.supported_share:.0%}), {result.seconds:.1f} s")
    if art.made:
        from nonseq.writing.quality import summary_line

        console.print("  " + safe(summary_line(art.made, art.supported_share)), soft_wrap=True)
    if result.facts is not None:
        print_facts_after_write(result.facts, topic.id or 0)
    if result.facts_error:
        err_console.print(f"[yellow]facts not extracted[/yellow]: {safe(result.facts_error)}")


def print_facts_after_write(report: ExtractReport, topic_id: int) -> None:
    """The line after a write whose facts were extracted ([knowledge] extract includes write)."""
    err_console.print(f"facts: {report.new} new for review ({report.merged} merged); "
                      f"`nonseq knowledge review {topic_id}`")


def step_lines(event: Event) -> None:
    """A progress callback printing one `› detail` line per step or note on stdout (Uber Research)."""
    if event.kind is not Kind.TEXT and event.detail:
        console.print(f"[cyan]›[/cyan] {safe(event.detail)}")
