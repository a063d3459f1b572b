"""PDF text per page with pypdfium2 (PDFium): reading order, two-column pages, the title, clear reasons.

Chosen on measurement (docs/documents.md): best 4-gram F1 of the libraries tried on 15 held-out real
PDFs, about 30x faster than pdfminer.six. Runs inside the document reader's child process: one hostile
page can hold PDFium for many seconds and gigabytes, which only a process limit stops.
"""

from __future__ import annotations

import ctypes
import itertools
import re
import time
from typing import Any

from nonseq.models import Outcome
from nonseq.research.paged import PDF, EmitPage, Limits, PagedDocument, Skip, emit_pages
from nonseq.research.pdfclean import Line, clean_pages, normalise, visible_chars
from nonseq.text.display import stripped

#: Fewer visible characters than this make a page "without text".
MIN_PAGE_CHARS = 20
#: Consecutive pages that fail to load before a PDF is given up (a lying /Count, a broken page tree).
MAX_BAD_PAGES = 20
Rect = tuple[float, float, float, float]
_JUNK_TITLE = re.compile(r"^(?:untitled\b|slide \d+|powerpoint presentation|document\d*$|"
                         r"(?:name|contents|table of contents|abstract|preface|introduction|title)$|"
                         r".*\.(?:docx?|pdf|tex|dvi|rtf|odt|pptx?|indd|qxd)$)", re.IGNORECASE)


def read_pdf(data: bytes, limits: Limits, deadline: float, emit: EmitPage | None = None) -> PagedDocument:
    """PDF text per page; encrypted, image-only and unreadable files raise Skip with the reason."""
    import pypdfium2 as pdfium

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            raise Skip(Outcome.ENCRYPTED, "encrypted PDF (needs a password)") from None
        detail = re.search(r"PDFium: ([^)]*)", message)
        raise Skip(Outcome.UNREADABLE, f"unreadable PDF ({detail.group(1) if detail else message})") from None
    try:
        return _pdf_pages(pdf, limits, deadline, emit)
    finally:
        pdf.close()


def _pdf_pages(pdf: Any, limits: Limits, deadline: float, emit: EmitPage | None) -> PagedDocument:
    """Raw page texts under the page, time and size limits, then cleaned and emitted."""
    total = len(pdf)
    wanted = min(total, limits.max_pages)
    raw: list[list[Line]] = []
    truncated = f"page limit: first {wanted} of {total} pages" if wanted < total else ""
    chars = failed = images = unreadable = 0
    for index in range(wanted):
        if time.monotonic() > deadline:
            truncated = f"time limit ({limits.seconds:g} s) after {index} of {total} pages"
            break
        lines, has_image = page_lines(pdf, index)
        failed = failed + 1 if lines is None else 0
        if failed >= MAX_BAD_PAGES:
            truncated = f"{failed} unreadable pages in a row at page {index + 1} of {total}"
            break
        unreadable += lines is None
        chars += sum(len(x.text) for x in lines or ())
        if chars > limits.max_chars:
            truncated = f"text limit ({limits.max_chars:,} chars) after {index} of {total} pages"
            break
        raw.append(lines or [])
        images += has_image
    if raw and unreadable == len(raw):
        raise Skip(Outcome.UNREADABLE, f"unreadable PDF: no page could be loaded ({truncated or 'broken page tree'})")
    meta = {k: stripped(str(v)) for k, v in pdf.get_metadata_dict(skip_empty=True).items()}
    return _pdf_document(raw, images, meta, truncated, emit)


