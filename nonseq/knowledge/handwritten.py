"""Hand-written knowledge: a person's text is chunked, shown, and promoted directly (no review)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from nonseq.db import transaction
from nonseq.errors import UsageError
from nonseq.knowledge import records
from nonseq.knowledge.promote import promote_facts
from nonseq.knowledge.records import HUMAN, FactRecord
from nonseq.models import LOCAL_DOMAIN, FactKind, FactStatus
from nonseq.text.files import read_text_file

if TYPE_CHECKING:
    from nonseq.workspace import Workspace


def read_source_file(ws: Workspace, path: str | Path) -> tuple[str, str, str]:
    """A person's text or Markdown file: (text, title, url), with research's size and binary checks."""
    file = Path(path).expanduser()
    text = read_text_file(file, ws.settings.research.max_file_bytes, limit_name="[research] max_file_bytes")
    return text, file.name, file.resolve().as_uri()


def preview_text(ws: Workspace, text: str) -> list[str]:
    """The chunks hand-written text becomes (the research chunker's windows)."""
    from nonseq.research.chunking import Chunker

    if not text.strip():
        raise UsageError("no text to add")
    embedder = ws.embedder
    rs = ws.settings.research
    chunker = Chunker(embedder.count_tokens, rs.chunk_tokens, rs.chunk_overlap, embedder.max_tokens)
    return chunker.split(text.strip())


def add_text(ws: Workspace, text: str, *, category: str, topic_slug: str | None = None,
             evergreen: bool = False, title: str = "", url: str = "") -> int:
    """Promote a person's text into knowledge_{category} (or evergreen); returns the points stored."""
    if category not in ws.categories:
        raise UsageError(f"unknown category {category!r} (allowed: {', '.join(ws.categories)})")
    if not evergreen and not topic_slug:
        raise UsageError("give a topic slug (--topic SLUG) or --evergreen")
    row = ws.db.execute("SELECT id FROM topics WHERE slug=?", (topic_slug or "",)).fetchone()
    chunks = preview_text(ws, text)
    vectors = ws.embedder.embed(chunks)
    facts = []
    with transaction(ws.db):
        for chunk, vector in zip(chunks, vectors, strict=True):
            fact = FactRecord(text=chunk, category=category,
                              kind=FactKind.EVERGREEN if evergreen else FactKind.TOPIC,
                              topic_id=row["id"] if row else None, topic_slug=topic_slug or "",
                              url=url, title=title, domain="local" if url else "", quote=chunk,
                              quote_start=-1, extractor=HUMAN, status=FactStatus.KEPT,
                              fetched_at=records.now())
            records.insert(ws.db, fact, vector, ws.embedder.name)
            facts.append(fact)
    return promote_facts(ws, facts)


#: The extractor name of facts a program proposed (the Python API, the MCP server).
PROPOSED = "proposed"


def propose_fact(ws: Workspace, text: str, quote: str, url: str, *, category: str, title: str = "",
                 evergreen: bool = False) -> FactRecord:
    """Store a fact awaiting review (pending), its text support-checked against its quote."""
    from nonseq.knowledge.review import recheck

    text, quote = " ".join(text.split()), " ".join(quote.split())
    if not text or not quote:
        raise UsageError("a proposed fact needs its text and the quote it stands on")
    if category not in ws.categories:
        raise UsageError(f"unknown category {category!r} (allowed: {', '.join(ws.categories)})")
    if not url.startswith(("http://", "https://", "file:")):
        raise UsageError(f"a proposed fact needs the http(s) or file: URL of its source, not {url!r}")
    from urllib.parse import urlsplit

    domain = LOCAL_DOMAIN if url.startswith("file:") else (urlsplit(url).hostname or "")
    fact = FactRecord(text=text, category=category, kind=FactKind.EVERGREEN if evergreen else FactKind.TOPIC,
                      url=url, title=title, domain=domain, quote=quote, extractor=PROPOSED, status=FactStatus.PENDING,
                      fetched_at=records.now())
    recheck(ws, fact)
    with transaction(ws.db):
        records.insert(ws.db, fact)
    return fact
