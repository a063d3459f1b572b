"""`nonseq gate TOPIC_ID`: the suitability verdict for a researched topic."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import console, locked_workspace, print_json


def print_verdict(verdict) -> None:  # noqa: ANN001 - models.GateVerdict
    """Print a verdict's status and each rule with its figure."""
    colour = "green" if verdict.ok else "yellow"
    extra = "" if verdict.ok else (" (continuable)" if verdict.can_continue else " (hard failure)")
    console.print(f"gate: [{colour}]{verdict.status}[/{colour}]{extra}")
    for check in verdict.checks:
        mark = "skip" if check.skipped else ("pass" if check.passed else "FAIL")
        kind = "hard" if check.hard else ("soft" if check.name == "domains" else "quality")
        if check.backend:
            kind = f"{kind}, {check.backend}"
        console.print(f"  {mark:4}  {check.name:8} {check.value:g} (need {check.threshold:g}, {kind})"
                      + (f"  {check.reason}" if check.reason else ""))


def gate(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON")] = False,
) -> None:
    """Judge whether a topic's research is good enough to write from (OK or THIN, with reasons)."""
    from nonseq.gate import run_gate

    topic, _pack, verdict = run_gate(locked_workspace(ctx, "gate"), topic_id)
    if as_json:
        print_json({"topic": topic.slug, "stage": str(topic.stage), **verdict.to_dict()})
        return
    console.print(f"#{topic.id} {topic.slug} → {topic.stage}")
    print_verdict(verdict)


def uber(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Uber Research: find what thin research is missing, search for it, index what is relevant."""
    from nonseq.uber import run_uber

    summary = run_uber(locked_workspace(ctx, "uber"), topic_id,
                       progress=None if as_json else lambda msg: console.print(f"[cyan]›[/cyan] {msg}"))
    if as_json:
        print_json(summary.to_dict())
        return
    if summary.before.get("status") == "OK":
        console.print(f"the gate is already OK ({summary.stage}): no gaps to search; add your own "
                      "sources with `nonseq research ID --url/--file`")
        return
    console.print(f"gap analysis: {summary.analysis}")
    for gap in summary.gaps:
        console.print(f"  ? {gap.question}  [{', '.join(gap.keywords)}]")
    for err in summary.errors:
        console.print(f"[yellow]search:[/yellow] {err}")
    console.print(f"searched {summary.searched} quer(ies), {summary.candidates} new URL(s), "
                  f"{summary.fetched} fetched, {summary.irrelevant} irrelevant, "
                  f"{summary.chunks_added} chunk(s) added")
    b, a = summary.before, summary.after
    for key in ("status", "chunks", "mean_score", "domains"):
        console.print(f"  {key:10} {b.get(key)!s:>8} → {a.get(key)!s}")


def register(app: typer.Typer) -> None:
    """Attach the gate and uber commands."""
    app.command("gate")(gate)
    app.command("uber")(uber)