def page_lines(pdf: Any, index: int) -> tuple[list[Line] | None, bool]:
    """(lines with geometry, or None when the page cannot be loaded; whether a near-empty page has an image)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as pdfium_c

    try:
        page = pdf[index]
    except pdfium.PdfiumError:
        return None, False
    try:
        textpage = page.get_textpage()
        lines = column_lines(textpage, page.get_width()) or pdfium_lines(textpage)
        textpage.close()
        has_image = False
        if visible_chars([x.text for x in lines]) < MIN_PAGE_CHARS:
            images = page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2)
            has_image = any(True for _ in images)
        return lines, has_image
    finally:
        page.close()


def pdfium_lines(textpage: Any) -> list[Line]:
    """PDFium's text lines, each with the baseline y and font size of its first character."""
    import pypdfium2.raw as pdfium_c

    text = textpage.get_text_range()
    x, y = ctypes.c_double(), ctypes.c_double()
    lines, pos = [], 0
    for raw in text.split("\r\n"):
        first = pos + len(raw) - len(raw.lstrip())
        if raw.strip() and pdfium_c.FPDFText_GetCharOrigin(textpage.raw, first, ctypes.byref(x), ctypes.byref(y)):
            lines.append(Line(raw, y.value, pdfium_c.FPDFText_GetFontSize(textpage.raw, first)))
        elif raw.strip():
            lines.append(Line(raw))
        pos += len(raw) + 2
    return lines


def column_lines(textpage: Any, width: float) -> list[Line] | None:
    """Lines in column order when the page has two text columns drawn row by row (else None).

    PDFium orders text as the content stream draws it; a generator that draws two columns row by row
    gets its columns interleaved. The text runs' rectangles show a vertical gutter, and PDFium's order
    keeps crossing it: then runs are re-read left column first, right column next, band by band
    between runs that cross the gutter. Pages PDFium already reads column by column are left alone,
    and so are tables and contents pages (their lines do not fill a column).
    """
    rects: list[Rect] = [textpage.get_rect(i) for i in range(textpage.count_rects())]
    gutter = find_gutter(rects, width)
    if gutter is None or not _interleaved(rects, gutter) or not _prose_columns(rects, gutter, width):
        return None
    ordered: list[Rect] = []
    band: list[Rect] = []
    for rect in sorted(rects, key=lambda r: (-r[3], r[0])):
        if rect[0] < gutter < rect[2]:  # crosses the gutter: closes the band above it
            ordered += _columns_of(band, gutter) + [rect]
            band = []
        else:
            band.append(rect)
    ordered += _columns_of(band, gutter)
    return _rect_lines(textpage, ordered)


