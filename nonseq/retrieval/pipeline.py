"""The retrieval chain composed: retrieve(ws, topic) -> ContextPack, each step timed and recorded.

Within one workspace the pack is computed once per state: `retrieve` reuses it while the topic's
research points, the knowledge, evergreen and persona collections and the [retrieval]/[rerank]
settings are unchanged. Every store write (indexing, promotion, wipe) bumps the store's
`generation` and so invalidates it; `invalidate(ws, topic)` drops it explicitly.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from nonseq.index.vector_store import EVERGREEN, knowledge_collection, persona_collection, research_collection
from nonseq.models import Candidate, ContextPack, DropReason, SourceKind, Topic
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
from nonseq.text.prose import prose_score

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

__all__ = ["retrieve", "fusion_method", "research_pool", "side_pool", "invalidate", "pack_cache", "PackCache"]

#: Packs kept per workspace (the oldest is dropped first).
CACHE_SIZE = 8


class PackCache:
    """A workspace's context packs by state key (see `state_key`), and how often the chain ran."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self.packs: dict[tuple[Any, ...], ContextPack] = {}
        #: How many times the whole chain ran for this workspace (cache hits do not count).
        self.runs = 0

    def keep(self, key: tuple[Any, ...], pack: ContextPack) -> None:
        """Store a pack as the newest (the oldest beyond `size` is dropped)."""
        self.packs.pop(key, None)
        self.packs[key] = pack
        while len(self.packs) > self.size:
            del self.packs[next(iter(self.packs))]

    def forget(self, slug: str | None = None) -> None:
        """Drop one topic's packs (all when slug is None)."""
        for key in [k for k in self.packs if slug is None or k[0] == slug]:
            del self.packs[key]


def pack_cache(ws: Workspace) -> PackCache:
    """The workspace's pack cache."""
    return ws.memo("context_packs", PackCache)
#: The prose step: a research chunk below this score is page furniture, never a fact.
PROSE = "prose"


@contextmanager
def _timed(timings: dict[str, float], step: str) -> Iterator[None]:
    """Add the block's wall time (ms) to timings[step]."""
    start = time.perf_counter()
    try:
        yield
    finally:
        timings[step] = timings.get(step, 0.0) + (time.perf_counter() - start) * 1000.0


def fusion_method(ws: Workspace, reranker: Reranker) -> str:
    """The fusion in force: `auto` fuses only a bi-encoder (weak) reranker with the pre-rank."""
    method = ws.settings.rerank.fusion
    if method == "auto":
        return "weighted" if reranker.backend == "bi-encoder" else "none"
    return method


def research_pool(ws: Workspace, cands: list[Candidate], query_terms: list[str],
                  timings: dict[str, float], index: BM25Index | None = None,
                  limit: int | None = None) -> tuple[list[Candidate], list[Candidate]]:
    """BM25 over every chunk, x trust, dedup while cutting to `limit` (prerank_top): (pool, rest)."""
    s, sp = ws.settings.retrieval, ws.settings.sparse
    limit = s.prerank_top if limit is None else limit
    with _timed(timings, "bm25"):
        ranked = prerank_bm25(cands, query_terms, tokenize=ws.sparse.tokenize, k1=sp.k1, b=sp.b,
                              index=index)
        ranked = apply_trust(ranked, key="bm25")
    with _timed(timings, "dedup"):
        pool = dedup(ranked, s.dedup_threshold, key=TRUST, limit=limit) if limit > 0 else []
    return pool, mark_rest(ranked, pool, DropReason.PRERANK_CUT, f"below the pre-rank cut (top {limit})")


def side_pool(cands: list[Candidate], threshold: float) -> tuple[list[Candidate], list[Candidate]]:
    """Knowledge/evergreen: x trust on the hybrid score, then dedup: (pool, discarded)."""
    ranked = apply_trust(cands, key=HYBRID)
    pool = dedup(ranked, threshold, key=TRUST)
    return pool, mark_rest(ranked, pool, DropReason.DUPLICATE, "duplicate")


def _gather(ws: Workspace, topic: Topic, pack: ContextPack, query_terms: list[str],
            query_vec: Any) -> list[Candidate]:
    """The rerank pool (at most prerank_top): knowledge, evergreen, then research fills the rest."""
    s = ws.settings.retrieval
    with _timed(pack.timings, "scroll"):
        research = research_candidates(ws, topic)
    if not research:
        pack.notes.append(f"no research chunks for {topic.slug} yet: run research first")
    side_kept: list[Candidate] = []
    with _timed(pack.timings, "knowledge"):
        side = (knowledge_candidates(ws, topic, query_terms, query_vec)
                + evergreen_candidates(ws, topic, query_terms, query_vec))
        for group in (SourceKind.KNOWLEDGE, SourceKind.EVERGREEN):
            kept, gone = side_pool([c for c in side if c.group == group], s.dedup_threshold)
            side_kept.extend(kept)
            pack.discarded.extend(gone)
    cap = s.prerank_top
    pack.discarded.extend(mark_rest(side_kept, side_kept[:cap], DropReason.POOL_FULL,
                                             f"beyond the rerank pool ({cap})"))
    side_kept = side_kept[:cap]
    pool, dropped = research_pool(ws, research, query_terms, pack.timings,
                                  limit=cap - len(side_kept))
    pack.discarded.extend(dropped)
    return pool + side_kept


