"""Article output: Markdown with YAML front matter and a Sources section, written atomically.

`articles/<slug>.md` never silently replaces an earlier article: the next free name
`<slug>-2.md`, `<slug>-3.md`... is taken (claimed with a hard link, so two writers cannot pick the
same one), unless force=True. The prompt used is saved beside it as `<stem>.prompt.md`.
Sources are numbered as in the write plan; the article lists the ones it cites.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import re
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq.errors import NotFoundError, UsageError
from nonseq.models import Article, ArticleStatus
from nonseq.text.citations import cited_numbers, resolve_everywhere

if TYPE_CHECKING:
    from nonseq.verify.grounding import GroundingResult
    from nonseq.writing.quality import Quality
    from nonseq.writing.sources import SourceRef

PROMPT_SUFFIX = ".prompt.md"
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,99}$")
FIGURES = ("citations", "resolved", "added", "removed", "unsupported", "sentences",
           "supported_share")
_H1_RE = re.compile(r"^\s*#\s+(.+?)\s*#*\s*$")


def headline(body: str) -> str:
    """The first `# ` heading of a body, or ''."""
    for line in body.splitlines():
        if line.strip():
            m = _H1_RE.match(line)
            return m.group(1).strip() if m else ""
    return ""


def _escape(text: str) -> str:
    """A title safe inside a Markdown list item."""
    return re.sub(r"([\[\]*_`<>])", r"\\\1", " ".join(text.split()))


def sources_section(sources: Sequence[SourceRef]) -> str:
    """The `## Sources` section: [n] title (and pages) and URL, or a local file's path, per source."""
    lines = ["## Sources", ""]
    for s in sorted(sources, key=lambda s: s.n):
        link = f" — <{s.url}>" if s.url else ""
        if s.location != s.url:  # a local file: its path, as code (nothing in it is Markdown)
            link = f" — `{s.location}`" if "`" not in s.location else f" — {_escape(s.location)}"
        lines.append(f"- [{s.n}] {_escape(s.label)}{link}")
    if len(lines) == 2:
        lines.append("No sources are cited in this article.")
    return "\n".join(lines)


def render_article(meta: dict[str, Any], body: str, sources: Sequence[SourceRef]) -> str:
    """Front matter, body and Sources section as one Markdown document."""
    import yaml

    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{front}---\n\n{body.strip()}\n\n{sources_section(sources)}\n"


def _check_slug(slug: str) -> str:
    """A file-safe slug, or UsageError."""
    if not SLUG_RE.match(slug):
        raise UsageError(f"invalid article slug {slug!r}: use lower-case letters, digits, - or _")
    return slug


def _temp_write(folder: Path, text: str) -> Path:
    """Write text to a fresh hidden temp file in folder (flushed to disk); returns its path."""
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = folder / f".nonseq-{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        return tmp


def atomic_write(path: Path, text: str) -> None:
    """Replace path with text atomically (temp file in the same folder + os.replace)."""
    tmp = _temp_write(path.parent, text)
    try:
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _claim(folder: Path, slug: str, text: str) -> Path:
    """Write text as the first free `<slug>[-k].md` (whose prompt file is free too)."""
    tmp = _temp_write(folder, text)
    try:
        for k in itertools.count(1):
            stem = slug if k == 1 else f"{slug}-{k}"
            target = folder / f"{stem}.md"
            if (folder / f"{stem}{PROMPT_SUFFIX}").exists():
                continue
            try:
                os.link(tmp, target)  # atomic, and fails instead of overwriting
            except FileExistsError:
                continue
            except OSError:  # no hard links on this file system
                if target.exists():
                    continue
                os.replace(tmp, target)
            return target
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    raise AssertionError("unreachable")  # pragma: no cover


def prompt_path(article: Path) -> Path:
    """The audit copy of the prompt beside an article."""
    return article.with_name(article.name.removesuffix(".md") + PROMPT_SUFFIX)


