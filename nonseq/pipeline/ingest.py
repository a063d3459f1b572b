"""The user's files and fetched PDFs on their way into research: folders expanded, kinds by content,
documents read under limits, pages kept, files already indexed left alone.

`collect_files` turns `--file` paths (files and folders) into pages to read and files skipped with
their reasons; `Ingest` reads them on research's extraction thread (documents in a child process,
see nonseq.research.documents), turns a document's pages into one text whose lines know their page,
stamps each chunk with its file's size and modification time, and keeps the per-file report. A
file whose chunks are all indexed under the same stamp is not read again; a changed one is.
"""

from __future__ import annotations

import errno
import os
import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from nonseq.config import ResearchSettings
from nonseq.errors import UsageError
from nonseq.models import LOCAL_DOMAIN, Chunk, Outcome, Source
from nonseq.research.documents import HEAD_BYTES, UNSUPPORTED, DocumentReader, detect_kind
from nonseq.research.domains import registrable_domain
from nonseq.research.extract import Document, Extraction, Extractor, guess_content_type
from nonseq.research.fetch import PDF_TYPE
from nonseq.research.paged import DOCUMENT_KINDS, HTML, MARKDOWN, TEXT_KINDS, Limits, PagedDocument
from nonseq.text.files import open_regular, read_text_file

#: Payload keys of a local file's chunks: its file:// URL, its stamp (size:mtime), its chunk count.
FILE_KEY, STAMP_KEY, COUNT_KEY = "file", "file_stamp", "file_chunks"
#: What --file reads, for messages.
SUPPORTED = "a text file or a supported document (PDF, DOCX, EPUB, HTML, Markdown, text)"
_CANONICAL_RE = re.compile(
    r"<(?:link[^>]+rel=[\"']canonical[\"'][^>]*href=|meta[^>]+property=[\"']og:url[\"'][^>]*content=)"
    r"[\"'](https?://[^\"'\s]+)[\"']", re.IGNORECASE)
_CONTENT_TYPES = {HTML: "text/html", MARKDOWN: "text/markdown"}


@dataclass
class LocalFile:
    """A file the user gave (or one found in a folder they gave), its kind found by content."""

    path: Path
    shown: str
    kind: str
    size: int
    stamp: str

    @property
    def url(self) -> str:
        """Its file:// URL."""
        return self.path.as_uri()


@dataclass
class LocalPage:
    """A user's local file, shaped like the fetcher's FetchedPage (source, text, content_type, body)."""

    source: Source
    text: str | None
    content_type: str
    body: bytes = b""
    file: LocalFile | None = None


@dataclass
class SkippedFile:
    """A file that yielded no chunks: its path, the outcome and the one-line reason."""

    path: str
    outcome: str
    reason: str


@dataclass
class FileReport:
    """What a run did with the user's files."""

    found: int = 0
    indexed: int = 0
    unchanged: int = 0
    skipped: list[SkippedFile] = field(default_factory=list)

    def by_reason(self) -> dict[str, int]:
        """Skipped files counted by outcome, most first."""
        counts = Counter(s.outcome for s in self.skipped)
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"found": self.found, "indexed": self.indexed, "unchanged": self.unchanged,
                "skipped": [vars(s) for s in self.skipped], "skipped_by_reason": self.by_reason()}


def limits_of(settings: ResearchSettings) -> Limits:
    """The document limits the [research] settings give."""
    return Limits(max_bytes=settings.max_document_bytes, max_pages=settings.max_document_pages,
                  seconds=settings.document_seconds, memory_mb=settings.document_memory_mb)


def collect_files(paths: Iterable[str | Path], settings: ResearchSettings) -> tuple[list[LocalPage], FileReport]:
    """Pages to read for the given files and folders, and the report holding the files skipped already.

    A named file that is missing, too large or of a kind that is not read is a UsageError (nothing has
    started); inside a folder such files are skipped with their reason. Hidden files and folders are left out.
    """
    report = FileReport()
    pages: list[LocalPage] = []
    seen: set[Path] = set()
    for given in paths:
        root = Path(given).expanduser()
        if root.is_dir():
            for path in _walk(root, report):
                _add(path, str(path), settings, pages, report, seen, named=False)
        elif not root.exists():
            raise UsageError(f"no such file or folder: {given}")
        else:
            _add(root, str(given), settings, pages, report, seen, named=True)
    report.found = len(pages) + len(report.skipped)
    return pages, report


