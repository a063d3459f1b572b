"""`nonseq articles list|show`: what has been written, with its grounding figures."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import WIDE_COLUMNS, console, print_json, workspace

articles_app = typer.Typer(help="Written articles: list them, print one.", no_args_is_help=True)


@articles_app.command("list")
def list_(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List written articles and drafts, newest first, with citation and support figures."""
    from rich.table import Table

    from nonseq.articles import list_articles

    folder = workspace(ctx).articles_dir
    rows = list_articles(folder)
    if as_json:
        print_json(rows)
        return
    if not rows:
        console.print(f"no articles yet in {folder}")
        return
    wide = console.width >= WIDE_COLUMNS
    table = Table(title=f"{len(rows)} article(s) in {folder}", title_justify="left")
    # file and title fold but never vanish; persona, schema and sources only where there is room.
    table.add_column("file", overflow="fold", min_width=14)
    table.add_column("title", overflow="fold", min_width=14)
    extras = ("date", "persona", "schema", "sources") if wide else ("date",)
    for col in (*extras, "cited", "unsupported"):
        table.add_column(col, overflow="fold")
    for r in rows:
        if "error" in r:
            table.add_row(r["file"], f"[red]{r['error']}[/red]", *[""] * (len(extras) + 2))
            continue
        shown = {"date": r["date"][:10], "persona": r["persona"], "schema": r["schema"],
                 "sources": str(r["sources"])}
        support = f"{r.get('unsupported')}/{r.get('sentences')}"
        title = f"(draft) {r['title']}" if r.get("status") == "draft" else r["title"]
        table.add_row(r["file"], title, *[shown[c] for c in extras], str(r.get("citations")),
                      support)
    console.print(table)


@articles_app.command("show")
def show(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(help="Slug (or slug-2...), file name or path")],
    as_json: Annotated[bool, typer.Option("--json", help="Front matter and body as JSON")] = False,
) -> None:
    """Print an article."""
    from nonseq.articles import find_article, read_article

    path = find_article(workspace(ctx).articles_dir, ref)
    if as_json:
        meta, body = read_article(path)
        print_json({"path": str(path), "meta": meta, "body": body})
        return
    typer.echo(path.read_text(encoding="utf-8"), nl=False)


def register(app: typer.Typer) -> None:
    """Attach the articles group to the root app."""
    app.add_typer(articles_app, name="articles")
