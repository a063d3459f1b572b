"""The document readers on real files (tests/fixtures/documents, see LICENSES.md) and on crafted bombs."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from devkit import pdf_bombs
from nonseq.models import Outcome
from nonseq.research.documents import DocumentReader, detect_kind
from nonseq.research.paged import Limits
from nonseq.research.pdfclean import Line, clean_pages, strip_running_lines

DOCS = Path(__file__).parent / "fixtures" / "documents"
FAST = Limits(seconds=8, memory_mb=384, max_pages=200)


def reader(**changes: float) -> DocumentReader:
    """A reader with short limits (changed as asked)."""
    values = {"seconds": FAST.seconds, "memory_mb": FAST.memory_mb, "max_pages": FAST.max_pages, **changes}
    return DocumentReader(Limits(**values))  # type: ignore[arg-type]


def tokens(text: str) -> Counter[str]:
    """\\w+ tokens, counted."""
    return Counter(re.findall(r"\w+", text))


@pytest.mark.parametrize(("name", "kind"), [
    ("fontconfig-user.pdf", "pdf"), ("truncated.pdf", "pdf"), ("encrypted-user-password.pdf", "pdf"),
    ("scanned-c03-29.pdf", "pdf"), ("par-hlink-frags.docx", "docx"), ("developers-reference.epub", "epub"),
    ("fontconfig-user.txt", "text"), ("pango-README.md", "markdown"),
])
def test_kind_comes_from_the_content_not_the_name(name: str, kind: str) -> None:
    data = (DOCS / name).read_bytes()
    assert detect_kind(data, name) == kind
    assert detect_kind(data, "download.bin") == kind


def test_markup_and_binary_kinds() -> None:
    assert detect_kind(b"<!DOCTYPE html><html><p>x</p></html>", "a.pdf") == "html"
    assert detect_kind(b"Content-type: text/html\n\n<HTML><BODY>x", "") == "html"
    assert detect_kind(b"Plain words only.\n", "notes.md") == "markdown"
    assert detect_kind(b"Plain words only.\n", "notes.txt") == "text"
    assert detect_kind(b"\x89PNG\r\n\x1a\n....", "x.pdf") == "image"


def test_a_text_pdf_gives_numbered_pages_a_title_and_its_reference_text() -> None:
    doc = reader().read(DOCS / "fontconfig-user.pdf")
    assert doc.ok and doc.kind == "pdf" and doc.paged
    assert [p.number for p in doc.pages] == [*range(1, 14), 15]  # page 14 is blank in the PDF
    assert doc.title == "fonts-conf"
    got, ref = tokens(doc.text), tokens((DOCS / "fontconfig-user.txt").read_text(encoding="utf-8"))
    f1 = 2 * sum((got & ref).values()) / (sum(got.values()) + sum(ref.values()))
    assert f1 > 0.95, f1
    assert "Fontconfig contains two essential modules" in " ".join(doc.pages[0].text.split())


def test_running_headers_and_page_numbers_are_removed() -> None:
    doc = reader().read(DOCS / "fontconfig-user.pdf")
    edges = Counter(line for p in doc.pages for line in p.text.splitlines()[:1] + p.text.splitlines()[-1:])
    assert not [line for line, n in edges.items() if n > len(doc.pages) // 2]
    body = [[Line(f"line {k} of page {chr(96 + n)}") for k in range(4)] for n in range(1, 6)]
    pages = [[Line(f"Chapter 1: Intro {n}"), *body[n - 1], Line(str(n))] for n in range(1, 6)]
    assert [[x.text for x in p] for p in strip_running_lines(pages)] == [[x.text for x in p] for p in body]


def test_hyphenation_follows_the_documents_own_spelling() -> None:
    pages = clean_pages(["the pack-\nages are here", "a non-\nnumeric value; non-numeric too"])
    assert [p.replace("\n", " ") for p in pages] == ["the packages are here", "a non-numeric value; non-numeric too"]


@pytest.mark.parametrize(("name", "outcome", "reason"), [
    ("truncated.pdf", Outcome.UNREADABLE, "unreadable PDF"),
    ("encrypted-user-password.pdf", Outcome.ENCRYPTED, "encrypted PDF (needs a password)"),
    ("scanned-c03-29.pdf", Outcome.NO_TEXT, "no text layer: scanned or image-only PDF"),
])
def test_corrupt_encrypted_and_scanned_pdfs_are_skipped_with_a_reason(name: str, outcome: Outcome,
                                                                       reason: str) -> None:
    doc = reader().read(DOCS / name)
    assert not doc.ok and not doc.pages and doc.outcome is outcome
    assert reason in doc.reason and "\n" not in doc.reason


def test_an_owner_password_alone_does_not_stop_reading() -> None:
    doc = reader().read(DOCS / "encrypted-owner-only.pdf")
    assert doc.ok and "pdf encryption test" in doc.text


def test_docx_paragraphs_without_page_numbers() -> None:
    doc = reader().read(DOCS / "par-hlink-frags.docx")
    assert doc.ok and doc.kind == "docx" and not doc.paged
    assert doc.text.splitlines()[:2] == ["One", "Two with link to bookmark."]
    assert doc.title == "par hlink frags"  # no properties, no heading: the file name


def test_epub_chapters_in_spine_order_with_the_book_title() -> None:
    doc = reader().read(DOCS / "developers-reference.epub")
    assert doc.ok and doc.kind == "epub" and doc.title == "developers-reference" and len(doc.pages) >= 10
    assert "Debian" in doc.pages[0].text


def test_the_child_process_reads_what_this_process_reads() -> None:
    here = DocumentReader(Limits(isolate=False)).read(DOCS / "fontconfig-user.pdf")
    child = reader().read(DOCS / "fontconfig-user.pdf")
    assert here.pages == child.pages and here.title == child.title


def test_a_file_over_the_size_limit_is_refused_before_reading(isolated: Path) -> None:
    big = isolated / "big.pdf"
    with big.open("wb") as fh:
        fh.truncate(2_000_000)
    doc = DocumentReader(Limits(max_bytes=1_000_000)).read(big)
    assert doc.outcome is Outcome.TOO_LARGE and "over the limit of 1,000,000" in doc.reason


BOMBS: list[Callable[[], bytes]] = [pdf_bombs.xobject_fanout, pdf_bombs.text_flood]


@pytest.mark.parametrize("make", BOMBS, ids=[b.__name__ for b in BOMBS])
def test_a_pdf_bomb_is_stopped_by_the_memory_or_time_limit(make: Callable[[], bytes]) -> None:
    """10^9 nested form draws, or 1.3 M strings on one page: the child dies at its limit, not us."""
    doc = reader(memory_mb=256).read(make(), "bomb.pdf")
    assert doc.outcome in (Outcome.TOO_LARGE, Outcome.TIMEOUT) and not doc.pages
    assert "limit" in doc.reason and "\n" not in doc.reason


def test_a_time_limit_inside_the_extraction_ends_a_slow_page() -> None:
    doc = reader(seconds=1, memory_mb=2048).read(pdf_bombs.text_flood(), "flood.pdf")
    assert not doc.ok and doc.outcome in (Outcome.TIMEOUT, Outcome.TOO_LARGE), doc.reason


MALFORMED: list[tuple[Callable[[], bytes], Outcome, str]] = [
    (pdf_bombs.xobject_self, Outcome.NO_TEXT, "no extractable text in 1 page(s)"),
    (pdf_bombs.page_tree_loop, Outcome.UNREADABLE, "unreadable PDF: no page could be loaded"),
    (pdf_bombs.lying_count, Outcome.NO_TEXT, "no extractable text in 1 page(s)"),
    (pdf_bombs.xref_prev_loop, Outcome.NO_TEXT, "no extractable text in 1 page(s)"),
    (pdf_bombs.deep_nesting, Outcome.NO_TEXT, "no extractable text in 1 page(s)"),
]


@pytest.mark.parametrize(("make", "outcome", "reason"), MALFORMED, ids=[m[0].__name__ for m in MALFORMED])
def test_malformed_pdfs_end_with_a_reason(make: Callable[[], bytes], outcome: Outcome, reason: str) -> None:
    """A self-drawing form, a page-tree loop, a lying page count, an xref loop, deep nesting: no hang,
    no crash, no pages, and the reason in one line."""
    doc = reader().read(make(), "bad.pdf")
    assert not doc.ok and not doc.pages
    assert doc.outcome is outcome and doc.reason.startswith(reason) and "\n" not in doc.reason, doc.reason


def test_a_long_pdf_is_read_up_to_the_page_limit() -> None:
    """5,000 pages: the first 200 are read, and the truncation is said (the pages' one line repeats on
    every page, so it is removed as a running header: what is left is the truncation note)."""
    doc = reader().read(pdf_bombs.many_pages(5_000), "many.pdf")
    assert doc.outcome is None and "page limit: first 200 of 5000 pages" in doc.truncated  # in time


def test_a_zip_bomb_docx_is_refused_from_its_central_directory() -> None:
    doc = DocumentReader(Limits(max_unzipped_bytes=32_000_000)).read(pdf_bombs.docx_zip_bomb(64), "bomb.docx")
    assert doc.outcome is Outcome.TOO_LARGE and "over the limit of 32,000,000" in doc.reason


def test_close_stops_a_read_in_progress() -> None:
    """A cancelled run kills the child at once instead of waiting for the time limit."""
    import threading

    slow = reader(seconds=30, memory_mb=2048)
    box: list[object] = []
    thread = threading.Thread(target=lambda: box.append(slow.read(pdf_bombs.text_flood(), "flood.pdf")))
    thread.start()
    deadline = time.monotonic() + 120  # a guard against a hang, not a race: the child starts in ~1 s
    while not slow.reading and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert slow.reading, "the child process never started reading"
    slow.close()
    thread.join(120)
    # Not cancelled, the read ends on its own (no text, or the 30 s limit) with another reason.
    assert box and getattr(box[0], "reason", "") == "cancelled", box
