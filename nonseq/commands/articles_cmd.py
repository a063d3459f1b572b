"""`nonseq articles list|show`: what has been written, with its grounding figures."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import workspace
from nonseq.ui import console as out
from nonseq.ui.console import print_json

articles_app = typer.Typer(help="Written articles: list them, print one.", no_args_is_help=True)


@articles_app.command("list")
def list_(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List written articles and drafts, newest first, with citation and support figures.

    On a team's PostgreSQL database: every article in the database, from any worker.
    """
    from nonseq.ui.articles import articles_table
    from nonseq.writing.articles import list_articles

    ws = workspace(ctx)
    if ws.team:
        from nonseq.article_records import list_rows

        team_rows = list_rows(ws.db)
        if as_json:
            print_json(team_rows)
            return
        for row in team_rows:
            out.console.print(f"{row['slug']:<40} {row['status']:<8} {row['worker']:<24} {out.plain(row['title'])}")
        if not team_rows:
            out.console.print(f"no articles yet in {ws.database}")
        return
    folder = ws.articles_dir
    rows = list_articles(folder)
    if as_json:
        print_json(rows)
        return
    if not rows:
        out.console.print(f"no articles yet in {folder}")
        return
    out.console.print(articles_table(rows, f"{len(rows)} article(s) in {folder}"))


@articles_app.command("show")
def show(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(help="Slug (or slug-2...), file name or path")],
    as_json: Annotated[bool, typer.Option("--json", help="Front matter and body as JSON")] = False,
) -> None:
    """Print an article."""
    from nonseq.writing.articles import find_article, read_article

    path = find_article(workspace(ctx).articles_dir, ref)
    if as_json:
        meta, body = read_article(path)
        print_json({"path": str(path), "meta": meta, "body": body})
        return
    typer.echo(out.plain(path.read_text(encoding="utf-8")), nl=False)


def register(app: typer.Typer) -> None:
    """Attach the articles group to the root app."""
    app.add_typer(articles_app, name="articles")
