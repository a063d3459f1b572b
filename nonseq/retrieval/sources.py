"""Candidates from the store: the topic's full research scroll; knowledge and evergreen by the engine's hybrid query."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nonseq.index.vector_store import DENSE, EVERGREEN, StoredPoint, knowledge_collection, research_collection
from nonseq.models import Candidate, SourceKind, Topic
from nonseq.retrieval.dedup import unit
from nonseq.retrieval.fusion import ranks, rrf
from nonseq.retrieval.prerank import Tokenize, build_index

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

HYBRID = "hybrid"
#: How deep each ranking goes in a hybrid fusion (as the store's prefetch depth).
DEPTH = 100


def to_candidate(point: StoredPoint, group: SourceKind) -> Candidate:
    """A candidate from a stored point, with its dense vector if it was read."""
    vec = point.vectors.get(DENSE) if point.vectors else None
    return Candidate(chunk=point.chunk, group=group, point_id=point.id,
                     vector=list(map(float, vec)) if vec is not None else None)


def research_candidates(ws: Workspace, topic: Topic) -> list[Candidate]:
    """Every research chunk of the topic, with its dense vector: ONE full scroll, no ANN."""
    points = ws.store.scroll_all(research_collection(topic.category), {"topic_slug": topic.slug},
                                 vectors=[DENSE])
    return [to_candidate(p, SourceKind.RESEARCH) for p in points]


def hybrid_local(cands: Sequence[Candidate], query_terms: Sequence[str], query_vec: Any,
                 tokenize: Tokenize, *, k: int = 60, k1: float = 1.2, b: float = 0.75,
                 depth: int = DEPTH) -> list[Candidate]:
    """Record `hybrid` = RRF of BM25 ranks (matching terms only) and dense ranks (top depth)."""
    if not cands:
        return []
    bm25 = build_index(cands, tokenize, k1=k1, b=b).scores(query_terms)
    q = unit(query_vec)
    dense = np.array([float(unit(c.vector) @ q) if c.vector is not None else -1.0 for c in cands])
    r_sparse = np.where(bm25 > 0, ranks(bm25), 0)
    r_dense = ranks(dense)
    r_dense = np.where((r_dense <= depth) & (dense > -1.0), r_dense, 0)
    fused = rrf([r_sparse, r_dense], k=k)
    for cand, value in zip(cands, fused, strict=True):
        cand.record(HYBRID, float(value))
    return sorted(cands, key=lambda c: -c.scores[HYBRID])


def collection_candidates(ws: Workspace, name: str, match: dict[str, Any] | None, group: SourceKind,
                          query: str, query_terms: Sequence[str], query_vec: Any,
                          top: int, keep_slug: str = "") -> list[Candidate]:
    """The `top` chunks of a collection most like the query, plus every chunk of `keep_slug`.

    The engine finds the `top` by its dense + sparse RRF (filtered by `match`), the topic's own by
    a payload-index filter: no full scroll, so the cost does not grow with the collection. The
    union is then scored together by `hybrid_local`; the topic's own come first.
    """
    s, sp = ws.settings.retrieval, ws.settings.sparse
    found = ws.store.hybrid(name, query_vec, ws.sparse.encode_query(query), limit=top, match=match,
                            depth=max(DEPTH, top), vectors=True) if top > 0 else []
    cands = [to_candidate(p, group) for p in found]
    for cand in cands:
        cand.notes.append("found by qdrant RRF")
    if keep_slug:
        seen = {c.point_id for c in cands}
        mine = ws.store.scroll_all(name, {**(match or {}), "topic_slug": keep_slug}, vectors=[DENSE])
        cands += [to_candidate(p, group) for p in mine if p.id not in seen]
    ranked = hybrid_local(cands, query_terms, query_vec, ws.sparse.tokenize, k=s.rrf_k, k1=sp.k1, b=sp.b)
    own = [c for c in ranked if keep_slug and c.chunk.topic_slug == keep_slug]
    return own + [c for c in ranked if not (keep_slug and c.chunk.topic_slug == keep_slug)][:top]


def knowledge_candidates(ws: Workspace, topic: Topic, query_terms: Sequence[str],
                         query_vec: Any) -> list[Candidate]:
    """knowledge_{category}: the topic's own facts plus the ones most similar to the query."""
    return collection_candidates(ws, knowledge_collection(topic.category), None,
                                 SourceKind.KNOWLEDGE, topic.query, query_terms, query_vec,
                                 ws.settings.retrieval.knowledge_top, keep_slug=topic.slug)


def evergreen_candidates(ws: Workspace, topic: Topic, query_terms: Sequence[str],
                         query_vec: Any) -> list[Candidate]:
    """knowledge_evergreen by category: the ones most similar to the query."""
    return collection_candidates(ws, EVERGREEN, {"category": topic.category},
                                 SourceKind.EVERGREEN, topic.query, query_terms, query_vec,
                                 ws.settings.retrieval.evergreen_pool)
