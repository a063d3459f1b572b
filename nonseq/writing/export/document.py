"""An article read into plain data for export: title, blocks of styled spans, numbered sources, front matter.

The body is parsed with markdown-it-py (CommonMark). Each `[n]` citation in running text becomes a
span pointing at source n; the Sources section is rebuilt from the front matter, so every format
lists the same sources with the same numbers, labels (pages for documents) and links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from nonseq.text.markers import MARKER_RE, expand_marker

#: The article's own Sources section (rebuilt from the front matter).
SOURCES_RE = re.compile(r"^##[ \t]+Sources[ \t]*#*[ \t]*$", re.MULTILINE)
#: Characters XML 1.0 (DOCX) cannot hold.
_XML_BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass
class Span:
    """A run of text with its style; `href` links out, `cite` links to source number `cite`."""

    text: str
    bold: bool = False
    italic: bool = False
    code: bool = False
    href: str = ""
    cite: int = 0


@dataclass
class Block:
    """heading (level 1-6), paragraph, item (level = list depth, number = 0 for a bullet), quote, code, rule."""

    kind: str
    spans: list[Span] = field(default_factory=list)
    level: int = 0
    number: int = 0

    @property
    def text(self) -> str:
        """The block's plain text."""
        return "".join(s.text for s in self.spans)


@dataclass
class Source:
    """A numbered source: how it is cited (title, pages), where it is (URL or path) and its link."""

    n: int
    label: str
    location: str
    url: str

    @property
    def anchor(self) -> str:
        """The id citations link to."""
        return f"source-{self.n}"


@dataclass
class Document:
    """An article ready for any format."""

    title: str
    meta: dict[str, Any]
    blocks: list[Block]
    sources: list[Source]

    @property
    def draft(self) -> bool:
        """Whether the writer kept it only as a draft."""
        return str(self.meta.get("status", "")) == "draft"

    @property
    def reasons(self) -> list[str]:
        """Why it is a draft."""
        return [str(r) for r in self.meta.get("draft_reasons") or []]

    def properties(self) -> dict[str, str]:
        """The front matter's single values as strings (lists and tables left to the JSON copy)."""
        return {str(k): str(v) for k, v in self.meta.items()
                if isinstance(v, str | int | float | bool) and str(v) != ""}

    def created(self) -> datetime | None:
        """The article's date, if it parses."""
        try:
            return datetime.fromisoformat(str(self.meta.get("date", "")))
        except ValueError:
            return None


def clean(text: str) -> str:
    """Text without the control characters XML and PDF text cannot carry."""
    return _XML_BAD.sub("", text)


def source_list(meta: dict[str, Any]) -> list[Source]:
    """The front matter's sources: label with pages, a local file's path or the URL."""
    from nonseq.writing.sources import SourceRef

    out = []
    for raw in meta.get("sources") or []:
        if not isinstance(raw, dict) or not isinstance(raw.get("n"), int):
            continue
        pages = [p for p in raw.get("pages") or [] if isinstance(p, int)]
        ref = SourceRef(n=raw["n"], title=str(raw.get("title") or raw.get("url") or ""),
                        url=str(raw.get("url") or ""), pages=pages)
        out.append(Source(ref.n, clean(ref.label), clean(ref.location), ref.url))
    return sorted(out, key=lambda s: s.n)


def _cite_spans(text: str, bold: bool, italic: bool, known: set[int]) -> list[Span]:
    """A text run split at its `[n]` markers: one citation span per known number."""
    spans: list[Span] = []
    last = 0
    for m in MARKER_RE.finditer(text):
        nums = expand_marker(m.group(1))
        if not all(n in known for n in nums):
            continue
        if m.start() > last:
            spans.append(Span(text[last:m.start()], bold, italic))
        spans.extend(Span(f"[{n}]", bold, italic, cite=n) for n in nums)
        last = m.end()
    if last < len(text):
        spans.append(Span(text[last:], bold, italic))
    return spans


def inline_spans(children: list[Any], known: set[int]) -> list[Span]:
    """markdown-it inline tokens to spans (bold, italic, code, links, citations)."""
    spans: list[Span] = []
    bold = italic = 0
    href = ""
    for tok in children:
        strong, em = bold > 0, italic > 0
        kind = tok.type
        if kind == "text":
            text = clean(tok.content)
            spans.extend([Span(text, strong, em, href=href)] if href else _cite_spans(text, strong, em, known))
        elif kind == "code_inline":
            spans.append(Span(clean(tok.content), strong, em, code=True, href=href))
        elif kind in ("softbreak", "hardbreak"):
            spans.append(Span("\n" if kind == "hardbreak" else " ", strong, em))
        elif kind in ("strong_open", "strong_close"):
            bold += 1 if kind.endswith("open") else -1
        elif kind in ("em_open", "em_close"):
            italic += 1 if kind.endswith("open") else -1
        elif kind == "link_open":
            href = str(tok.attrs.get("href") or "")
        elif kind == "link_close":
            href = ""
        elif kind in ("image", "html_inline"):
            spans.append(Span(clean(tok.content), strong, em, href=href))
    return [s for s in spans if s.text]


def parse_blocks(body: str, known: set[int]) -> list[Block]:
    """The body's blocks, in order (CommonMark)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(body)
    blocks: list[Block] = []
    lists: list[int] = []  # per open list: the next number (0 = bullets)
    quote = 0
    pending: Block | None = None  # the heading or list item whose text comes next
    for tok in tokens:
        kind = tok.type
        if kind == "heading_open":
            pending = Block("heading", level=int(tok.tag[1:]))
        elif kind in ("bullet_list_open", "ordered_list_open"):
            lists.append(int(tok.attrs.get("start") or 1) if kind.startswith("ordered") else 0)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            pending = Block("item", level=len(lists), number=lists[-1])
            if lists[-1]:
                lists[-1] += 1
        elif kind in ("blockquote_open", "blockquote_close"):
            quote += 1 if kind.endswith("open") else -1
        elif kind == "inline":
            block = pending or Block("quote" if quote else "paragraph")
            block.spans = inline_spans(tok.children or [], known)
            blocks.append(block)
            pending = None
        elif kind in ("fence", "code_block"):
            blocks.append(Block("code", [Span(clean(tok.content.rstrip("\n")), code=True)]))
        elif kind == "html_block":
            blocks.append(Block("paragraph", [Span(clean(tok.content.strip()))]))
        elif kind == "hr":
            blocks.append(Block("rule"))
    return blocks


def split_sources(body: str) -> str:
    """The body without its own Sources section (the last `## Sources` heading and what follows)."""
    found = list(SOURCES_RE.finditer(body))
    return body[: found[-1].start()].rstrip() if found else body.rstrip()


def load_document(path: Path) -> Document:
    """An article file read into a Document."""
    from nonseq.writing.articles import read_article

    meta, body = read_article(path)
    sources = source_list(meta)
    blocks = parse_blocks(split_sources(body), {s.n for s in sources})
    title = clean(str(meta.get("title") or ""))
    if blocks and blocks[0].kind == "heading" and blocks[0].level == 1:
        title = blocks.pop(0).text or title
    return Document(title=title or path.stem, meta=meta, blocks=blocks, sources=sources)
