"""Extraction: main text and metadata from HTML (trafilatura), Markdown and plain text pages."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from nonseq.models import Outcome, content_hash

#: Content kinds the extractor understands.
HTML, MARKDOWN, TEXT = "html", "markdown", "text"

#: Pages with more elements than this are fragment-heavy (the 181 real news pages of the benchmark have
#: at most 1,709): their text is read in one linear pass (extract_fragments) instead of by trafilatura.
FRAGMENT_ELEMENTS = 10_000
#: extract_fragments: elements whose subtree is page furniture or not text.
_SKIP_TAGS = frozenset({"head", "script", "style", "noscript", "template", "nav", "header", "footer", "aside",
                        "form", "svg", "iframe", "button", "select", "textarea", "object", "canvas"})
#: extract_fragments: elements that start and end a line of text.
_BLOCK_TAGS = frozenset({"p", "div", "li", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "td", "th",
                         "pre", "blockquote", "section", "article", "main", "dd", "dt", "dl", "ul", "ol",
                         "table", "figcaption", "caption", "address", "details", "summary"})
_MD_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
_TEXT_SUFFIXES = (".txt", ".text", ".rst")
_HTML_SUFFIXES = (".html", ".htm", ".xhtml")
_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n(?:---|\.\.\.)\s*\n", re.DOTALL)
_FM_FIELD = re.compile(r"^(title|author|date|published)\s*:\s*(.+?)\s*$", re.MULTILINE | re.I)
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_SETEXT = re.compile(r"^\s{0,3}(?:=+|-+)\s*$")
_MD_BLOCK_LINE = re.compile(r"^\s{0,3}(#{1,6}\s|[-*+]\s|\d+[.)]\s|>|\||```|~~~)")
_MD_INLINE = [
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # images → alt text
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # links → their text
    (re.compile(r"(\*\*|__)(.+?)\1"), r"\2"),  # bold
    (re.compile(r"`([^`]+)`"), r"\1"),  # inline code
]


@dataclass
class Document:
    """The main text of a page and its metadata."""

    text: str
    url: str
    title: str = ""
    author: str = ""
    published: str = ""
    site_name: str = ""
    #: The site's section(s) the page is filed under, from its metadata ("Opinion", "ideas"; "" when none).
    section: str = ""
    kind: str = HTML
    #: The page each line of `text` comes from (documents with fixed pages, e.g. PDFs; else empty).
    line_pages: list[int] = field(default_factory=list)

    @property
    def content_hash(self) -> str:
        """The stable hash of the text (models.content_hash)."""
        return content_hash(self.text)


@dataclass
class Extraction:
    """What extraction made of one page: a document, or the outcome and reason it was dropped."""

    outcome: Outcome
    document: Document | None = None
    reason: str = ""
    #: The setting that cut the document's chunks short ("[research] max_chunks_per_page"), if one did.
    capped: str = ""

    @property
    def ok(self) -> bool:
        """True when the page yielded a document to index."""
        return self.outcome == Outcome.FETCHED and self.document is not None


def content_kind(content_type: str, url: str = "") -> str:
    """html, markdown or text, from the content type (then the URL's file suffix)."""
    mime = content_type.split(";", 1)[0].strip().lower()
    suffix = PurePosixPath(unquote(urlsplit(url).path)).suffix.lower()
    if mime in ("text/markdown", "text/x-markdown") or suffix in _MD_SUFFIXES:
        return MARKDOWN
    if "html" in mime or "xml" in mime or suffix in _HTML_SUFFIXES:
        return HTML
    if mime.startswith("text/") or suffix in _TEXT_SUFFIXES:
        return TEXT
    return HTML


def guess_content_type(name: str) -> str:
    """text/html, text/markdown or text/plain from a file name's suffix."""
    suffix = PurePosixPath(name).suffix.lower()
    if suffix in _HTML_SUFFIXES:
        return "text/html"
    return "text/markdown" if suffix in _MD_SUFFIXES else "text/plain"


def extract_html(
    html: str | bytes, url: str = "", *, favor_precision: bool = False,
    favor_recall: bool = False, fast: bool = False,
) -> Document | None:
    """Main text plus title, author, date and site name with trafilatura (None when empty).

    A fragment-heavy page (more than FRAGMENT_ELEMENTS elements) is read in one linear pass
    instead (extract_fragments): trafilatura's many whole-tree passes take minutes on it.
    """
    import trafilatura
    from trafilatura.utils import load_html

    tree = load_html(html)
    if tree is None:
        return None
    if _more_elements_than(tree, FRAGMENT_ELEMENTS):
        return extract_fragments(tree, url)
    if favor_precision:
        _keep_inline_words(tree)
    doc = trafilatura.bare_extraction(
        tree, url=url or None, with_metadata=True, include_comments=False,
        include_tables=True, favor_precision=favor_precision, favor_recall=favor_recall,
        fast=fast,
    )
    if doc is None or isinstance(doc, dict) or not (doc.text or "").strip():
        return None
    return Document(
        text=_tidy_lines(doc.text or ""), url=url, title=_one_line(doc.title),
        author=_one_line(doc.author), published=_one_line(doc.date),
        site_name=_one_line(doc.sitename), section=_one_line(", ".join(doc.categories or [])), kind=HTML,
    )


#: What trafilatura's precision mode discards wherever it stands (its PRECISION_DISCARD_XPATH): a "link" or
#: "bottom" class or id, a border style.
_DISCARDED = re.compile(r"(?:^|\s)(?:link|bottom)(?:\s|$)|^bottom|bottom$")


def _keep_inline_words(tree: Any) -> None:
    """Take the discard marks off a span with words of its paragraph before and after it: its words are part of a
    sentence ("has reported that <span class="link">the NFL will fine Rudolph</span> for his role" had lost the
    words and kept the rest), where the mark is meant for a block of links or page-bottom chrome."""
    for span in tree.xpath("//p//span[@class or @id or @style]"):
        marks = f"{span.get('class', '')} {span.get('id', '')}".strip()
        if not (_DISCARDED.search(marks) or "border" in span.get("style", "")):
            continue
        paragraph = next(span.iterancestors("p"))
        text = paragraph.text_content()
        inner = span.text_content()
        at = text.find(inner)
        if inner.strip() and at > 0 and re.search(r"\w", text[:at]) and re.search(r"\w", text[at + len(inner):]):
            for name in ("class", "id", "style"):
                span.attrib.pop(name, None)


def extract_fragments(tree: Any, url: str = "") -> Document | None:
    """The text of a huge page in one pass over its elements: one line per block, furniture skipped.

    Metadata (title, author, date, site name) comes from trafilatura reading the page's <head> only.
    """
    from lxml import etree

    lines: list[str] = []
    parts: list[str] = []

    def flush() -> None:
        """End the current line: keep it if it has text."""
        line = _one_line("".join(parts))
        if line:
            lines.append(line)
        parts.clear()

    walker = etree.iterwalk(tree, events=("start", "end"))
    for event, elem in walker:
        tag = elem.tag if isinstance(elem.tag, str) else ""  # comments and PIs carry no text of their own
        if event == "start":
            if tag in _SKIP_TAGS or not tag:
                walker.skip_subtree()
                continue
            if tag in _BLOCK_TAGS:
                flush()
            parts.append(elem.text or "")
        else:
            if tag in _BLOCK_TAGS:
                flush()
            if elem is not tree:
                parts.append(elem.tail or "")
    flush()
    if not lines:
        return None
    meta = _head_metadata(tree, url)
    return Document(text="\n".join(lines), url=url, title=_one_line(meta.title),
                    author=_one_line(meta.author), published=_one_line(meta.date),
                    site_name=_one_line(meta.sitename), section=_one_line(", ".join(meta.categories or [])),
                    kind=HTML)


def _head_metadata(tree: Any, url: str) -> Any:
    """trafilatura's metadata of the page's <head> alone (a bounded read of a page of any size)."""
    import lxml.html
    from lxml import etree
    from trafilatura.metadata import extract_metadata

    head = tree.find(".//head")
    small = f"<html>{etree.tostring(head, encoding='unicode') if head is not None else ''}<body></body></html>"
    return extract_metadata(lxml.html.fromstring(small), url or None, {"extensive_search": False})


def _more_elements_than(tree: Any, limit: int) -> bool:
    """True when the tree has more than `limit` elements (counting stops there)."""
    return any(n > limit for n, _ in enumerate(tree.iter(), 1))


def extract_plain(text: str, url: str = "", *, markdown: bool = False) -> Document:
    """A document from Markdown or plain text, without trafilatura; paragraphs one per line."""
    meta: dict[str, str] = {}
    match = _FRONT_MATTER.match(text) if markdown else None
    if match:
        meta = {k.lower(): v.strip().strip("\"'") for k, v in _FM_FIELD.findall(match.group(1))}
        text = text[match.end():]
    paragraphs = _paragraphs(text, markdown)
    title = meta.get("title", "")
    if markdown and not title:
        title = next((m.group(1) for p in paragraphs if (m := _MD_HEADING.match(p))), "")
    if not title:
        title = _title_from(paragraphs, url)
    if markdown:
        paragraphs = [_strip_markdown(p) for p in paragraphs]
    return Document(
        text="\n".join(p for p in paragraphs if p), url=url, title=_one_line(title),
        author=_one_line(meta.get("author", "")),
        published=_one_line(meta.get("date") or meta.get("published", "")),
        kind=MARKDOWN if markdown else TEXT,
    )


def extract(body: str | bytes, content_type: str = "text/html", url: str = "",
            favor: str = "precision") -> Document | None:
    """Dispatch on the content kind: trafilatura for HTML, the plain path for Markdown/text."""
    kind = content_kind(content_type, url)
    if kind == HTML:
        return extract_html(body, url, favor_precision=favor == "precision",
                            favor_recall=favor == "recall")
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    return extract_plain(body, url, markdown=kind == MARKDOWN)


@dataclass
class Extractor:
    """Extracts pages for one topic: drops too-short pages and exact duplicates (by content hash)."""

    min_text_chars: int = 400
    favor: str = "precision"
    seen: dict[str, str] = field(default_factory=dict)

    def extract(self, body: str | bytes, content_type: str, url: str) -> Extraction:
        """Extract one page and decide whether it is indexed."""
        try:
            doc = extract(body, content_type, url, self.favor)
        except Exception as exc:  # trafilatura/lxml raise many kinds on broken markup
            return Extraction(Outcome.ERROR, reason=f"extraction failed: {type(exc).__name__}")
        return self.admit(doc, url)

    def admit(self, doc: Document | None, url: str) -> Extraction:
        """Apply the length and duplicate rules to an extracted document."""
        chars = len(doc.text) if doc else 0
        if doc is None or chars < self.min_text_chars:
            return Extraction(Outcome.TOO_SHORT, doc,
                              reason=f"main text {chars} chars < {self.min_text_chars}")
        digest = doc.content_hash
        if digest in self.seen:
            return Extraction(Outcome.DUPLICATE, doc, reason=f"same text as {self.seen[digest]}")
        self.seen[digest] = url
        return Extraction(Outcome.FETCHED, doc)


def _one_line(value: str | None) -> str:
    """Collapse whitespace; None becomes ''."""
    return " ".join(str(value).split()) if value else ""


def _tidy_lines(text: str) -> str:
    """One paragraph per line, whitespace collapsed, empty lines dropped."""
    return "\n".join(line for line in (_one_line(x) for x in text.splitlines()) if line)


def _paragraphs(text: str, markdown: bool) -> list[str]:
    """Blank-line separated blocks; soft-wrapped lines joined (Markdown block lines kept)."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        lines = [ln for ln in block.split("\n") if ln.strip()]
        current: list[str] = []
        for line in lines:
            if markdown and _SETEXT.match(line):  # "Title\n=====": the line above is a heading
                if current:
                    heading = current.pop()
                    if current:
                        out.append(_one_line(" ".join(current)))
                    out.append("# " + _one_line(heading))
                    current = []
                continue
            if markdown and _MD_BLOCK_LINE.match(line) and current:
                out.append(_one_line(" ".join(current)))
                current = []
            current.append(line)
            if markdown and _MD_HEADING.match(line):
                out.append(_one_line(" ".join(current)))
                current = []
        if current:
            out.append(_one_line(" ".join(current)))
    return [p for p in out if p]


def _strip_markdown(paragraph: str) -> str:
    """Plain text of a Markdown paragraph: heading marks, links, emphasis and fences removed."""
    if paragraph.startswith(("```", "~~~")):
        paragraph = paragraph.strip("`~ ")
    heading = _MD_HEADING.match(paragraph)
    if heading:
        paragraph = heading.group(1)
    for pattern, repl in _MD_INLINE:
        paragraph = pattern.sub(repl, paragraph)
    return paragraph.strip()


def _title_from(paragraphs: list[str], url: str) -> str:
    """A title for plain text: a short first line, else the file name."""
    if paragraphs and len(paragraphs[0]) <= 120 and not paragraphs[0].endswith((".", ",", ";")):
        return paragraphs[0]
    name = PurePosixPath(unquote(urlsplit(url).path)).stem
    return name.replace("_", " ").replace("-", " ").strip()
