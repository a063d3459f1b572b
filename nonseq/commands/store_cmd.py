"""`nonseq collections` and `nonseq reembed`: look after the vector store."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from nonseq.commands._common import console, locked_workspace, print_json, workspace
from nonseq.errors import NotFoundError


def collections(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List the vector collections with their point counts and embedding model."""
    store = workspace(ctx).store
    rows = [{"name": n, "points": store.count(n), **store.metadata(n)} for n in store.collections()]
    if as_json:
        print_json(rows)
        return
    table = Table(title=f"{len(rows)} collection(s) in {store.location}")
    for col in ("name", "points", "model", "dim"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["name"], str(r["points"]), str(r.get("model", "")), str(r.get("dim", "")))
    console.print(table)


def reembed(
    ctx: typer.Context,
    collection: Annotated[list[str] | None, typer.Argument(help="Collections to rebuild")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Rebuild every collection")] = False,
) -> None:
    """Re-embed collections with the configured embedder (after changing [embedding])."""
    ws = locked_workspace(ctx, "reembed")
    existing = ws.store.collections()
    names = existing if all_ else list(collection or [])
    if not names:
        raise NotFoundError("name a collection (see `nonseq collections`) or pass --all")
    from nonseq.indexing import reembed_collection

    for name in names:
        if name not in existing:
            raise NotFoundError(f"no collection {name!r} (see `nonseq collections`)")
        count = reembed_collection(ws, name)
        console.print(f"re-embedded {count} point(s) in {name} with {ws.embedder.name}")


def register(app: typer.Typer) -> None:
    """Attach the store commands."""
    app.command("collections")(collections)
    app.command("reembed")(reembed)