def mark_prose(cands: list[Candidate], minimum: float) -> list[Candidate]:
    """Record `prose` on research chunks; those below `minimum` are dropped as page furniture."""
    facts = []
    for cand in cands:
        if cand.group is SourceKind.RESEARCH:
            score = prose_score(cand.chunk.text)
            cand.record(PROSE, score)
            if score < minimum:
                cand.discard(DropReason.NOT_PROSE,
                             f"not prose (score {score:.2f} < {minimum:g}): links, menus or bylines")
                continue
        facts.append(cand)
    return facts


def score_pool(ws: Workspace, pool: list[Candidate], query: str, reranker: Reranker,
               timings: dict[str, float]) -> list[Candidate]:
    """Rerank the pool, fuse with the pre-rank, normalise per group and score `final`."""
    s, rr = ws.settings.retrieval, ws.settings.rerank
    with _timed(timings, "rerank"):
        pool = rerank(pool, reranker, query)
    with _timed(timings, "normalize"):
        pool = fuse(pool, prior=TRUST, method=fusion_method(ws, reranker),
                    weight=rr.fusion_weight, k=rr.fusion_k)
        pool = normalize(pool, key="fused", enabled=s.normalize)
        return finalize(pool, group_weights(s), trust_prior=s.trust_prior)


def choose(ws: Workspace, pool: list[Candidate]) -> tuple[list[Candidate], list[Candidate]]:
    """The facts (research + knowledge, prose only) and the evergreen background of a scored pool."""
    s = ws.settings.retrieval
    facts = mark_prose([c for c in pool if c.group in (SourceKind.RESEARCH, SourceKind.KNOWLEDGE)],
                       s.prose_min)
    return (select(facts, s.final_top, s.per_url_max),
            select([c for c in pool if c.group == SourceKind.EVERGREEN], s.evergreen_top,
                   label="evergreen_top"))


def state_key(ws: Workspace, topic: Topic) -> tuple[Any, ...]:
    """What a pack depends on: the topic's query, point counts, store writes and the settings."""
    store, cat, st = ws.store, topic.category, ws.settings
    counts = (store.count(research_collection(cat), {"topic_slug": topic.slug}),
              store.count(knowledge_collection(cat)), store.count(EVERGREEN, {"category": cat}),
              store.count(persona_collection(topic.persona)) if topic.persona else 0)
    config = tuple(getattr(st, name).model_dump_json()
                   for name in ("retrieval", "rerank", "sparse", "embedding"))
    return (topic.slug, cat, topic.query, topic.focus, topic.persona, store.generation, counts,
            config, ws.reranker.name)


def invalidate(ws: Workspace, topic: Topic | str | None = None) -> None:
    """Forget cached packs of a workspace: one topic's (object or slug), or all of them."""
    pack_cache(ws).forget(topic.slug if isinstance(topic, Topic) else topic)


def _copy(pack: ContextPack, topic: Topic) -> ContextPack:
    """A copy whose candidates and lists callers may change freely (vectors are shared)."""
    twins: dict[int, Candidate] = {}

    def twin(cand: Candidate) -> Candidate:
        """The candidate's copy (made once), its scores and notes its own."""
        if id(cand) not in twins:
            twins[id(cand)] = replace(cand, scores=dict(cand.scores), notes=list(cand.notes))
        return twins[id(cand)]

    return replace(pack, topic=topic, timings=dict(pack.timings), notes=list(pack.notes),
                   pool=[twin(c) for c in pack.pool], research=[twin(c) for c in pack.research],
                   evergreen=[twin(c) for c in pack.evergreen], voice=[twin(c) for c in pack.voice],
                   discarded=[twin(c) for c in pack.discarded])


def retrieve(ws: Workspace, topic: Topic) -> ContextPack:
    """The topic's context pack: the cached one for an unchanged state, else a fresh chain run."""
    key = state_key(ws, topic)
    cache = pack_cache(ws)
    pack = cache.packs.get(key)
    if pack is None:
        pack = run_chain(ws, topic)
        cache.runs += 1
    cache.keep(key, pack)
    return _copy(pack, topic)


def run_chain(ws: Workspace, topic: Topic) -> ContextPack:
    """Run the whole chain for a topic and return its context pack (see docs/retrieval.md)."""
    query = topic.query
    pack = ContextPack(topic=topic, query=query)
    query_terms = ws.sparse.tokenize(query)
    with _timed(pack.timings, "embed_query"):
        query_vec = ws.embedder.embed_query(query)
    pool = _gather(ws, topic, pack, query_terms, query_vec)
    reranker = ws.reranker
    pool = score_pool(ws, pool, query, reranker, pack.timings)
    # read after scoring: a served reranker that stopped answering has become its fallback
    pack.reranker, pack.reranker_offline = reranker.name, reranker.offline
    if reranker.note:
        pack.notes.append(reranker.note)
    with _timed(pack.timings, "select"):
        pack.research, pack.evergreen = choose(ws, pool)
    pack.pool = pool
    with _timed(pack.timings, "persona"):
        focus_vec = ws.embedder.embed_query(topic.focus) if topic.focus else query_vec
        pack.voice = persona_voice(ws, topic, focus_vec)
    if topic.persona and not pack.voice and ws.settings.retrieval.persona_top:
        pack.notes.append(f"persona {topic.persona!r} is not loaded (run `nonseq persona load "
                          f"{topic.persona}`): the prompt uses the first voices of its file, unranked")
    return pack