def _walk(root: Path, report: FileReport) -> list[Path]:
    """Every file under a folder, sorted, hidden entries and folder links left out; a folder that
    cannot be listed is reported as skipped with its reason."""
    found: list[Path] = []

    def unreadable(exc: OSError) -> None:
        """Name the folder os.walk could not list."""
        report.skipped.append(SkippedFile(str(exc.filename or root), str(Outcome.ERROR),
                                          f"folder not readable: {exc.strerror or type(exc).__name__}"))

    for folder, dirs, files in os.walk(root, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [Path(folder) / f for f in sorted(files) if not f.startswith(".")]
    return found


def _add(path: Path, shown: str, settings: ResearchSettings, pages: list[LocalPage], report: FileReport,
         seen: set[Path], *, named: bool) -> None:
    """Classify one file: a page to read, or skipped (a UsageError when the user named it)."""
    try:
        resolved = _resolve(path)
        if resolved in seen:
            return
        seen.add(resolved)
        file = _inspect(resolved, shown, settings)
    except _Refused as refused:
        if named:
            raise UsageError(f"{shown}: {refused.reason}") from None
        report.skipped.append(SkippedFile(shown, str(refused.outcome), refused.reason))
        return
    source = Source(url=file.url, domain=LOCAL_DOMAIN, outcome=Outcome.FETCHED, final_url=file.url,
                    bytes=file.size)
    content_type = PDF_TYPE if file.kind in DOCUMENT_KINDS else _CONTENT_TYPES.get(file.kind, "text/plain")
    page = LocalPage(source, None, content_type, file=file)
    if named and file.kind in TEXT_KINDS:  # read now: a named file that is not text stops the run before it starts
        page.text = _read_text(page, settings.max_file_bytes)
    pages.append(page)


class _Refused(Exception):
    """A file that is not read, and why."""

    def __init__(self, outcome: Outcome, reason: str) -> None:
        super().__init__(reason)
        self.outcome, self.reason = outcome, reason


def _resolve(path: Path) -> Path:
    """The file's real path; _Refused for a symlink loop or a link that cannot be followed."""
    try:
        return path.resolve()
    except RuntimeError:  # Python < 3.13: "Symlink loop from ..."
        raise _Refused(Outcome.ERROR, "symlink loop") from None
    except OSError as exc:
        reason = "symlink loop" if exc.errno == errno.ELOOP else f"cannot read: {exc.strerror or type(exc).__name__}"
        raise _Refused(Outcome.ERROR, reason) from None


def _inspect(path: Path, shown: str, settings: ResearchSettings) -> LocalFile:
    """The file's kind (from its first bytes), size and stamp; _Refused when it is not to be read."""
    try:
        if not path.is_file():
            raise _Refused(Outcome.ERROR, "not a regular file")
        with open_regular(path) as fh:  # a FIFO put in its place is refused, never waited on
            stat = os.fstat(fh.fileno())
            head = fh.read(HEAD_BYTES)
            if head.startswith(b"PK\x03\x04") and stat.st_size <= settings.max_document_bytes:
                head += fh.read()  # a ZIP's kind is in its member list, at its end
    except OSError as exc:
        raise _Refused(Outcome.ERROR, f"cannot read: {exc.strerror or type(exc).__name__}") from None
    kind = detect_kind(head, path.name)
    if kind in DOCUMENT_KINDS:
        limit, setting = settings.max_document_bytes, "[research] max_document_bytes"
    else:
        limit, setting = settings.max_file_bytes, "[research] max_file_bytes"
    if stat.st_size > limit:
        raise _Refused(Outcome.TOO_LARGE, f"{stat.st_size:,} bytes, over the limit of {limit:,} bytes ({setting})")
    if kind not in DOCUMENT_KINDS and kind not in TEXT_KINDS:
        raise _Refused(Outcome.WRONG_TYPE, f"{UNSUPPORTED.get(kind, kind)}: not {SUPPORTED}")
    return LocalFile(path, shown, kind, stat.st_size, f"{stat.st_size}:{stat.st_mtime_ns}")


def read_local(path: str | Path, max_bytes: int) -> LocalPage:
    """A local HTML, Markdown or text file read now; a saved web page is cited by its canonical URL."""
    file = Path(path).expanduser().resolve()
    stat = file.stat()
    local = LocalFile(file, str(path), "", stat.st_size, f"{stat.st_size}:{stat.st_mtime_ns}")
    source = Source(url=local.url, domain=LOCAL_DOMAIN, outcome=Outcome.FETCHED, final_url=local.url)
    page = LocalPage(source, None, guess_content_type(file.name), file=local)
    page.text = _read_text(page, max_bytes)
    return page


def _read_text(page: LocalPage, max_bytes: int) -> str:
    """Read a text file into its page; a saved HTML page's canonical link becomes its cited URL."""
    assert page.file is not None
    started = time.perf_counter()
    text = read_text_file(page.file.path, max_bytes, limit_name="[research] max_file_bytes", what=SUPPORTED)
    canonical = _CANONICAL_RE.search(text[:200_000]) if "html" in page.content_type else None
    if canonical:
        page.source.url = canonical.group(1)
        page.source.domain = registrable_domain(page.source.url)
    page.source.bytes = len(text.encode("utf-8"))
    page.source.seconds = time.perf_counter() - started
    return text


def document_text(doc: PagedDocument, url: str) -> Document:
    """A read document as the extractor's Document: one paragraph per line, each line's page kept."""
    lines: list[str] = []
    line_pages: list[int] = []
    for page in doc.pages:
        for line in page.text.splitlines():
            if line.strip():
                lines.append(line.strip())
                line_pages.append(page.number)
    return Document(text="\n".join(lines), url=url, title=doc.title, kind=doc.kind,
                    line_pages=line_pages if doc.paged else [])


def _complete(chunks: list[Chunk], stamp: str, local_boost: float) -> bool:
    """True when a file's chunks are all there, made from the file as it is now, with today's local_boost."""
    return bool(chunks) and len(chunks) == int(chunks[0].extra.get(COUNT_KEY) or 0) and all(
        c.extra.get(STAMP_KEY) == stamp and (not c.is_local or c.trust_boost == local_boost) for c in chunks)


def file_name(url: str) -> str:
    """The last path segment of a URL (the name a downloaded file would get)."""
    return unquote(urlsplit(url).path.rsplit("/", 1)[-1])


class Ingest:
    """Reads the pages research cannot hand to the extractor as text: local files and fetched PDFs."""

    def __init__(self, settings: ResearchSettings, extractor: Extractor, report: FileReport | None = None) -> None:
        self.settings = settings
        self.extractor = extractor
        self.reader = DocumentReader(limits_of(settings))
        self.report = report or FileReport()

    @staticmethod
    def readable(page: Any) -> bool:
        """True when the page has something to extract (text, PDF bytes, or a file still to read)."""
        return page.text is not None or bool(getattr(page, "body", b"")) or getattr(page, "file", None) is not None

    def extract(self, page: Any, url: str) -> Extraction:
        """Extract one page (a thread's work): text through the extractor, documents through the reader."""
        file: LocalFile | None = getattr(page, "file", None)
        if file is not None and file.kind in DOCUMENT_KINDS:
            return self._document(self.reader.read(file.path, file.path.name), file.url)
        if file is not None and page.text is None:
            try:
                page.text = _read_text(page, self.settings.max_file_bytes)
            except UsageError as exc:
                return Extraction(Outcome.WRONG_TYPE, reason=str(exc))
            url = page.source.url if page.source.url.startswith("http") else url
        if page.content_type == PDF_TYPE and getattr(page, "body", b""):
            return self._document(self.reader.read(page.body, file_name(url)), url)
        return self.extractor.extract(page.text, page.content_type or "", url)

    def _document(self, doc: PagedDocument, url: str) -> Extraction:
        """The extraction of a read document: skipped with its reason, or admitted like a page."""
        if doc.outcome is not None or not doc.ok:
            return Extraction(doc.outcome or Outcome.TOO_SHORT, reason=doc.reason or "no text")
        extraction = self.extractor.admit(document_text(doc, url), url)
        if extraction.ok and doc.truncated:
            extraction.reason = f"read in part: {doc.truncated}"
        return extraction

    def stamp(self, page: Any, chunks: list[Chunk]) -> None:
        """Mark a local file's chunks with the file, its stamp and their count (for resuming)."""
        file: LocalFile | None = getattr(page, "file", None)
        if file is None:
            return
        for chunk in chunks:
            chunk.extra.update({FILE_KEY: file.url, STAMP_KEY: file.stamp, COUNT_KEY: len(chunks)})

    def record(self, page: Any, source: Source, chunks: Sequence[Chunk]) -> None:
        """Count a finished local file: indexed, or skipped with its outcome and reason."""
        file: LocalFile | None = getattr(page, "file", None)
        if file is None:
            return
        if chunks:
            self.report.indexed += 1
        else:
            self.report.skipped.append(SkippedFile(file.shown, str(source.outcome), source.reason or "no text"))

    def unchanged(self, pages: list[LocalPage], points: Iterable[Any]) -> list[LocalPage]:
        """The pages still to read: a file whose chunks are all indexed under its current stamp is left out."""
        held: dict[str, list[Chunk]] = {}
        for point in points:
            chunk: Chunk = point.chunk
            if chunk.extra.get(FILE_KEY):
                held.setdefault(str(chunk.extra[FILE_KEY]), []).append(chunk)
        todo = []
        for page in pages:
            chunks = held.get(page.file.url, []) if page.file else []
            if page.file and _complete(chunks, page.file.stamp, self.settings.local_boost):
                self.report.unchanged += 1
            else:
                todo.append(page)
        return todo

    def close(self) -> None:
        """Stop documents still being read (a cancelled run)."""
        self.reader.close()
