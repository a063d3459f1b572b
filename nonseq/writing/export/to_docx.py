"""An article as a Word document (python-docx): core properties from the front matter, citations as
internal links to bookmarked sources, source URLs as external links."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

from nonseq.writing.export.document import Block, Document, Span

if TYPE_CHECKING:
    from docx.text.paragraph import Paragraph

LINK_COLOR = "0563C1"
CUSTOM_CT = "application/vnd.openxmlformats-officedocument.custom-properties+xml"
CUSTOM_NS = "http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"
VT_NS = "http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"
#: The format id every user-defined custom property carries.
FMTID = "{D5CDD505-2E9C-101B-9397-08002B2CF9AE}"
MONO = "Courier New"


def _run_props(bold: bool = False, italic: bool = False, code: bool = False, link: bool = False) -> Any:
    """A <w:rPr> with the run's style."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    rpr = OxmlElement("w:rPr")
    if code:
        fonts = OxmlElement("w:rFonts")
        for attr in ("w:ascii", "w:hAnsi", "w:cs"):
            fonts.set(qn(attr), MONO)
        rpr.append(fonts)
    for flag, tag in ((bold, "w:b"), (italic, "w:i")):
        if flag:
            rpr.append(OxmlElement(tag))
    if link:
        color = OxmlElement("w:color")
        color.set(qn("w:val"), LINK_COLOR)
        underline = OxmlElement("w:u")
        underline.set(qn("w:val"), "single")
        rpr.extend([color, underline])
    return rpr


def add_link(paragraph: Paragraph, span: Span, *, url: str = "", anchor: str = "") -> None:
    """A hyperlink run: external (a relationship to url) or internal (to a bookmark)."""
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    link = OxmlElement("w:hyperlink")
    if url:
        link.set(qn("r:id"), paragraph.part.relate_to(url, RT.HYPERLINK, is_external=True))
    else:
        link.set(qn("w:anchor"), anchor)
    run = OxmlElement("w:r")
    run.append(_run_props(span.bold, span.italic, span.code, link=True))
    text = OxmlElement("w:t")
    text.set(qn("xml:space"), "preserve")
    text.text = span.text
    run.append(text)
    link.append(run)
    paragraph._p.append(link)


def add_spans(paragraph: Paragraph, spans: list[Span]) -> None:
    """Spans as runs and hyperlinks."""
    for span in spans:
        if span.cite:
            add_link(paragraph, span, anchor=f"source-{span.cite}")
        elif span.href:
            add_link(paragraph, span, url=span.href)
        else:
            run = paragraph.add_run(span.text)
            run.bold, run.italic = span.bold or None, span.italic or None
            if span.code:
                run.font.name = MONO


def bookmark(paragraph: Paragraph, name: str, ident: int, text: str) -> None:
    """A bookmarked run: what internal links jump to."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    start = OxmlElement("w:bookmarkStart")
    start.set(qn("w:id"), str(ident))
    start.set(qn("w:name"), name)
    end = OxmlElement("w:bookmarkEnd")
    end.set(qn("w:id"), str(ident))
    paragraph._p.append(start)
    paragraph.add_run(text)
    paragraph._p.append(end)


def _style(block: Block) -> str:
    """The built-in paragraph style of a block."""
    if block.kind == "item":
        base = "List Number" if block.number else "List Bullet"
        return base if block.level <= 1 else f"{base} {min(block.level, 3)}"
    return {"quote": "Quote"}.get(block.kind, "Normal")


def add_blocks(document: Any, blocks: list[Block]) -> None:
    """The body's blocks as headings and paragraphs."""
    for block in blocks:
        if block.kind == "heading":
            paragraph = document.add_heading("", level=min(9, max(1, block.level - 1)))
        elif block.kind == "rule":
            document.add_paragraph("\u2015" * 12)
            continue
        else:
            paragraph = document.add_paragraph(style=_style(block))
        spans = [Span(s.text, code=True) for s in block.spans] if block.kind == "code" else block.spans
        add_spans(paragraph, spans)


def set_properties(document: Any, doc: Document) -> None:
    """Core properties: title, subject (topic), category, keywords, author, created, and the front matter."""
    props = doc.properties()
    core = document.core_properties
    core.title = doc.title
    core.subject = props.get("topic", "")
    core.category = props.get("category", "")
    core.keywords = ", ".join(v for v in (props.get("category"), props.get("schema"), props.get("slug")) if v)
    core.author = props.get("persona") or "NonSequitur"
    core.identifier = props.get("slug", "")
    core.content_status = "DRAFT" if doc.draft else props.get("status", "")
    summary = "; ".join(f"{k}: {v}" for k, v in props.items() if k not in ("title", "topic"))
    core.comments = summary if len(summary) <= 255 else summary[:254] + "…"
    created = doc.created()
    if created is not None:
        core.created = created
    custom = {**props, "sources": json.dumps(doc.meta.get("sources") or [], ensure_ascii=False, default=str)}
    add_custom_properties(document, custom)


def add_custom_properties(document: Any, values: dict[str, str]) -> None:
    """docProps/custom.xml: every front matter value as a custom document property (Word: File > Info)."""
    from xml.sax.saxutils import escape, quoteattr

    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    rows = "".join(f'<property fmtid="{FMTID}" pid="{pid}" name={quoteattr(name)}>'
                   f"<vt:lpwstr>{escape(value)}</vt:lpwstr></property>"
                   for pid, (name, value) in enumerate(values.items(), start=2))
    xml = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns="{CUSTOM_NS}" '
           f'xmlns:vt="{VT_NS}">{rows}</Properties>').encode()
    package = document.part.package
    part = Part(PackURI("/docProps/custom.xml"), CUSTOM_CT, xml, package)
    package.relate_to(part, RT.CUSTOM_PROPERTIES)


def to_docx(doc: Document) -> bytes:
    """The whole document as DOCX bytes."""
    from docx import Document as Docx
    from docx.shared import RGBColor

    document = Docx()
    set_properties(document, doc)
    if doc.draft:
        banner = document.add_paragraph()
        run = banner.add_run("DRAFT" + (": " + "; ".join(doc.reasons) if doc.reasons else ""))
        run.bold = True
        run.font.color.rgb = RGBColor(0xBB, 0, 0)
    document.add_heading(doc.title, level=0)
    add_blocks(document, doc.blocks)
    document.add_heading("Sources", level=1)
    for i, source in enumerate(doc.sources):
        paragraph = document.add_paragraph()
        bookmark(paragraph, source.anchor, i + 1, f"[{source.n}]")
        paragraph.add_run(f" {source.label} — ")
        if source.url:
            add_link(paragraph, Span(source.location), url=source.url)
        else:
            paragraph.add_run(source.location)
    if not doc.sources:
        document.add_paragraph("No sources are cited in this article.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
