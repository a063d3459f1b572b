"""Domain trust: boosts the pre-rank score before the pool is cut, and is a prior in the final score."""

from __future__ import annotations

from collections.abc import Sequence

from nonseq.models import Candidate

STEP = "trust"


def boost_of(cand: Candidate) -> float:
    """The chunk's trust boost (0 for unknown domains, 0.50-0.95 for trusted ones, [research] local_boost
    for the user's own files)."""
    return max(0.0, float(cand.chunk.trust_boost or 0.0))


def apply_trust(candidates: Sequence[Candidate], *, key: str) -> list[Candidate]:
    """Record `trust` = score[key] x (1 + boost) on each candidate; return them best first."""
    for cand in candidates:
        boost = boost_of(cand)
        what = "local file" if cand.chunk.is_local else f"{cand.chunk.domain or 'domain'} trusted"
        note = f"x{1 + boost:.2f} ({what})" if boost else ""
        cand.record(STEP, cand.scores.get(key, 0.0) * (1.0 + boost), note)
    return sorted(candidates, key=lambda c: -c.scores[STEP])


def trust_factor(cand: Candidate, prior: float) -> float:
    """The final-score prior: 1 + trust_prior x boost."""
    return 1.0 + prior * boost_of(cand)
