"""Promotion: kept facts become knowledge points; then the topic's research chunks are wiped.

A fact is marked promoted only after its point is stored, and the wipe runs only when no fact of the
topic is pending and every kept fact is promoted, so a crash anywhere is safe to rerun: point ids are
deterministic (kind, topic, url, fact id), a rerun overwrites instead of duplicating.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from nonseq import chunk_records, queue
from nonseq.db import transaction
from nonseq.index.vector_store import EVERGREEN, knowledge_collection, research_collection
from nonseq.knowledge import records
from nonseq.knowledge.records import FactRecord
from nonseq.models import LOCAL_DOMAIN, Chunk, FactStatus, SourceKind, content_hash

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

#: Payload key carrying a fact's uid on its point.
UID_KEY = "fact_uid"
#: Facts written to the store per call.
INDEX_BATCH = 256


@dataclass
class PromoteReport:
    """What a promotion did."""

    topic_id: int
    slug: str
    promoted: int = 0
    pending: int = 0
    wiped: bool = False
    wiped_chunks: int = 0
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def collection_of(fact: FactRecord) -> str:
    """knowledge_evergreen for evergreen facts, else knowledge_{category}."""
    return EVERGREEN if fact.evergreen else knowledge_collection(fact.category)


def fact_chunk(ws: Workspace, fact: FactRecord) -> Chunk:
    """The knowledge chunk a fact becomes: its text, provenance and evidence in the payload."""
    kind = SourceKind.EVERGREEN if fact.evergreen else SourceKind.KNOWLEDGE
    boost = ws.domains.boost(fact.url) if fact.url.startswith("http") else 0.0
    if fact.url.startswith("file:") and fact.domain == LOCAL_DOMAIN:
        boost = ws.settings.research.local_boost
    return Chunk(
        text=fact.text, topic_slug=fact.topic_slug, category=fact.category, url=fact.url,
        domain=fact.domain, title=fact.title, published=fact.published,
        content_hash=content_hash(fact.text), trust_boost=boost, source_kind=kind,
        position=int(fact.id or 0), pages=list(fact.pages),
        extra={"fact_id": fact.id, UID_KEY: fact.uid, "quote": fact.quote,
               "fetched_at": fact.fetched_at, "support": fact.support, "flags": list(fact.flags),
               "extractor": fact.extractor, "sources": fact.sources,
               "corroborating": [c.get("url", "") for c in fact.corroborations]},
    )


def fact_point_id(fact: FactRecord) -> str:
    """The id of a promoted fact's point (the one recorded, else the deterministic one it gets)."""
    if fact.point_id:
        return fact.point_id
    kind = SourceKind.EVERGREEN if fact.evergreen else SourceKind.KNOWLEDGE
    return Chunk(text="", topic_slug=fact.topic_slug, category=fact.category, url=fact.url, source_kind=kind,
                 position=int(fact.id or 0)).point_id()


def unindex(ws: Workspace, fact: FactRecord) -> None:
    """Remove a fact's point (wherever it was stored)."""
    if fact.collection:
        ws.store.delete(fact.collection, {UID_KEY: fact.uid})


def fact_vectors(ws: Workspace, facts: Sequence[FactRecord],
                 given: Mapping[int, Any] | None = None) -> list[Any]:
    """The dense vector of each fact: given, else the one SQLite holds for this embedder, else embedded now."""
    given = given or {}
    model = ws.embedder.name
    stored = records.stored_vectors(ws.db, [int(f.id or 0) for f in facts if int(f.id or 0) not in given], model)
    known = {**stored, **given}
    missing = [f for f in facts if int(f.id or 0) not in known]
    if missing:
        known.update(zip([int(f.id or 0) for f in missing], ws.embedder.embed([f.text for f in missing]),
                         strict=True))
    return [known[int(f.id or 0)] for f in facts]


