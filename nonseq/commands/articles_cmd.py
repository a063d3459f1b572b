"""`nonseq articles list|show|review|export`: what has been written, with its grounding figures and
sources, and exporting it as HTML, DOCX or PDF."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import workspace
from nonseq.ui import console as out
from nonseq.ui.console import print_json

#: The largest file `articles show` prints (a written article is a few KB).
MAX_ARTICLE_BYTES = 10_000_000

articles_app = typer.Typer(help="Written articles: list them, print one, export one.",
                           no_args_is_help=True)


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
    from nonseq.errors import UsageError
    from nonseq.text.files import read_utf8_file
    from nonseq.writing.articles import find_article, read_article

    path = find_article(workspace(ctx).articles_dir, ref)
    text = read_utf8_file(path, MAX_ARTICLE_BYTES, "an article")  # a binary or huge file is one line
    if not text.startswith("---\n"):
        raise UsageError(f"{out.plain(str(path))} is not an article (no front matter)")
    if as_json:
        meta, body = read_article(path)
        print_json({"path": str(path), "meta": meta, "body": body})
        return
    typer.echo(out.plain(text), nl=False)


@articles_app.command("export")
def export(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(help="Slug (or slug-2...), file name or path")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="html, docx or pdf")],
    out: Annotated[str | None, typer.Option("--out", "-o", help="File or folder; default: beside the article")] = None,
    draft: Annotated[bool, typer.Option("--draft", help="Export a draft too (marked DRAFT)")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing file")] = False,
) -> None:
    """Export an article as HTML, DOCX or PDF: title, headings, linked [n] citations, sources, metadata."""
    from nonseq.writing.export import export_article

    path = export_article(workspace(ctx).articles_dir, ref, fmt.lower(), out=out, draft=draft, force=force,
                          warn=lambda line: typer.echo(f"warning: {line}", err=True))
    typer.echo(f"exported: {path}")


@articles_app.command("review")
def review(
    ctx: typer.Context,
    ref: Annotated[str, typer.Argument(help="Slug (or slug-2...), file name or path")],
    as_json: Annotated[bool, typer.Option(
        "--json", help="A list of {sentence, made, sources: [{n, text}], written_in}")] = False,
) -> None:
    """Each sentence beside the source sentence(s) it came from and the words the writer wrote in: restated
    ones first, then those with words written in."""
    from nonseq.writing.articles import find_article, read_review

    rows = read_review(find_article(workspace(ctx).articles_dir, ref))
    if as_json:
        print_json(rows)
        return
    from nonseq.ui.articles import review_lines

    for line in review_lines(rows):
        typer.echo(out.plain(line))


def register(app: typer.Typer) -> None:
    """Attach the articles group to the root app."""
    app.add_typer(articles_app, name="articles")