def check_writable(folder: Path) -> None:
    """Refuse a folder articles cannot be saved in, before any generation (one line)."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"[paths] articles_dir {folder} is not a folder; fix it and run again (nothing was generated)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _temp_write(folder, "").unlink()
    except OSError as exc:
        raise UsageError(f"[paths] articles_dir {folder} is not writable ({exc.strerror or exc}); "
                         "fix it and run again (nothing was generated)") from None


def restore_kept(kept_dir: Path, articles_dir: Path, slug: str) -> Article | None:
    """Save an article kept by a run that could not save it (see `write_article`); None if there is none."""
    kept = Path(kept_dir) / f"{slug}.md"
    if not kept.is_file():
        return None
    text = kept.read_text(encoding="utf-8")
    meta, _ = read_article(kept)
    path = _claim(Path(articles_dir), slug, text)
    prompt = prompt_path(kept)
    if prompt.is_file():
        atomic_write(prompt_path(path), prompt.read_text(encoding="utf-8"))
        atomic_write(path, text.replace(f"prompt: {meta.get('prompt')}\n", f"prompt: {prompt_path(path).name}\n", 1))
        prompt.unlink()
    kept.unlink()
    known = {f.name for f in dataclasses.fields(Article)} - {"path", "slug", "title", "status", "reasons"}
    return Article(path=str(path), slug=slug, title=str(meta.get("title", slug)),
                   status=ArticleStatus(meta.get("status", "written")), reasons=list(meta.get("draft_reasons", [])),
                   **{k: meta[k] for k in known if k in meta})


def write_article(
    articles_dir: Path,
    *,
    slug: str,
    title: str,
    body: str,
    sources: Sequence[SourceRef],
    grounding: GroundingResult,
    category: str = "",
    persona: str = "",
    schema: str = "",
    model: str = "",
    prompt: str | None = None,
    date: str | None = None,
    force: bool = False,
    quality: Quality | None = None,
    made: dict[str, int] | None = None,
) -> Article:
    """Write an article (and its prompt) atomically; a new versioned name unless force.

    A reply that failed the quality gate is written all the same, with `status: draft`. `made`
    counts how the writer made its sentences (generated, repaired, quoted, dropped).
    """
    _check_slug(slug)
    body = resolve_everywhere(body.strip(), {s.n for s in sources})
    head = headline(body)
    if not head:
        body = f"# {title}\n\n{body}"
    cited = [s for s in sources if s.n in set(cited_numbers(body))]
    figures: dict[str, Any] = {**grounding.figures(),
                               "supported_share": round(grounding.supported_share, 3)}
    status = ArticleStatus.DRAFT if quality is not None and quality.draft else ArticleStatus.WRITTEN
    reasons = list(quality.reasons) if quality is not None else []
    meta: dict[str, Any] = {
        "title": head or title, "slug": slug, "topic": title, "status": status.value,
        "category": category, "persona": persona, "schema": schema,
        "date": date or datetime.now(UTC).isoformat(timespec="seconds"), "model": model,
        "sources": [s.to_dict() for s in sorted(cited, key=lambda s: s.n)],
        "sources_provided": len(sources), **figures,
    }
    if made is not None:
        from nonseq.writing.quality import summary_line

        meta["made"] = {k: made[k] for k in ("quoted", "verbatim", "restated") if k in made} or dict(made)
        meta["summary"] = summary_line(meta["made"], grounding.supported_share)
    if reasons:
        meta["draft_reasons"] = reasons
    if quality is not None:
        meta["quality"] = {"echoed": len(quality.echoed), "repeated": len(quality.repeated)}
    meta["unsupported_sentences"] = grounding.unsupported_sentences()
    if prompt is not None:
        meta["prompt"] = ""  # filled with the file name once the article's name is known
    folder = Path(articles_dir)
    path = folder / f"{slug}.md" if force else _claim(folder, slug,
                                                      render_article(meta, body, cited))
    if prompt is not None:
        meta["prompt"] = prompt_path(path).name
    if force or prompt is not None:
        atomic_write(path, render_article(meta, body, cited))
    if prompt is not None:
        atomic_write(prompt_path(path), prompt)
    elif force:
        prompt_path(path).unlink(missing_ok=True)
    known = {f.name for f in dataclasses.fields(Article)}
    return Article(path=str(path), slug=slug, title=meta["title"],
                   sources=[s.to_dict() for s in cited], status=status, reasons=reasons,
                   made=dict(meta.get("made") or {}),
                   **{k: v for k, v in figures.items() if k in known})


def read_article(path: Path) -> tuple[dict[str, Any], str]:
    """An article's front matter (parsed with PyYAML) and body."""
    import yaml

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise NotFoundError(f"cannot read article {path}: {exc.strerror}") from None
    if not text.startswith("---\n"):
        return {}, text
    end = text.find("\n---\n", 4)
    if end < 0:
        raise UsageError(f"{path}: front matter has no closing '---' line")
    try:
        meta = yaml.safe_load(text[4:end]) or {}
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0]
        raise UsageError(f"{path}: front matter is not valid YAML: {first}") from None
    if not isinstance(meta, dict):
        raise UsageError(f"{path}: front matter must be a mapping")
    return meta, text[end + 5:].lstrip("\n")