def index_facts(ws: Workspace, facts: Sequence[FactRecord], vectors: Mapping[int, Any] | None = None) -> None:
    """Store the facts' points (dense + sparse) and record where; the caller saves the records.

    Each fact's text is embedded once: the vector given (by fact id) or kept in SQLite is reused.
    """
    groups: dict[str, list[FactRecord]] = defaultdict(list)
    for fact in facts:
        target = collection_of(fact)
        if fact.collection and fact.collection != target:
            unindex(ws, fact)
        groups[target].append(fact)
    for name, group in groups.items():
        ws.indexer.ensure(name)
        for start in range(0, len(group), INDEX_BATCH):
            part = group[start:start + INDEX_BATCH]
            chunks = [fact_chunk(ws, f) for f in part]
            ws.store.upsert(name, chunks, fact_vectors(ws, part, vectors), ws.sparse.encode([c.text for c in chunks]))
            for fact, chunk in zip(part, chunks, strict=True):
                fact.collection, fact.point_id = name, chunk.point_id()
    invalidate_cache(ws)


def invalidate_cache(ws: Workspace) -> None:
    """Tell retrieval that knowledge or research changed (its per-process pack cache is stale)."""
    from nonseq.retrieval.pipeline import invalidate

    invalidate(ws)


def promote_facts(ws: Workspace, facts: Sequence[FactRecord]) -> int:
    """Store the facts' points, then mark them promoted (in that order); returns how many."""
    if not facts:
        return 0
    index_facts(ws, facts)
    with transaction(ws.db):
        for fact in facts:
            records.decide(fact, FactStatus.PROMOTED)
            records.update(ws.db, fact)
    return len(facts)


def research_left(ws: Workspace, topic: Any) -> int:
    """How many research chunks of the topic are still stored."""
    return ws.store.count(research_collection(topic.category), {"topic_slug": topic.slug})


def promote_topic(ws: Workspace, topic_id: int | str, *, keep_research: bool = False) -> PromoteReport:
    """Promote the topic's kept and edited facts, then wipe its research (unless facts still wait)."""
    topic = queue.get_topic(ws.db, topic_id)
    report = PromoteReport(int(topic.id or 0), topic.slug)
    ready = records.select(ws.db, statuses=records.PROMOTABLE, topic_id=topic.id)
    report.promoted = promote_facts(ws, ready)
    report.pending = len(records.select(ws.db, statuses=[FactStatus.PENDING], topic_id=topic.id))
    if keep_research:
        report.note = "research kept (--keep-research)"
    elif report.pending:
        report.note = f"{report.pending} fact(s) still wait for review: research kept"
    elif records.select(ws.db, statuses=records.PROMOTABLE, topic_id=topic.id):
        report.note = "some kept facts are not promoted: research kept"  # pragma: no cover - race
    elif unread := unextracted_pages(ws, topic):
        report.note = (f"{unread} page(s) not distilled into facts yet: research kept "
                       f"(run `nonseq knowledge extract {topic.id}`, or --keep-research)")
    else:
        report.wiped_chunks = wipe_research(ws, topic)
        report.wiped = True
        report.note = f"research wiped ({report.wiped_chunks} chunk(s))"
    return report


def unextracted_pages(ws: Workspace, topic: Any) -> int:
    """How many of the topic's researched pages fact extraction has not finished."""
    points = ws.store.scroll_all(research_collection(topic.category), {"topic_slug": topic.slug})
    done = records.extracted_urls(ws.db, int(topic.id or 0))
    return len({p.chunk.url for p in points} - done)


def wipe_research(ws: Workspace, topic: Any) -> int:
    """Delete the topic's research chunks (its promoted facts stay); returns how many went."""
    collection = research_collection(topic.category)
    count = ws.store.count(collection, {"topic_slug": topic.slug})
    chunk_records.forget_topic(ws.db, int(topic.id or 0))
    if count:
        ws.store.delete(collection, {"topic_slug": topic.slug})
        queue.note(ws.db, topic.id, f"research wiped after promotion ({count} chunk(s))",
                   {"wiped": count})
        invalidate_cache(ws)
    return count
