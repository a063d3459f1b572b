"""The retrieval chain composed: retrieve(ws, topic) -> ContextPack, each step timed and recorded."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from nonseq.models import Candidate, ContextPack, SourceKind, Topic
from nonseq.retrieval.dedup import dedup
from nonseq.retrieval.fusion import fuse
from nonseq.retrieval.normalize import finalize, group_weights, normalize
from nonseq.retrieval.persona import persona_voice
from nonseq.retrieval.prerank import BM25Index, prerank_bm25
from nonseq.retrieval.rerank import Reranker, rerank
from nonseq.retrieval.select import mark_rest, select
from nonseq.retrieval.sources import (
    HYBRID,
    evergreen_candidates,
    knowledge_candidates,
    research_candidates,
)
from nonseq.retrieval.trust import STEP as TRUST
from nonseq.retrieval.trust import apply_trust

__all__ = ["retrieve", "fusion_method", "research_pool", "side_pool"]


@contextmanager
def _timed(timings: dict[str, float], step: str) -> Iterator[None]:
    """Add the block's wall time (ms) to timings[step]."""
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[step] = timings.get(step, 0.0) + (time.perf_counter() - start) * 1000.0


def fusion_method(ws: Any, reranker: Reranker) -> str:
    """The fusion in force: `auto` fuses only a bi-encoder (weak) reranker with the pre-rank."""
    method = ws.settings.rerank.fusion
    if method == "auto":
        return "weighted" if reranker.backend == "bi-encoder" else "none"
    return method


def research_pool(ws: Any, cands: list[Candidate], query_terms: list[str],
                  timings: dict[str, float], index: BM25Index | None = None,
                  ) -> tuple[list[Candidate], list[Candidate]]:
    """BM25 over every chunk, x trust, dedup while cutting to prerank_top: (pool, discarded)."""
    s, sp = ws.settings.retrieval, ws.settings.sparse
    with _timed(timings, "bm25"):
        ranked = prerank_bm25(cands, query_terms, tokenize=ws.sparse.tokenize, k1=sp.k1, b=sp.b,
                              index=index)
        ranked = apply_trust(ranked, key="bm25")
    with _timed(timings, "dedup"):
        pool = dedup(ranked, s.dedup_threshold, key=TRUST, limit=s.prerank_top)
    return pool, mark_rest(ranked, pool, f"below the pre-rank cut (top {s.prerank_top})")


def side_pool(cands: list[Candidate], threshold: float) -> tuple[list[Candidate], list[Candidate]]:
    """Knowledge/evergreen: x trust on the hybrid score, then dedup: (pool, discarded)."""
    ranked = apply_trust(cands, key=HYBRID)
    pool = dedup(ranked, threshold, key=TRUST)
    return pool, mark_rest(ranked, pool, "duplicate")


def _gather(ws: Any, topic: Topic, pack: ContextPack, query_terms: list[str],
            query_vec: Any) -> list[Candidate]:
    """Research, knowledge and evergreen candidates up to the rerank; fills pack.discarded."""
    s = ws.settings.retrieval
    with _timed(pack.timings, "scroll"):
        research = research_candidates(ws, topic)
    if not research:
        pack.notes.append(f"no research chunks for {topic.slug} yet: run research first")
    pool, dropped = research_pool(ws, research, query_terms, pack.timings)
    pack.discarded.extend(dropped)
    with _timed(pack.timings, "knowledge"):
        side = (knowledge_candidates(ws, topic, query_terms, query_vec)
                + evergreen_candidates(ws, topic, query_terms, query_vec))
        for group in (SourceKind.KNOWLEDGE, SourceKind.EVERGREEN):
            kept, gone = side_pool([c for c in side if c.group == group], s.dedup_threshold)
            pool.extend(kept)
            pack.discarded.extend(gone)
    return pool


def retrieve(ws: Any, topic: Topic) -> ContextPack:
    """Run the whole chain for a topic and return its context pack (see docs/retrieval.md)."""
    s, rr = ws.settings.retrieval, ws.settings.rerank
    query = topic.query
    pack = ContextPack(topic=topic, query=query)
    query_terms = ws.sparse.tokenize(query)
    with _timed(pack.timings, "embed_query"):
        query_vec = ws.embedder.embed_query(query)
    pool = _gather(ws, topic, pack, query_terms, query_vec)
    reranker = ws.reranker
    pack.reranker, pack.reranker_offline = reranker.name, reranker.offline
    if reranker.note:
        pack.notes.append(reranker.note)
    with _timed(pack.timings, "rerank"):
        pool = rerank(pool, reranker, query)
    with _timed(pack.timings, "normalize"):
        pool = fuse(pool, prior=TRUST, method=fusion_method(ws, reranker),
                    weight=rr.fusion_weight, k=rr.fusion_k)
        pool = normalize(pool, key="fused", enabled=s.normalize)
        pool = finalize(pool, group_weights(s), trust_prior=s.trust_prior)
    with _timed(pack.timings, "select"):
        facts = [c for c in pool if c.group in (SourceKind.RESEARCH, SourceKind.KNOWLEDGE)]
        pack.research = select(facts, s.final_top, s.per_url_max)
        pack.evergreen = select([c for c in pool if c.group == SourceKind.EVERGREEN],
                                s.evergreen_top, label="evergreen_top")
    pack.pool = pool
    with _timed(pack.timings, "persona"):
        focus_vec = ws.embedder.embed_query(topic.focus) if topic.focus else query_vec
        pack.voice = persona_voice(ws, topic, focus_vec)
    return pack
