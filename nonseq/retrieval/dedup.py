"""Semantic dedup: near-identical chunks (cosine >= threshold on dense vectors) keep the better one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nonseq.models import Candidate, DropReason

STEP = "dedup"


def unit(vector: Sequence[float] | np.ndarray) -> np.ndarray:
    """A vector scaled to unit length (local Qdrant may hand back raw, unnormalised vectors)."""
    arr = np.asarray(vector, dtype=np.float32).ravel()
    norm = float(np.linalg.norm(arr))
    return arr / norm if norm > 0 else arr


def _label(cand: Candidate) -> str:
    """A short name for a candidate in notes: title or url, and its position."""
    name = cand.chunk.title or cand.chunk.url or cand.point_id
    return f"{name[:60]} #{cand.chunk.position}"


def dedup(candidates: Sequence[Candidate], threshold: float = 0.92, *, key: str,
          limit: int | None = None) -> list[Candidate]:
    """Best-first by `key`, drop chunks too similar to a kept one; stop at `limit` kept."""
    # `dedup` records the highest cosine to a kept chunk; chunks without a vector are kept.
    ordered = sorted(candidates, key=lambda c: -c.scores.get(key, 0.0))
    kept: list[Candidate] = []
    with_vec: list[Candidate] = []
    matrix: np.ndarray | None = None
    for cand in ordered:
        if limit is not None and len(kept) >= limit:
            break
        if cand.vector is None:
            cand.record(STEP, 0.0, "no vector, not compared")
            kept.append(cand)
            continue
        vec = unit(cand.vector)
        if matrix is None:
            matrix = np.empty((min(len(ordered), limit or len(ordered)), vec.size), np.float32)
        sims = matrix[: len(with_vec)] @ vec
        best = int(np.argmax(sims)) if sims.size else -1
        top = float(sims[best]) if best >= 0 else 0.0
        cand.record(STEP, top)
        if top >= threshold:
            twin = with_vec[best]
            cand.discard(DropReason.DUPLICATE, f"duplicate of {_label(twin)} (cosine {top:.3f} >= {threshold:g})")
            continue
        matrix[len(with_vec)] = vec
        with_vec.append(cand)
        kept.append(cand)
    return kept
