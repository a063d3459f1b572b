"""Export a written article as HTML, DOCX or PDF (`nonseq articles export`).

A draft exports only when asked (and says DRAFT); an existing file is replaced only with force.
The file is written whole to a temporary name first, then linked into place, so a crash never
leaves half a file and two exports never overwrite each other.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path

from nonseq.errors import UsageError

FORMATS = ("html", "docx", "pdf")


def _renderer(fmt: str) -> Callable[..., bytes]:
    """The function that renders a Document in a format."""
    if fmt == "html":
        from nonseq.writing.export.to_html import to_html

        return to_html
    if fmt == "docx":
        from nonseq.writing.export.to_docx import to_docx

        return to_docx
    if fmt == "pdf":
        from nonseq.writing.export.to_pdf import to_pdf

        return to_pdf
    raise UsageError(f"unknown export format {fmt!r} (one of {', '.join(FORMATS)})")


def target_path(article: Path, fmt: str, out: str | Path | None) -> Path:
    """Where the export goes: --out (a folder gets <stem>.<fmt>), else beside the article."""
    name = f"{article.name.removesuffix('.md')}.{fmt}"
    if out is None:
        return article.with_name(name)
    path = Path(out).expanduser()
    return path / name if path.is_dir() else path


def save(path: Path, data: bytes, force: bool) -> None:
    """Write data to path whole; an existing file only with force (UsageError otherwise)."""
    if path.is_dir():
        raise UsageError(f"{path} is a folder")
    if path.exists() and not force:
        raise UsageError(f"{path} exists; pass --force to replace it")
    folder = path.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".nonseq-export-{secrets.token_hex(6)}.tmp"
        tmp.write_bytes(data)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        if force:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)  # fails rather than replace a file made meanwhile
    except FileExistsError:
        raise UsageError(f"{path} exists; pass --force to replace it") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def export_article(articles_dir: Path, ref: str, fmt: str, *, out: str | Path | None = None,
                   draft: bool = False, force: bool = False,
                   warn: Callable[[str], None] | None = None) -> Path:
    """Export the article `ref` (slug, file name or path) in `fmt`; the path written.

    `warn` hears of what the format could not keep (characters the PDF font lacks).
    """
    from nonseq.writing.articles import find_article
    from nonseq.writing.export.document import load_document

    render = _renderer(fmt)
    article = find_article(articles_dir, ref)
    doc = load_document(article)
    if doc.draft and not draft:
        why = "; ".join(doc.reasons) or "it failed the quality gate"
        raise UsageError(f"{article.name} is a draft ({why}); pass --draft to export it marked DRAFT")
    path = target_path(article, fmt, out)
    if path.exists() and not force:
        raise UsageError(f"{path} exists; pass --force to replace it")
    save(path, render(doc, warn) if fmt == "pdf" else render(doc), force)
    return path
