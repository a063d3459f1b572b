"""`nonseq collections`, `nonseq reembed` and `nonseq store rebuild|migrate`: look after the vector store."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import locked_workspace, workspace
from nonseq.ui import console as out
from nonseq.ui.console import print_json, safe

store_app = typer.Typer(help="The vector store: rebuild it from the database, move an old one to qdrant-edge.",
                        no_args_is_help=True, rich_markup_mode=None)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON")]


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
    """Re-embed collections with the configured embedder (after changing [embedding]).

    Each collection is rebuilt beside the old one and switched in only when complete.
    """
    from nonseq.pipeline.vectors import reembed as reembed_collections
    from nonseq.ui.bars import CountBar

    ws = locked_workspace(ctx, "reembed")
    with CountBar("re-embedding") as bar:
        done = reembed_collections(ws, list(collection or []), every=all_, progress=bar)
    for name, count in done:
        out.console.print(f"re-embedded {count} point(s) in {name} with {ws.embedder.name}")


@store_app.command("rebuild")
def rebuild(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Write back every point the database says must exist (promoted facts, research of active topics)."""
    from nonseq.pipeline.rebuild import rebuild_store
    from nonseq.ui.bars import CountBar

    ws = locked_workspace(ctx, "store rebuild")
    with CountBar("rebuilding") as bar:
        report = rebuild_store(ws, progress=bar)
    if as_json:
        print_json(report.to_dict())
        return
    damaged = f"; damaged and rebuilt whole: {', '.join(report.damaged)}" if report.damaged else ""
    personas = f"; personas loaded again: {', '.join(report.personas)}" if report.personas else ""
    out.console.print(f"restored {report.knowledge} knowledge point(s) and {report.research} research point(s) "
                      f"in {safe(ws.store.location)}{damaged}{personas}")


@store_app.command("migrate")
def migrate(
    ctx: typer.Context,
    prune: Annotated[bool, typer.Option("--prune", help="Delete the kept local-mode backup afterwards")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Move an old qdrant-client local-mode store into qdrant-edge (also done on first use)."""
    from nonseq.pipeline.rebuild import migrate_store
    from nonseq.ui.bars import CountBar

    ws = locked_workspace(ctx, "store migrate")
    with CountBar("moving points") as bar:
        report = migrate_store(ws, progress=bar, prune=prune)
    if as_json:
        print_json(report.to_dict())
        return
    if not report.points:
        out.console.print(f"nothing to move: {safe(ws.qdrant_path)} is a qdrant-edge store")
    else:
        moved = ", ".join(f"{name} {n}" for name, n in sorted(report.points.items()))
        out.console.print(f"moved from local mode: {moved} point(s)")
    if report.backup:
        out.console.print(f"the old files are kept in {safe(report.backup)} (`nonseq store migrate --prune` "
                          "deletes them)")
    elif report.pruned:
        out.console.print("the local-mode backup was deleted")


def register(app: typer.Typer) -> None:
    """Attach the store commands."""
    app.command("collections")(collections)
    app.command("reembed")(reembed)
    app.add_typer(store_app, name="store")
