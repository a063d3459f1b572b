"""Searching the knowledge base (the same hybrid retrieval the writer gets) and its figures."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from nonseq.index.vector_store import EVERGREEN, knowledge_collection
from nonseq.knowledge import records
from nonseq.models import Candidate, SourceKind

if TYPE_CHECKING:
    from nonseq.workspace import Workspace


def _collections(ws: Workspace, category: str | None) -> list[tuple[str, dict[str, Any] | None, SourceKind]]:
    """(collection, filter, group) to search: one category's, or every knowledge collection."""
    if category is not None:
        return [(knowledge_collection(category), None, SourceKind.KNOWLEDGE),
                (EVERGREEN, {"category": category}, SourceKind.EVERGREEN)]
    names = [n for n in ws.store.collections() if n.startswith("knowledge_")]
    return [(n, None, SourceKind.EVERGREEN if n == EVERGREEN else SourceKind.KNOWLEDGE)
            for n in names]


def search_candidates(ws: Workspace, query: str, *, category: str | None = None,
                      limit: int = 10) -> list[tuple[Candidate, float]]:
    """The knowledge points closest to the query (dense + BM25 fused by RRF) and their scores, best first."""
    from nonseq.retrieval.sources import HYBRID, collection_candidates

    terms = ws.sparse.tokenize(query)
    vec = ws.embedder.embed_query(query)
    found = []
    for name, match, group in _collections(ws, category):
        found += collection_candidates(ws, name, match, group, query, terms, vec, limit)
    found.sort(key=lambda c: -c.scores.get(HYBRID, 0.0))
    return [(c, round(c.scores.get(HYBRID, 0.0), 5)) for c in found[:limit]]


def search_knowledge(ws: Workspace, query: str, *, category: str | None = None,
                     limit: int = 10) -> list[dict[str, Any]]:
    """The knowledge points closest to the query as JSON-ready dicts, best first."""
    return [{"fact_id": c.chunk.extra.get("fact_id"), "score": score,
             "kind": "evergreen" if c.group is SourceKind.EVERGREEN else "topic",
             "category": c.chunk.category, "topic": c.chunk.topic_slug, "url": c.chunk.url,
             "title": c.chunk.title, "text": c.chunk.text, "quote": c.chunk.extra.get("quote", ""),
             "support": c.chunk.extra.get("support")}
            for c, score in search_candidates(ws, query, category=category, limit=limit)]


def extractor_family(extractor: str) -> str:
    """llm, extractive or human."""
    return extractor if extractor in (records.EXTRACTIVE, records.HUMAN) else "llm"


def knowledge_stats(ws: Workspace) -> dict[str, Any]:
    """Facts by status, kind, extractor and category, and the points in each knowledge collection.

    Counted by SQL, so it stays quick with tens of thousands of facts.
    """
    def grouped(column: str, live: bool = True) -> dict[str, int]:
        """Facts counted by one column (the deleted left out unless live is False)."""
        where = " WHERE status != 'deleted'" if live else ""
        rows = ws.db.execute(f"SELECT {column}, COUNT(*) FROM facts{where} GROUP BY {column} ORDER BY MIN(id)")
        return {str(r[0]): int(r[1]) for r in rows}

    families: Counter[str] = Counter()
    for extractor, count in grouped("extractor").items():
        families[extractor_family(extractor)] += count
    points = {n: ws.store.count(n) for n in ws.store.collections() if n.startswith("knowledge_")}
    return {
        "facts": int(ws.db.execute("SELECT COUNT(*) FROM facts").fetchone()[0]),
        "by_status": grouped("status", live=False),
        "by_kind": grouped("kind"),
        "by_extractor": dict(families),
        "by_category": grouped("category"),
        "corroborated": int(ws.db.execute("SELECT COUNT(*) FROM facts WHERE status != 'deleted'"
                                          " AND corroborations NOT IN ('', '[]')").fetchone()[0]),
        "points": points,
    }
