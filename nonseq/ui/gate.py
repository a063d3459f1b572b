"""The gate's verdict and Uber Research's summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from nonseq.ui.console import console, safe

if TYPE_CHECKING:
    from nonseq.models import GateVerdict, Topic
    from nonseq.pipeline.uber import UberSummary


def print_verdict(verdict: GateVerdict) -> None:
    """A verdict's status and each rule with its figure."""
    colour = "green" if verdict.ok else "yellow"
    extra = "" if verdict.ok else (" (continuable)" if verdict.can_continue else " (hard failure)")
    console.print(f"gate: [{colour}]{verdict.status}[/{colour}]{extra}")
    for check in verdict.checks:
        mark = "skip" if check.skipped else ("pass" if check.passed else "FAIL")
        kind = "hard" if check.hard else ("soft" if check.name == "domains" else "quality")
        if check.backend:
            kind = f"{kind}, {check.backend}"
        console.print(f"  {mark:4}  {check.name:8} {check.value:g} (need {check.threshold:g}, {kind})"
                      + (f"  {safe(check.reason)}" if check.reason else ""))


def print_gate(topic: Topic, verdict: GateVerdict) -> None:
    """Where the gate moved the topic, then the verdict."""
    console.print(f"#{topic.id} {topic.slug} → {topic.stage}")
    print_verdict(verdict)


def print_uber(summary: UberSummary) -> None:
    """What Uber Research found missing, searched, fetched and added; the gate before and after."""
    if summary.before.get("status") == "OK":
        console.print(f"the gate is already OK ({summary.stage}): no gaps to search; add your own "
                      "sources with `nonseq research ID --url/--file`")
        return
    console.print(f"gap analysis: {safe(summary.analysis)}")
    for gap in summary.gaps:
        console.print(f"  ? {safe(gap.question)}  {safe('[' + ', '.join(gap.keywords) + ']')}")
    for err in summary.errors:
        console.print(f"[yellow]search:[/yellow] {safe(err)}")
    console.print(f"searched {summary.searched} quer(ies), {summary.candidates} new URL(s), "
                  f"{summary.fetched} fetched, {summary.irrelevant} irrelevant, "
                  f"{summary.chunks_added} chunk(s) added")
    b, a = summary.before, summary.after
    for key in ("status", "chunks", "mean_score", "domains"):
        console.print(f"  {key:10} {b.get(key)!s:>8} → {a.get(key)!s}")
