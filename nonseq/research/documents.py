"""Documents the user holds: the kind by content, and PDF, DOCX and EPUB text read under hard limits.

`detect_kind` looks at the bytes (magic numbers, ZIP members, markup), never at the file name alone.
`DocumentReader.read` returns a `PagedDocument` (pages with their numbers, a title) or one with the
outcome and one-line reason it was skipped. PDF, DOCX and EPUB are read in a child process that sets
its own address-space, CPU and file-size limits and checks its deadline between pages, while the
parent kills it at the wall-clock limit: a hostile file costs at most `Limits.seconds` and
`Limits.memory_mb`, and pages read before a kill are kept. HTML, Markdown and text stay with the
research extractor.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import threading
import time
import zipfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

from nonseq.models import Outcome
from nonseq.research.paged import (
    DOCUMENT_KINDS,
    DOCX,
    EPUB,
    HTML,
    MARKDOWN,
    PDF,
    TEXT,
    EmitPage,
    Limits,
    Page,
    PagedDocument,
    Skip,
    title_from_name,
)
from nonseq.text.files import open_regular

_ZIP_KINDS = {
    "application/epub+zip": EPUB, "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "application/vnd.oasis.opendocument.presentation": "odp",
}
_OOXML = (("word/document.xml", DOCX), ("xl/workbook.xml", "xlsx"), ("ppt/presentation.xml", "pptx"))
_MAGIC = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "ole"), (b"{\\rtf", "rtf"), (b"\x89PNG", "image"),
    (b"\xff\xd8\xff", "image"), (b"GIF8", "image"), (b"II*\x00", "image"), (b"MM\x00*", "image"),
    (b"\x1f\x8b", "archive"), (b"7z\xbc\xaf", "archive"), (b"\xfd7zXZ", "archive"), (b"BZh", "archive"),
    (b"\x28\xb5\x2f\xfd", "archive"), (b"Rar!", "archive"), (b"\x7fELF", "binary"),
)
#: Kinds recognised but not read, and how they are named in a skip reason.
UNSUPPORTED = {
    "odt": "OpenDocument text", "ods": "spreadsheet", "odp": "presentation", "xlsx": "spreadsheet",
    "pptx": "presentation", "zip": "ZIP archive", "ole": "legacy Office (OLE2) document", "rtf": "RTF",
    "image": "image", "archive": "compressed archive", "binary": "binary data",
}
#: Bytes of a file's start that detect_kind needs (a ZIP is opened whole to read its member list).
HEAD_BYTES = 8192
_HTML_START = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|meta|title)\b",
                         re.IGNORECASE | re.DOTALL)
_HTML_ANYWHERE = re.compile(rb"<(?:!doctype\s+html|html[\s>]|body[\s>])", re.IGNORECASE)
_HTML_TAGS = re.compile(rb"</?(?:p|div|span|a|br|table|tr|td|li|ul|h[1-6]|b|i|em|strong)\b[^>]{0,200}>",
                        re.IGNORECASE)
_MD_SIGNS = re.compile(r"^(?:#{1,6}\s+\S|```|~~~|\s{0,3}[-*+]\s+\S.*|\s{0,3}>\s|.+\n(?:=+|-+)[ \t]*$)"
                       r"|\[[^\]\n]+\]\([^)\s]+\)", re.MULTILINE)
_MD_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")
#: Seconds allowed on top of Limits.seconds for the child's interpreter start and imports.
STARTUP_GRACE = 3.0
#: The folder holding the nonseq package, put first on the child's import path.
_ROOT = str(Path(__file__).resolve().parents[2])
_CHILD_BOOT = ("import sys, importlib; sys.path.insert(0, sys.argv[1]); "
               "importlib.import_module('nonseq.research.documents').child_main(sys.argv[2], sys.argv[3])")


def detect_kind(data: bytes, name: str = "") -> str:
    """The kind by content (magic bytes, ZIP members, markup); the name only tells Markdown from text."""
    head = data[:HEAD_BYTES]
    if b"%PDF-" in data[:1024]:
        return PDF
    if head.startswith(b"PK\x03\x04"):
        return _zip_kind(data)
    for magic, kind in _MAGIC:
        if head.startswith(magic):
            return kind
    if _HTML_START.match(head) or _HTML_ANYWHERE.search(head[:2048]) or len(_HTML_TAGS.findall(head)) >= 8:
        return HTML
    if _looks_binary(head):
        return "binary"
    sample = head.decode("utf-8", errors="ignore")
    if len(_MD_SIGNS.findall(sample)) >= 3 or Path(name).suffix.lower() in _MD_SUFFIXES:
        return MARKDOWN
    return TEXT


def _zip_kind(data: bytes) -> str:
    """docx, epub, odt, xlsx, pptx or zip, from a ZIP's mimetype member or its OOXML parts."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "mimetype" in names and archive.getinfo("mimetype").file_size < 200:
                mime = archive.read("mimetype").decode("ascii", errors="ignore").strip()
                if mime in _ZIP_KINDS:
                    return _ZIP_KINDS[mime]
            if "META-INF/container.xml" in names and any(n.endswith(".opf") for n in names):
                return EPUB
            return next((kind for part, kind in _OOXML if part in names), "zip")
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError):
        return "zip"


