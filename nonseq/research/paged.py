"""The shapes of a read document: its pages, its limits, and why it was skipped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from nonseq.models import Outcome

PDF, DOCX, EPUB, HTML, MARKDOWN, TEXT = "pdf", "docx", "epub", "html", "markdown", "text"
#: Kinds read by the document readers (in a child process); the others are text for the extractor.
DOCUMENT_KINDS = (PDF, DOCX, EPUB)
TEXT_KINDS = (HTML, MARKDOWN, TEXT)


@dataclass(frozen=True)
class Limits:
    """What one document may cost: bytes, pages, seconds and memory (inside the extraction), unzipped bytes."""

    max_bytes: int = 50_000_000
    max_pages: int = 1000
    seconds: float = 60.0
    memory_mb: int = 512
    max_unzipped_bytes: int = 200_000_000
    max_members: int = 10_000
    max_chars: int = 20_000_000
    #: Read in a child process with CPU, memory and wall-clock limits (False only to measure the cost).
    isolate: bool = True


@dataclass
class Page:
    """The text of one page (1-based number), one paragraph per line."""

    number: int
    text: str


@dataclass
class PagedDocument:
    """A read document: title, text per page, kind; `outcome` and `reason` say why it yields nothing.

    `paged` is True when the page numbers are the document's own (PDF), False when the document has
    no fixed pages (DOCX, EPUB: a single running text, pages numbered only for reading).
    """

    title: str
    pages: list[Page] = field(default_factory=list)
    kind: str = ""
    outcome: Outcome | None = None
    reason: str = ""
    truncated: str = ""
    paged: bool = False
    metadata: dict[str, str] = field(default_factory=dict)

    @property
    def text(self) -> str:
        """All pages' text, one paragraph per line."""
        return "\n".join(p.text for p in self.pages if p.text)

    @property
    def ok(self) -> bool:
        """True when the document yielded text."""
        return self.outcome is None and any(p.text.strip() for p in self.pages)


class Skip(Exception):
    """A document that yields nothing: the outcome recorded for it and a one-line reason."""

    def __init__(self, outcome: Outcome, reason: str) -> None:
        super().__init__(reason)
        self.outcome, self.reason = outcome, reason


#: Called with each page as soon as it is read (the child process streams pages out this way).
EmitPage = Callable[[Page], None]


def title_from_name(name: str) -> str:
    """A title from a file name: the stem, with _ and - as spaces."""
    return PurePosixPath(name).stem.replace("_", " ").replace("-", " ").strip() if name else ""


def emit_pages(doc: PagedDocument, texts: list[str], emit: EmitPage | None) -> PagedDocument:
    """Number the non-empty pages' texts (from 1) and stream them out when asked."""
    pages = [Page(i + 1, t) for i, t in enumerate(texts) if t.strip()]
    if emit is not None:
        for page in pages:
            emit(page)
        pages = []
    doc.pages = pages
    return doc