def read_review(path: Path) -> list[dict[str, Any]]:
    """An article's sentences beside their source sentences (from its prompt file), restated first."""
    import json

    from nonseq.writing.writer import REVIEW_MARK

    meta, _ = read_article(path)
    prompt = Path(path).with_name(str(meta.get("prompt") or "")) if meta.get("prompt") else prompt_path(Path(path))
    try:
        text = prompt.read_text(encoding="utf-8")
    except OSError:
        raise NotFoundError(f"{path} has no prompt file beside it ({prompt.name}): nothing to review") from None
    start = text.rfind(REVIEW_MARK)
    block = text[start:].split("```json", 1)[-1].split("```", 1)[0] if start >= 0 else ""
    try:
        rows = json.loads(block) if block.strip() else None
    except ValueError:
        rows = None
    if not isinstance(rows, list):
        raise UsageError(f"{prompt} holds no review data (written by an older version): write the topic again")
    return rows


def article_files(articles_dir: Path) -> list[Path]:
    """Article files of a folder (prompt copies and temp files left out)."""
    folder = Path(articles_dir)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.md")
                  if not p.name.endswith(PROMPT_SUFFIX) and not p.name.startswith("."))


def list_articles(articles_dir: Path) -> list[dict[str, Any]]:
    """One summary per article, newest first; unreadable ones carry an `error`."""
    rows = []
    for path in article_files(articles_dir):
        row: dict[str, Any] = {"file": path.name, "path": str(path)}
        try:
            meta, _ = read_article(path)
        except UsageError as exc:
            row["error"] = str(exc)
            rows.append(row)
            continue
        for key in ("title", "slug", "date", "category", "persona", "schema", "model"):
            row[key] = str(meta.get(key) or "")
        row["status"] = str(meta.get("status") or "written")
        row["sources"] = len(meta.get("sources") or [])
        row.update({k: meta.get(k) for k in FIGURES})
        rows.append(row)
    rows.sort(key=lambda r: r["file"])
    rows.sort(key=lambda r: r.get("date", ""), reverse=True)
    return rows


def find_article(articles_dir: Path, ref: str) -> Path:
    """An article by stem (`slug`, `slug-2`), file name in the articles folder, or path."""
    folder = Path(articles_dir)
    if "/" not in ref and "\\" not in ref:
        name = ref if ref.endswith(".md") else f"{ref}.md"
        if (folder / name).is_file():
            return folder / name
    given = Path(ref).expanduser()
    if given.is_file():
        return given
    raise NotFoundError(f"no article {ref!r} in {folder} (see `nonseq articles list`)")
