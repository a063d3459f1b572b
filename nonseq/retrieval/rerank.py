"""The rerank step: every candidate scored against the query by the workspace's reranker, in one batch."""

from __future__ import annotations

from collections.abc import Sequence

from nonseq.index.rerankers import Reranker
from nonseq.models import Candidate
from nonseq.retrieval.prerank import passage_text

STEP = "rerank"


def rerank(candidates: Sequence[Candidate], reranker: Reranker, query: str) -> list[Candidate]:
    """Record `rerank` (in [0,1]) on every candidate, in one batched call; best first."""
    cands = list(candidates)
    if not cands or reranker.backend == "none":
        return cands
    scores = reranker.score(query, [passage_text(c.chunk) for c in cands],
                            [c.vector for c in cands])
    for cand, value in zip(cands, scores, strict=True):
        cand.record(STEP, float(value))
    return sorted(cands, key=lambda c: -c.scores[STEP])
