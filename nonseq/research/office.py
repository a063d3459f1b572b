"""DOCX (python-docx) and EPUB (zipfile + lxml) text, with ZIP-bomb checks before anything is unpacked.

Neither format has fixed pages: a DOCX is one running text (Word's page breaks depend on the last
render), an EPUB one text per spine item (chapter). So their chunks carry no page numbers.
"""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from nonseq.models import Outcome
from nonseq.research.paged import DOCX, EPUB, EmitPage, Limits, PagedDocument, Skip, emit_pages

_BLOCKS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "pre", "blockquote", "dd", "dt", "td", "th",
           "figcaption", "caption", "div", "section", "article", "tr"}
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"


def check_zip(data: bytes, limits: Limits) -> zipfile.ZipFile:
    """The open ZIP when its member count and declared unpacked size are under the limits."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise Skip(Outcome.UNREADABLE, f"unreadable document (broken ZIP: {exc})") from None
    infos = archive.infolist()
    if len(infos) > limits.max_members:
        raise Skip(Outcome.TOO_LARGE, f"{len(infos):,} ZIP members: over the limit of {limits.max_members:,}")
    unpacked = sum(i.file_size for i in infos)
    if unpacked > limits.max_unzipped_bytes:
        raise Skip(Outcome.TOO_LARGE, f"unpacks to {unpacked:,} bytes: over the limit of "
                   f"{limits.max_unzipped_bytes:,} (a ZIP bomb?)")
    return archive


def read_docx(data: bytes, limits: Limits, deadline: float, emit: EmitPage | None = None) -> PagedDocument:
    """DOCX paragraphs and tables in body order (python-docx); the title from its properties or first heading."""
    import docx
    from docx.table import Table

    check_zip(data, limits).close()  # zipfile enforces each member's declared size while reading
    document = docx.Document(io.BytesIO(data))
    lines: list[str] = []
    title = " ".join((document.core_properties.title or "").split())
    truncated, chars = "", 0
    for block in document.iter_inner_content():
        if time.monotonic() > deadline:
            raise Skip(Outcome.TIMEOUT, f"time limit ({limits.seconds:g} s) reached")
        if chars > limits.max_chars:
            truncated = f"text limit ({limits.max_chars:,} chars) after {len(lines):,} paragraphs"
            break
        if isinstance(block, Table):
            rows = _table_rows(block)
            lines.extend(rows)
            chars += sum(len(row) for row in rows)
            continue
        text = " ".join(block.text.split())
        style = (block.style.name if block.style is not None else "").lower()
        if text and not title and (style == "title" or style.startswith("heading")):
            title = text
        if text:
            lines.append(text)
            chars += len(text)
    return emit_pages(PagedDocument(title, kind=DOCX, truncated=truncated), ["\n".join(lines)], emit)


def _table_rows(table: Any) -> list[str]:
    """A table as one line per row, cells joined with ' | ' (merged cells once)."""
    rows = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            text = " ".join(cell.text.split())
            if text and (not cells or cells[-1] != text):
                cells.append(text)
        if cells:
            rows.append(" | ".join(cells))
    return rows


def read_epub(data: bytes, limits: Limits, deadline: float, emit: EmitPage | None = None) -> PagedDocument:
    """EPUB chapters in spine order; DRM-protected books are skipped."""
    from lxml import etree

    archive = check_zip(data, limits)
    names = set(archive.namelist())
    if "META-INF/encryption.xml" in names and b"EncryptedData" in archive.read("META-INF/encryption.xml"):
        raise Skip(Outcome.ENCRYPTED, "DRM-protected EPUB")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True, huge_tree=False)
    container = etree.fromstring(archive.read("META-INF/container.xml"), parser)
    opf_path = str(container.xpath("string(//*[local-name()='rootfile']/@full-path)"))
    if opf_path not in names:
        raise Skip(Outcome.UNREADABLE, "unreadable EPUB (no package document)")
    opf = etree.fromstring(archive.read(opf_path), parser)
    base = PurePosixPath(opf_path).parent
    manifest = {i.get("id"): i.get("href", "") for i in opf.iter(f"{_OPF}item")}
    title = " ".join((opf.findtext(f".//{_DC}title") or "").split())
    texts: list[str] = []
    read: set[str] = set()  # a spine that lists one chapter 300 times gets it once
    truncated, chars = "", 0
    for ref in opf.iter(f"{_OPF}itemref"):
        if time.monotonic() > deadline:
            raise Skip(Outcome.TIMEOUT, f"time limit ({limits.seconds:g} s) reached")
        href = str(manifest.get(ref.get("idref"), "")).split("#", 1)[0]
        member = str(base / href) if str(base) != "." else href
        if member not in names or member in read:
            continue
        if len(read) >= limits.max_pages:
            truncated = f"chapter limit: first {limits.max_pages:,} chapters"
            break
        read.add(member)
        text = xhtml_text(archive.read(member))
        chars += len(text)
        if chars > limits.max_chars:
            truncated = f"text limit ({limits.max_chars:,} chars) after {len(texts)} chapters"
            break
        texts.append(text)
    return emit_pages(PagedDocument(title, kind=EPUB, truncated=truncated), texts, emit)


def xhtml_text(data: bytes) -> str:
    """One line per block element of an (X)HTML chapter; scripts and styles dropped."""
    from lxml import html

    root = html.fromstring(data, parser=html.HTMLParser(no_network=True, recover=True, remove_comments=True))
    for bad in root.xpath("//script|//style|//head"):
        bad.drop_tree()
    lines: list[str] = []
    parts: list[str] = []
    for piece in _walk(root):
        if piece is not None:
            parts.append(piece)
        elif parts:
            lines.append(" ".join("".join(parts).split()))
            parts = []
    if parts:
        lines.append(" ".join("".join(parts).split()))
    return "\n".join(line for line in lines if line)


def _walk(element: Any) -> Iterator[str | None]:
    """Text pieces in document order, and None at block element edges."""
    tag = element.tag.rsplit("}", 1)[-1].lower() if isinstance(element.tag, str) else ""
    block = tag in _BLOCKS or tag == "br"
    if block:
        yield None
    if element.text:
        yield element.text
    for child in element:
        yield from _walk(child)
        if child.tail:
            yield child.tail
    if block:
        yield None
