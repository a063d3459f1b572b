"""The Articles menu: list (stage, grounding figures), show one, write a draft again."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from nonseq.menus.ui import MenuContext, choose, console, pause, pick_from, run_action

ARTICLES = [("s", "Show an article"), ("w", "Write a draft again")]


def _rows(ws: Any) -> list[dict[str, Any]]:
    """The articles, newest first (`nonseq articles list`)."""
    from nonseq.articles import list_articles

    return list_articles(ws.articles_dir)


def _stage(row: dict[str, Any]) -> str:
    """'draft' or 'article'."""
    return "draft" if row.get("status") == "draft" else "article"


def articles_table(rows: list[dict[str, Any]]) -> Table:
    """File, title, stage, sources, citations and unsupported sentences."""
    table = Table(title=f"{len(rows)} article(s)", title_justify="left")
    table.add_column("file", no_wrap=True)
    table.add_column("title", overflow="ellipsis", no_wrap=True, max_width=40)
    for col in ("stage", "sources", "cited", "unsupported"):
        table.add_column(col, no_wrap=True)
    for r in rows:
        if "error" in r:
            table.add_row(r["file"], f"[red]{escape(str(r['error']))}[/red]", "", "", "", "")
            continue
        table.add_row(r["file"], escape(str(r.get("title", ""))), _stage(r), str(r.get("sources", "")),
                      str(r.get("citations", "")), f"{r.get('unsupported')}/{r.get('sentences')}")
    return table


def run(ctx: MenuContext) -> None:
    """List articles; show one or write a draft again."""
    while True:
        rows = run_action(ctx, _rows, name="articles", lock=False)
        if rows is None:
            return
        if not rows:
            console.print("no articles yet: write a topic from the Queue menu")
            pause()
            return
        console.print(articles_table(rows))
        key = choose("Articles", ARTICLES)
        if key is None:
            return
        good = [r for r in rows if "error" not in r]
        if key == "s":
            ref = pick_from("Which article?", [(r["file"], f"{r['file']} {r.get('title', '')}") for r in good])
            if ref:
                show(ctx, ref)
        else:
            drafts = [r for r in good if _stage(r) == "draft"]
            if not drafts:
                console.print("no drafts: every article passed")
                continue
            slug = pick_from("Which draft?", [(r.get("slug") or r["file"], r["file"]) for r in drafts])
            if slug:
                from nonseq.menus.queue_menu import write

                write(ctx, slug)


def show(ctx: MenuContext, ref: str) -> None:
    """Print one article (`nonseq articles show REF`)."""

    def read(ws: Any) -> str:
        from nonseq.articles import find_article

        return find_article(ws.articles_dir, ref).read_text(encoding="utf-8")

    text = run_action(ctx, read, name="articles show", lock=False)
    if text is not None:
        console.print(escape(text), soft_wrap=True)
    pause()
