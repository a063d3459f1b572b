"""A stand-in for `nonseq.api.WorkspaceAPI` with the methods the MCP server calls, used only when
`nonseq.api` is not there; the same names, arguments and results, so the server switches to the
API unchanged. Delete this module once `nonseq.api` is merged."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq.errors import UsageError
from nonseq.workspace import Workspace

if TYPE_CHECKING:
    from nonseq.config import Settings
    from nonseq.knowledge.records import FactRecord
    from nonseq.models import Topic
    from nonseq.pipeline.topics import TopicDetails

#: The extractor name of facts a program proposed.
PROPOSED = "proposed"


@dataclass(frozen=True)
class KnowledgeHit:
    """A promoted fact found by `search_knowledge`, with where it comes from."""

    fact_id: int | None
    text: str
    quote: str
    source_title: str
    url: str
    pages: list[int]
    category: str
    kind: str
    topic: str
    score: float
    support: float | None


@dataclass(frozen=True)
class ArticleText:
    """An article file: its front matter and Markdown body."""

    slug: str
    path: Path
    meta: dict[str, Any] = field(default_factory=dict)
    markdown: str = ""


class WorkspaceAPI:
    """The subset of the Python API the MCP server uses."""

    def __init__(self, ws: Workspace, *, read_only: bool = False) -> None:
        self.ws, self.read_only, self._held = ws, read_only, False

    @classmethod
    def from_settings(cls, settings: Settings, *, read_only: bool = False) -> WorkspaceAPI:
        """An API object over a new Workspace of these settings."""
        return cls(Workspace(settings), read_only=read_only)

    def acquire(self, action: str) -> None:
        """Take the workspace lock (WorkspaceBusyError when another process holds it)."""
        from nonseq.lock import acquire

        acquire(self.ws.data_dir, action)
        self._held = True

    def close(self) -> None:
        """Close the workspace and give the lock back."""
        from nonseq.lock import release

        try:
            self.ws.close()
        finally:
            if self._held:
                self._held = False
                release(self.ws.data_dir)

    def search_knowledge(self, query: str, *, category: str | None = None, limit: int = 10) -> list[KnowledgeHit]:
        """Promoted facts closest to the query, best first."""
        from nonseq.knowledge import records
        from nonseq.knowledge.search import search_knowledge

        if category is not None and category not in self.ws.categories:
            raise UsageError(f"unknown category {category!r} (allowed: {', '.join(self.ws.categories)})")
        hits = search_knowledge(self.ws, query, category=category, limit=limit)
        ids = [int(h["fact_id"]) for h in hits if h.get("fact_id") is not None]
        pages = {f.id: f.pages for f in records.get_many(self.ws.db, ids)}
        return [KnowledgeHit(
            fact_id=None if h.get("fact_id") is None else int(h["fact_id"]), text=h["text"],
            quote=str(h.get("quote") or ""), source_title=h["title"], url=h["url"],
            pages=list(pages.get(int(h["fact_id"] or 0), [])), category=h["category"], kind=h["kind"],
            topic=h["topic"], score=h["score"], support=h.get("support")) for h in hits]

    def fact(self, fact_id: int) -> FactRecord:
        """One fact by id, whatever its status."""
        from nonseq.knowledge.review import get_fact

        return get_fact(self.ws, int(fact_id))

    def topics(self, stage: str | None = None) -> list[Topic]:
        """The queue, or the topics at one stage."""
        from nonseq import queue
        from nonseq.models import Stage

        if stage is None:
            return queue.list_topics(self.ws.db)
        try:
            wanted = Stage(stage)
        except ValueError:
            raise UsageError(f"unknown stage {stage!r} (one of: {', '.join(s.value for s in Stage)})") from None
        return queue.list_topics(self.ws.db, [wanted])

    def topic(self, ref: int | str) -> TopicDetails:
        """A topic with its stage history and recorded sources."""
        from nonseq.pipeline.topics import show_topic

        return show_topic(self.ws, ref)

    def add_topic(self, title: str, *, category: str, focus: str | None = None, queries: tuple[str, ...] = ()) -> Topic:
        """Queue a topic."""
        from nonseq.pipeline.topics import add_topic

        return add_topic(self.ws, title, category, focus=focus or "", sub_queries=list(queries))

    def article(self, slug: str) -> ArticleText:
        """An article by slug or file name."""
        from nonseq.writing.articles import find_article, read_article

        path = find_article(self.ws.articles_dir, slug)
        meta, body = read_article(path)
        return ArticleText(slug=str(meta.get("slug") or path.stem), path=path, meta=meta, markdown=body)

    def propose_fact(self, text: str, quote: str, url: str, *, category: str) -> FactRecord:
        """Store a fact awaiting review, support-checked against its quote."""
        from urllib.parse import urlsplit

        from nonseq.db import transaction
        from nonseq.knowledge import records
        from nonseq.knowledge.records import FactRecord
        from nonseq.knowledge.review import recheck
        from nonseq.models import LOCAL_DOMAIN, FactStatus

        text, quote = " ".join(text.split()), " ".join(quote.split())
        if category not in self.ws.categories:
            raise UsageError(f"unknown category {category!r} (allowed: {', '.join(self.ws.categories)})")
        if not url.startswith(("http://", "https://", "file:")):
            raise UsageError(f"a proposed fact needs the http(s) or file: URL of its source, not {url!r}")
        domain = LOCAL_DOMAIN if url.startswith("file:") else (urlsplit(url).hostname or "")
        fact = FactRecord(text=text, category=category, url=url, domain=domain, quote=quote,
                          extractor=PROPOSED, status=FactStatus.PENDING, fetched_at=records.now())
        recheck(self.ws, fact)
        with transaction(self.ws.db):
            records.insert(self.ws.db, fact)
        return fact