def _looks_binary(head: bytes) -> bool:
    """True for NULs or many control bytes (text with a UTF-16/32 BOM is not binary)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in head:
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13, 27))
    return bool(head) and controls / len(head) > 0.1


def unsupported_reason(kind: str) -> str:
    """The skip reason of a kind that is recognised but not read ("" for the kinds that are read)."""
    return f"{UNSUPPORTED[kind]} is not supported" if kind in UNSUPPORTED else ""


class DocumentReader:
    """Reads PDF, DOCX and EPUB files or bytes under `limits`; `close()` kills reads still running."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()
        self._children: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self._closed = False

    def read(self, source: bytes | Path, name: str = "") -> PagedDocument:
        """The document's pages and title, or its skip outcome and reason (never raises for bad content)."""
        try:
            data = self._load(source)
        except Skip as skip:
            return _skipped(title_from_name(name), "", skip)
        name = name or (source.name if isinstance(source, Path) else "")
        kind = detect_kind(data, name)
        if kind not in DOCUMENT_KINDS:
            why = unsupported_reason(kind) or f"{kind} is read as text, not as a document"
            return _skipped(title_from_name(name), kind, Skip(Outcome.WRONG_TYPE, why))
        if self.limits.isolate:
            doc = self._read_isolated(data, kind)
        else:
            doc = read_here(data, kind, self.limits, time.monotonic() + self.limits.seconds)
        doc.title = doc.title or title_from_name(name)
        return doc

    @property
    def reading(self) -> int:
        """How many documents are being read right now (child processes running)."""
        with self._lock:
            return len(self._children)

    def close(self) -> None:
        """Kill the child processes still reading (a cancelled run); later reads are refused."""
        with self._lock:
            self._closed = True
            children = list(self._children)
        for child in children:
            with contextlib.suppress(OSError):
                child.kill()

    def _load(self, source: bytes | Path) -> bytes:
        """The bytes, the size checked before reading."""
        limit = self.limits.max_bytes
        if isinstance(source, bytes):
            if len(source) > limit:
                raise Skip(Outcome.TOO_LARGE, f"{len(source):,} bytes: over the limit of {limit:,}")
            return source
        try:
            with open_regular(source) as fh:  # a FIFO put in the file's place is refused, never waited on
                size = os.fstat(fh.fileno()).st_size
                if size > limit:
                    raise Skip(Outcome.TOO_LARGE, f"{size:,} bytes: over the limit of {limit:,}")
                data = fh.read(limit + 1)
        except OSError as exc:
            raise Skip(Outcome.ERROR, f"cannot read: {exc.strerror or type(exc).__name__}") from None
        if len(data) > limit:
            raise Skip(Outcome.TOO_LARGE, f"over the limit of {limit:,} bytes")
        return data

    def _read_isolated(self, data: bytes, kind: str) -> PagedDocument:
        """Read in a child process; killed at the deadline, keeping the pages it streamed so far."""
        limits = self.limits
        cmd = [sys.executable, "-P", "-c", _CHILD_BOOT, _ROOT, kind, json.dumps(asdict(limits))]
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "HOME")}
        with self._lock:
            if self._closed:
                return _skipped("", kind, Skip(Outcome.ERROR, "cancelled"))
            child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env)
            self._children.add(child)
        killed = False
        try:
            out, _ = child.communicate(data, timeout=limits.seconds + STARTUP_GRACE)
        except subprocess.TimeoutExpired:
            child.kill()
            out, _ = child.communicate()
            killed = True
        finally:
            with self._lock:
                self._children.discard(child)
        if self._closed and child.returncode != 0:
            return _skipped("", kind, Skip(Outcome.ERROR, "cancelled"))
        return _child_result(out, kind, child.returncode, killed, limits)


