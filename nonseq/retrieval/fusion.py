"""Rank fusion: RRF of ranks, or a weighted sum of min-max scores; fuses rerank with pre-rank."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nonseq.models import Candidate, SourceKind
from nonseq.retrieval.normalize import minmax

STEP = "fused"
RERANK = "rerank"
METHODS = ("none", "rrf", "weighted")


def ranks(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """1-based ranks, best (highest) first; ties keep input order."""
    order = np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")
    out = np.empty(len(order), dtype=np.int64)
    out[order] = np.arange(1, len(order) + 1)
    return out


def rrf(rank_lists: Sequence[Sequence[float] | np.ndarray], k: int = 60) -> np.ndarray:
    """Reciprocal rank fusion: sum of 1/(k + rank); a rank of 0 or less means 'absent'."""
    total = np.zeros(len(rank_lists[0]) if rank_lists else 0, dtype=np.float64)
    for rl in rank_lists:
        arr = np.asarray(rl, dtype=np.float64)
        total += np.where(arr > 0, 1.0 / (k + np.maximum(arr, 1)), 0.0)
    return total


def fuse_scores(prior: Sequence[float], rerank: Sequence[float], method: str,
                weight: float = 0.5, k: int = 60) -> np.ndarray:
    """Fuse one list's pre-rank and rerank scores: none (rerank only), rrf or weighted."""
    if method == "none":
        return np.asarray(rerank, dtype=np.float64)
    if method == "rrf":
        return rrf([ranks(prior), ranks(rerank)], k=k)
    if method == "weighted":
        return (weight * np.asarray(minmax(list(rerank)))
                + (1.0 - weight) * np.asarray(minmax(list(prior))))
    raise ValueError(f"unknown fusion {method!r} (one of {', '.join(METHODS)})")


def fuse(candidates: Sequence[Candidate], *, prior: str, method: str, weight: float = 0.5,
         k: int = 60) -> list[Candidate]:
    """Record `fused` per source group: the rerank score fused with the pre-rank order."""
    groups: dict[SourceKind, list[Candidate]] = {}
    for cand in candidates:
        groups.setdefault(cand.group, []).append(cand)
    for members in groups.values():
        pre = [c.scores.get(prior, 0.0) for c in members]
        if not all(RERANK in c.scores for c in members):
            fused = np.asarray(pre, dtype=np.float64)  # no reranker: the pre-rank order stands
        else:
            fused = fuse_scores(pre, [c.scores[RERANK] for c in members], method, weight, k)
        for cand, value in zip(members, fused, strict=True):
            cand.record(STEP, float(value))
    return sorted(candidates, key=lambda c: -c.scores[STEP])
