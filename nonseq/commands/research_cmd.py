"""`nonseq research TOPIC_ID [--url URL]... [--file PATH|DIR]... [--json]`: research a queued topic."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import api
from nonseq.ui.console import print_json


def research(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    url: Annotated[list[str] | None, typer.Option(
        "--url", "-u", help="Add this page (repeatable); with only --url/--file, no search")] = None,
    file: Annotated[list[str] | None, typer.Option(
        "--file", "-f", help="Add a local file or every supported file in a folder: PDF, DOCX, EPUB, "
        "HTML, Markdown or text (repeatable; files already indexed are not read again)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON")] = False,
) -> None:
    """Research a topic on the web (or add your own sources) and index its chunks."""
    from nonseq.ui.research import ResearchProgress, print_research

    if as_json:
        print_json(api(ctx).research(topic_id, urls=url or [], files=file or []).to_dict())
        return
    with ResearchProgress() as view:
        summary = api(ctx).research(topic_id, urls=url or [], files=file or [], progress=view)
    print_research(summary)


def register(app: typer.Typer) -> None:
    """Attach `research` to the root app."""
    app.command("research")(research)
