"""The Articles menu: list (stage, grounding figures), show one, write a draft again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape

from nonseq.menus.widgets import MenuContext, choose, pause, pick_from, run_action
from nonseq.ui.articles import articles_table, stage_of
from nonseq.ui.console import console

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

ARTICLES = [("s", "Show an article"), ("w", "Write a draft again")]


def _rows(ws: Workspace) -> list[dict[str, Any]]:
    """The articles, newest first (`nonseq articles list`)."""
    from nonseq.writing.articles import list_articles

    return list_articles(ws.articles_dir)


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
        console.print(articles_table(rows, f"{len(rows)} article(s)"))
        key = choose("Articles", ARTICLES)
        if key is None:
            return
        good = [r for r in rows if "error" not in r]
        if key == "s":
            ref = pick_from("Which article?", [(r["file"], f"{r['file']} {r.get('title', '')}") for r in good])
            if ref:
                show(ctx, ref)
        else:
            drafts = [r for r in good if stage_of(r) == "draft"]
            if not drafts:
                console.print("no drafts: every article passed")
                continue
            slug = pick_from("Which draft?", [(r.get("slug") or r["file"], r["file"]) for r in drafts])
            if slug:
                from nonseq.menus.queue_menu import write

                write(ctx, slug)


def show(ctx: MenuContext, ref: str) -> None:
    """Print one article (`nonseq articles show REF`)."""

    def read(ws: Workspace) -> str:
        """The article's Markdown."""
        from nonseq.writing.articles import find_article

        return find_article(ws.articles_dir, ref).read_text(encoding="utf-8")

    text = run_action(ctx, read, name="articles show", lock=False)
    if text is not None:
        console.print(escape(text), soft_wrap=True)
    pause()