def read_here(data: bytes, kind: str, limits: Limits, deadline: float,
              emit: EmitPage | None = None) -> PagedDocument:
    """Read in this process; the deadline is checked between pages (emit(page) streams pages out)."""
    from nonseq.research.office import read_docx, read_epub
    from nonseq.research.pdf import read_pdf

    readers = {PDF: read_pdf, DOCX: read_docx, EPUB: read_epub}
    try:
        return readers[kind](data, limits, deadline, emit)
    except Skip as skip:
        return _skipped("", kind, skip)
    except MemoryError:
        return _skipped("", kind, Skip(Outcome.TOO_LARGE, f"memory limit ({limits.memory_mb} MB) reached"))
    except Exception as exc:  # noqa: BLE001 - parsers raise many kinds on broken files
        reason = f"unreadable {kind.upper()} ({type(exc).__name__}: {exc})"[:300]
        return _skipped("", kind, Skip(Outcome.UNREADABLE, reason))


def _skipped(title: str, kind: str, skip: Skip) -> PagedDocument:
    """A document that yields nothing, with its outcome and reason."""
    return PagedDocument(title, kind=kind, outcome=skip.outcome, reason=skip.reason)


# -- the child process ------------------------------------------------------------------------------

def child_main(kind: str, limits_json: str) -> None:
    """Child: set rlimits, read stdin, stream pages as JSON lines, then one summary line."""
    limits = Limits(**json.loads(limits_json))
    deadline = time.monotonic() + limits.seconds
    set_rlimits(limits)
    data = sys.stdin.buffer.read()
    out = sys.stdout

    def emit(page: Page) -> None:
        """Write one page as a JSON line."""
        out.write(json.dumps({"page": page.number, "text": page.text}) + "\n")
        out.flush()

    doc = read_here(data, kind, limits, deadline, emit)
    summary = {k: v for k, v in asdict(doc).items() if k != "pages"}
    out.write(json.dumps({"summary": summary}) + "\n")
    out.flush()


def set_rlimits(limits: Limits) -> None:
    """Address space, CPU seconds, no file writes, no core dumps (POSIX; elsewhere only the wall clock)."""
    try:
        import resource
    except ImportError:
        return
    memory = limits.memory_mb * 2**20
    cpu = int(limits.seconds) + 2
    for rlimit, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu),
                          (resource.RLIMIT_FSIZE, 0), (resource.RLIMIT_CORE, 0)):
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(rlimit, (value, value))


def _child_result(out: bytes, kind: str, code: int | None, killed: bool, limits: Limits) -> PagedDocument:
    """The document from the child's JSON lines; a reason when it died, ran out of time or memory."""
    pages: list[Page] = []
    summary: dict[str, Any] | None = None
    for line in out.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue  # the last line of a killed child
        if "summary" in item:
            summary = item["summary"]
        elif "page" in item:
            pages.append(Page(int(item["page"]), str(item["text"])))
    if summary is not None:
        outcome = summary.pop("outcome", None)
        return PagedDocument(pages=pages, outcome=Outcome(outcome) if outcome else None, **summary)
    timed_out = killed or code in (-9, -24)  # SIGKILL from us, SIGXCPU from RLIMIT_CPU
    skip = (Skip(Outcome.TIMEOUT, f"time limit ({limits.seconds:g} s) reached") if timed_out else
            Skip(Outcome.TOO_LARGE, f"extraction stopped (exit {code}): over the memory limit of "
                 f"{limits.memory_mb} MB?"))
    if pages:
        return PagedDocument("", pages=pages, kind=kind, truncated=f"{skip.reason} after {len(pages)} page(s)",
                             paged=kind == PDF)
    return _skipped("", kind, skip)
