"""The Articles menu: list (stage, grounding figures), show one, review one, export one, write a draft again."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape

from nonseq.menus.widgets import MenuContext, choose, confirm, pause, pick_from, run_action
from nonseq.ui.articles import articles_table, review_lines, stage_of
from nonseq.ui.console import console

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

ARTICLES = [("s", "Show an article"), ("r", "Review an article: each sentence beside its sources"),
            ("e", "Export an article (HTML, DOCX, PDF)"),
            ("w", "Write a draft again")]
FORMATS = [("h", "HTML"), ("d", "DOCX (Word)"), ("p", "PDF")]


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
        if key in ("s", "r"):
            ref = pick_from("Which article?", [(r["file"], f"{r['file']} {r.get('title', '')}") for r in good])
            if ref:
                (show if key == "s" else review)(ctx, ref)
        elif key == "e":
            row = pick_from("Which article?", [(r, f"{r['file']} {r.get('title', '')}") for r in good])
            if row:
                export(ctx, row["file"], draft=stage_of(row) == "draft")
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


def review(ctx: MenuContext, ref: str) -> None:
    """Each sentence of one article beside its source sentence(s) (`nonseq articles review REF`)."""

    def read(ws: Workspace) -> list[dict[str, Any]]:
        """The article's review rows."""
        from nonseq.writing.articles import find_article, read_review

        return read_review(find_article(ws.articles_dir, ref))

    rows = run_action(ctx, read, name="articles review", lock=False)
    if rows is not None:
        console.print(escape("\n".join(review_lines(rows))), soft_wrap=True)
    pause()


def export(ctx: MenuContext, ref: str, *, draft: bool) -> None:
    """Export one article beside it (`nonseq articles export REF --format ...`), asking before replacing."""
    from nonseq.writing.export import target_path

    key = choose("Export as", FORMATS)
    if key is None:
        return
    fmt = {"h": "html", "d": "docx", "p": "pdf"}[key]
    if draft and not confirm("This is a draft: export it marked DRAFT?"):
        return

    def run(ws: Workspace) -> str:
        """Export, replacing an earlier export only if the person agrees."""
        from nonseq.writing.articles import find_article
        from nonseq.writing.export import export_article

        target = target_path(find_article(ws.articles_dir, ref), fmt, None)
        force = target.exists() and confirm(f"{target.name} exists: replace it?")
        return str(export_article(ws.articles_dir, ref, fmt, draft=draft, force=force))

    path = run_action(ctx, run, name="articles export", lock=False)
    if path is not None:
        console.print(f"exported: {escape(path)}", soft_wrap=True)
    pause()
