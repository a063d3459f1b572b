"""`nonseq gate TOPIC_ID`: the suitability verdict for a researched topic."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import console, print_json, workspace


def print_verdict(verdict) -> None:  # noqa: ANN001 - models.GateVerdict
    """Print a verdict's status and each rule with its figure."""
    colour = "green" if verdict.ok else "yellow"
    extra = "" if verdict.ok else (" (continuable)" if verdict.can_continue else " (hard failure)")
    console.print(f"gate: [{colour}]{verdict.status}[/{colour}]{extra}")
    for check in verdict.checks:
        mark = "skip" if check.skipped else ("pass" if check.passed else "FAIL")
        kind = "hard" if check.hard else ("soft" if check.name == "domains" else "quality")
        console.print(f"  {mark:4}  {check.name:8} {check.value:g} (need {check.threshold:g}, {kind})"
                      + (f"  {check.reason}" if check.reason else ""))


def gate(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON")] = False,
) -> None:
    """Judge whether a topic's research is good enough to write from (OK or THIN, with reasons)."""
    from nonseq.gate import run_gate

    topic, _pack, verdict = run_gate(workspace(ctx), topic_id)
    if as_json:
        print_json({"topic": topic.slug, "stage": str(topic.stage), **verdict.to_dict()})
        return
    console.print(f"#{topic.id} {topic.slug} → {topic.stage}")
    print_verdict(verdict)


def register(app: typer.Typer) -> None:
    """Attach the gate command."""
    app.command("gate")(gate)
