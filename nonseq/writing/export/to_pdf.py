"""An article as a PDF (fpdf2, no browser or system service): the Roboto TTF of the `font-roboto`
package embedded (Latin, Greek, Cyrillic and typographic quotes; the core PDF fonts are Latin-1
only), front matter as document information, citations as links to the sources' places."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nonseq.errors import UsageError
from nonseq.writing.export.document import Block, Document, Span

FONT = "Roboto"
#: Point sizes: body, and headings by level (the title is level 0).
BODY_SIZE = 11
HEADING_SIZES = {0: 20, 1: 17, 2: 15, 3: 13, 4: 12, 5: 11, 6: 11}
LINK_RGB = (5, 99, 193)
INDENT = 6.0  # mm per list level


def font_files() -> dict[str, Path]:
    """Regular, bold, italic and bold-italic Roboto from the font-roboto package."""
    try:
        import font_roboto
    except ImportError:
        raise UsageError("PDF export needs the font-roboto package (pip install font-roboto)") from None
    folder = Path(font_roboto.font_directory)
    files = {"": "Roboto-Regular.ttf", "B": "Roboto-Bold.ttf", "I": "Roboto-Italic.ttf",
             "BI": "Roboto-BoldItalic.ttf"}
    return {style: folder / name for style, name in files.items()}


class _Writer:
    """Lays out a Document on an FPDF, page by page."""

    def __init__(self, doc: Document) -> None:
        from fpdf import FPDF

        logging.getLogger("fpdf").setLevel(logging.ERROR)
        logging.getLogger("fontTools").setLevel(logging.ERROR)
        self.doc = doc
        self.pdf = FPDF(format="A4", unit="mm")
        self.pdf.set_margins(20, 18, 20)
        self.pdf.set_auto_page_break(True, margin=18)
        for style, path in font_files().items():
            self.pdf.add_font(FONT, style, str(path))
        self.links: dict[int, int] = {}

    def font(self, span: Span | None = None, size: float = BODY_SIZE, bold: bool = False) -> None:
        """Set the font for a span (or plain text)."""
        style = ("B" if bold or (span and span.bold) else "") + ("I" if span and span.italic else "")
        self.pdf.set_font(FONT, style, size)

    def spans(self, spans: list[Span], size: float = BODY_SIZE, bold: bool = False) -> None:
        """Flow spans as text, links in colour."""
        height = size * 0.5
        for span in spans:
            self.font(span, size, bold)
            link: Any = self.links.get(span.cite, "") if span.cite else span.href
            self.pdf.set_text_color(*(LINK_RGB if link else (90, 90, 90) if span.code else (0, 0, 0)))
            self.pdf.write(height, span.text, link=link)
        self.pdf.set_text_color(0, 0, 0)
        self.pdf.ln(height)

    def block(self, block: Block) -> None:
        """One block, with its spacing."""
        pdf = self.pdf
        if block.kind == "heading":
            pdf.ln(3)
            self.spans(block.spans, HEADING_SIZES.get(block.level, BODY_SIZE), bold=True)
        elif block.kind == "rule":
            pdf.line(pdf.l_margin, pdf.get_y() + 2, pdf.w - pdf.r_margin, pdf.get_y() + 2)
            pdf.ln(4)
        elif block.kind in ("item", "quote"):
            indent = INDENT * max(1, block.level)
            left = pdf.l_margin
            pdf.set_left_margin(left + indent)
            pdf.set_x(left + indent)
            marker = [] if block.kind == "quote" else [
                Span(f"{block.number}. " if block.number else "\u2022 ")]
            self.spans(marker + block.spans)
            pdf.set_left_margin(left)
        elif block.kind == "code":
            self.spans([Span(block.text, code=True)], BODY_SIZE - 1)
        else:
            self.spans(block.spans)
        pdf.ln(2)

    def sources(self) -> None:
        """The Sources heading and list; each entry is where its citations jump."""
        pdf = self.pdf
        pdf.ln(3)
        self.spans([Span("Sources")], HEADING_SIZES[1], bold=True)
        pdf.ln(1)
        for source in self.doc.sources:
            pdf.set_link(self.links[source.n], y=pdf.get_y(), page=pdf.page_no())
            self.spans([Span(f"[{source.n}] {source.label} — "), Span(source.location, href=source.url)])
            pdf.ln(1)
        if not self.doc.sources:
            self.spans([Span("No sources are cited in this article.")])

    def metadata(self) -> None:
        """Document information: title, subject (topic), author, keywords, creator, date, language."""
        props, pdf = self.doc.properties(), self.pdf
        pdf.set_title(self.doc.title)
        pdf.set_subject(props.get("topic", ""))
        pdf.set_author(props.get("persona") or "NonSequitur")
        keywords = [props.get(k, "") for k in ("category", "schema", "slug")] + (["DRAFT"] if self.doc.draft else [])
        pdf.set_keywords(", ".join(k for k in keywords if k))
        pdf.set_creator("NonSequitur")
        created = self.doc.created()
        if created is not None:
            pdf.set_creation_date(created)

    def render(self) -> bytes:
        """The whole document."""
        pdf = self.pdf
        self.metadata()
        pdf.add_page()
        # placeholders on page 1; each is moved to its source's place when the list is laid out
        self.links = {s.n: pdf.add_link(page=1) for s in self.doc.sources}
        if self.doc.draft:
            pdf.set_text_color(187, 0, 0)
            self.font(size=BODY_SIZE + 1, bold=True)
            why = "; ".join(self.doc.reasons)
            pdf.multi_cell(0, 6, "DRAFT" + (f": {why}" if why else ""), border=1)
            pdf.set_text_color(0, 0, 0)
            pdf.ln(3)
        self.spans([Span(self.doc.title)], HEADING_SIZES[0], bold=True)
        pdf.ln(3)
        for block in self.doc.blocks:
            self.block(block)
        self.sources()
        return bytes(pdf.output())


def document_text(doc: Document) -> str:
    """Every character the PDF shows."""
    parts = [doc.title, *(b.text for b in doc.blocks), *(f"{s.label} {s.location}" for s in doc.sources),
             *doc.reasons]
    return "".join(parts)


def missing_glyphs(doc: Document) -> str:
    """The characters of the document Roboto has no glyph for (the PDF leaves them out), in order."""
    from fontTools.ttLib import TTFont

    with TTFont(str(font_files()[""]), lazy=True) as font:
        cmap = font.getBestCmap()
    return "".join(dict.fromkeys(c for c in document_text(doc) if not c.isspace() and ord(c) not in cmap))


def to_pdf(doc: Document, warn: Callable[[str], None] | None = None) -> bytes:
    """The whole document as PDF bytes; `warn` hears of characters the font cannot show."""
    if warn is not None:
        lost = missing_glyphs(doc)
        if lost:
            warn(f"the PDF font (Roboto) has no glyph for {len(lost)} character(s), left out: "
                 f"{lost[:20]}{'…' if len(lost) > 20 else ''} (HTML and DOCX keep them)")
    return _Writer(doc).render()
