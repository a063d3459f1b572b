"""`nonseq collections` and `nonseq reembed`: look after the vector store."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import locked_workspace, workspace
from nonseq.ui import console as out
from nonseq.ui.console import print_json


def collections(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List the vector collections with their point counts and embedding model."""
    from rich.table import Table

    from nonseq.pipeline.vectors import collections_overview

    ws = workspace(ctx)
    rows = collections_overview(ws)
    if as_json:
        print_json(rows)
        return
    table = Table(title=f"{len(rows)} collection(s) in {ws.store.location}")
    for col in ("name", "points", "model", "dim"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["name"], str(r["points"]), str(r.get("model", "")), str(r.get("dim", "")))
    out.console.print(table)


def reembed(
    ctx: typer.Context,
    collection: Annotated[list[str] | None, typer.Argument(help="Collections to rebuild")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Rebuild every collection")] = False,
) -> None:
    """Re-embed collections with the configured embedder (after changing [embedding])."""
    from nonseq.pipeline.vectors import reembed as reembed_collections
    from nonseq.ui.bars import CountBar

    ws = locked_workspace(ctx, "reembed")
    with CountBar("re-embedding") as bar:
        done = reembed_collections(ws, list(collection or []), every=all_, progress=bar)
    for name, count in done:
        out.console.print(f"re-embedded {count} point(s) in {name} with {ws.embedder.name}")


def register(app: typer.Typer) -> None:
    """Attach the store commands."""
    app.command("collections")(collections)
    app.command("reembed")(reembed)
