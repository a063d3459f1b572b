"""`nonseq gate TOPIC_ID` and `nonseq uber TOPIC_ID`: the suitability verdict, and filling its gaps."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import api, locked_workspace
from nonseq.ui.console import print_json


def gate(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the verdict as JSON")] = False,
) -> None:
    """Judge whether a topic's research is good enough to write from (OK or THIN, with reasons)."""
    from nonseq.ui.gate import print_gate

    verdict = api(ctx).gate(topic_id)
    topic = api(ctx).topic(topic_id).topic
    if as_json:
        print_json({"topic": topic.slug, "stage": str(topic.stage), **verdict.to_dict()})
        return
    print_gate(topic, verdict)


def uber(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Uber Research: find what thin research is missing, search for it, index what is relevant."""
    from nonseq.pipeline.uber import run_uber
    from nonseq.ui.gate import print_uber
    from nonseq.ui.write import step_lines

    summary = run_uber(locked_workspace(ctx, "uber"), topic_id,
                       progress=None if as_json else step_lines)
    if as_json:
        print_json(summary.to_dict())
        return
    print_uber(summary)


def register(app: typer.Typer) -> None:
    """Attach the gate and uber commands."""
    app.command("gate")(gate)
    app.command("uber")(uber)
