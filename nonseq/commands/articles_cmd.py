"""`nonseq articles list|show|review`: what has been written, with its grounding figures and sources."""

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
    """List written articles and drafts, newest first, with citation and support figures."""
    from nonseq.ui.articles import articles_table
    from nonseq.writing.articles import list_articles

    folder = workspace(ctx).articles_dir
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


@articles_app.command("review")
def review(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(help="Slug (or slug-2...), file name or path")],
    as_json: Annotated[bool, typer.Option("--json", help="A list of {sentence, made, sources: [{n, text}]}")] = False,
) -> None:
    """Each sentence beside the source sentence(s) it came from, restated ones first."""
    from nonseq.writing.articles import find_article, read_review

    rows = read_review(find_article(workspace(ctx).articles_dir, ref))
    if as_json:
        print_json(rows)
        return
    for k, row in enumerate(rows, 1):
        typer.echo(out.plain(f"{k}. [{row['made']}] {row['sentence']}"))
        for src in row["sources"]:
            typer.echo(out.plain(f"     [{src['n']}] {src['text']}"))
    typer.echo(f"{len(rows)} sentence(s); {sum(r['made'] == 'restated' for r in rows)} restated (listed first)")


def register(app: typer.Typer) -> None:
    """Attach the articles group to the root app."""
    app.add_typer(articles_app, name="articles")