def find_gutter(rects: list[Rect], width: float) -> float | None:
    """The x of an empty vertical strip (>= 8 pt) mid-page with text beside it on both sides."""
    narrow = [r for r in rects if r[2] - r[0] < 0.45 * width]
    if len(narrow) < 10:
        return None
    covered = bytearray(int(width) + 2)
    for x0, _, x1, _ in narrow:
        start, end = max(0, int(x0)), min(len(covered), int(x1) + 1)
        covered[start:end] = b"\x01" * max(0, end - start)
    best: tuple[int, int] | None = None
    run = 0
    for x in range(int(0.3 * width), int(0.7 * width)):
        run = run + 1 if not covered[x] else 0
        if run >= 8 and (best is None or run > best[1]):
            best = (x - run // 2, run)
    if best is None:
        return None
    gutter = float(best[0])
    left = [r for r in narrow if r[2] <= gutter]
    right = [r for r in narrow if r[0] >= gutter]
    if min(len(left), len(right)) < 5:
        return None
    overlap = (min(max(r[3] for r in left), max(r[3] for r in right))
               - max(min(r[1] for r in left), min(r[1] for r in right)))
    span = min(max(r[3] for r in side) - min(r[1] for r in side) for side in (left, right))
    return gutter if span > 0 and overlap > 0.5 * span else None


def _interleaved(rects: list[Rect], gutter: float) -> bool:
    """True when PDFium's run order jumps between the columns often (drawn row by row)."""
    sides = [r[2] <= gutter for r in rects if not r[0] < gutter < r[2]]
    switches = sum(1 for a, b in itertools.pairwise(sides) if a != b)
    return switches > max(4, 0.25 * min(sides.count(True), sides.count(False)))


def _prose_columns(rects: list[Rect], gutter: float, width: float) -> bool:
    """True when both columns are wide (>= 1/4 page) and their lines fill them (prose, not table cells)."""
    for left_side in (True, False):
        lines: dict[int, list[float]] = {}
        for r in rects:
            if (r[2] <= gutter) == left_side and not r[0] < gutter < r[2]:
                extent = lines.setdefault(round(r[1]), [r[0], r[2]])
                extent[0], extent[1] = min(extent[0], r[0]), max(extent[1], r[2])
        if not lines:
            return False
        column = max(e[1] for e in lines.values()) - min(e[0] for e in lines.values())
        fills = sorted((e[1] - e[0]) / column for e in lines.values()) if column > 0 else [0.0]
        if column < 0.25 * width or fills[len(fills) // 2] < 0.7:
            return False
    return True


def _columns_of(band: list[Rect], gutter: float) -> list[Rect]:
    """A band's runs: the left column top to bottom, then the right one."""
    return [r for r in band if r[2] <= gutter] + [r for r in band if r[2] > gutter]


def _rect_lines(textpage: Any, rects: list[Rect]) -> list[Line]:
    """Runs joined into lines (same column, same baseline), a space where runs are apart."""
    lines: list[Line] = []
    prev: Rect | None = None
    for rect in rects:
        text = textpage.get_text_bounded(*rect).replace("\r\n", " ")
        height = rect[3] - rect[1]
        same_line = (prev is not None and abs(prev[1] - rect[1]) < 0.5 * height
                     and 0 <= rect[0] - prev[2] < 3 * height)
        if same_line and prev is not None:
            sep = " " if rect[0] - prev[2] > 0.1 * height and not lines[-1].text.endswith(" ") else ""
            lines[-1].text += sep + text
        else:
            lines.append(Line(text, rect[1]))
        prev = rect
    return lines


def _pdf_document(raw: list[list[Line]], images: int, meta: dict[str, str], truncated: str,
                  emit: EmitPage | None) -> PagedDocument:
    """Clean the pages; skip a PDF without a text layer; emit the pages when streaming."""
    textless = sum(1 for t in raw if visible_chars([x.text for x in t]) < MIN_PAGE_CHARS)
    if raw and textless == len(raw):
        if images:
            raise Skip(Outcome.NO_TEXT, f"no text layer: scanned or image-only PDF, {len(raw)} page(s) "
                       "(OCR is not supported)")
        raise Skip(Outcome.NO_TEXT, f"no extractable text in {len(raw)} page(s)")
    if textless:
        meta["pages_without_text"] = str(textless)
    texts = clean_pages(raw)
    first = next((page for page in raw if page), [])
    title = pdf_title(meta.get("Title", ""), normalise(first))
    doc = PagedDocument(title, kind=PDF, truncated=truncated, paged=True, metadata=meta)
    return emit_pages(doc, texts, emit)


def pdf_title(meta_title: str, first_page: list[Line]) -> str:
    """The metadata title unless junk ('Microsoft Word - x.doc'), else the largest type on the first page."""
    title = re.sub(r"^Microsoft (?:Word|PowerPoint) - ", "", " ".join(stripped(meta_title).split()))
    if title and not _JUNK_TITLE.match(title):
        return title[:300]
    lines = [x for x in first_page[:60] if sum(c.isalpha() for c in x.text) >= 3]
    if not lines:
        return ""
    biggest = max(x.size or 0.0 for x in lines)
    picked: list[str] = []
    for line in lines:  # the first run of lines set in the biggest size (a title may wrap)
        if (line.size or 0.0) >= biggest * 0.95:
            picked.append(line.text)
        elif picked:
            break
    title = " ".join(" ".join(picked).split())[:150] if biggest else lines[0].text[:150]
    return "" if _JUNK_TITLE.match(title) else title


def junk_title(title: str) -> bool:
    """True for a placeholder title ('Untitled', 'Document1', a bare file name)."""
    return bool(_JUNK_TITLE.match(title))
