"""`nonseq inspect TOPIC_ID`: the context pack of a topic and each chunk's path through the chain."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import workspace
from nonseq.ui.console import print_json


def inspect(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the context pack as JSON")] = False,
    show_all: Annotated[bool, typer.Option(
        "--all", help="Also list the chunks below the pre-rank cut")] = False,
) -> None:
    """Show a topic's context pack: every chosen chunk, its score at each step, and why."""
    from nonseq.pipeline.topics import inspect_topic
    from nonseq.ui.pack import print_inspection

    inspection = inspect_topic(workspace(ctx), topic_id)
    if as_json:
        print_json(inspection.to_dict())
        return
    print_inspection(inspection, show_all)


def register(app: typer.Typer) -> None:
    """Attach the inspect command."""
    app.command("inspect")(inspect)
