"""Per-source normalisation: each group min-max scaled on its own, weighted, then merged."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nonseq.config import RetrievalSettings
from nonseq.models import Candidate, SourceKind
from nonseq.retrieval.select import FINAL
from nonseq.retrieval.trust import trust_factor

STEP = "normalized"


def minmax(values: Sequence[float]) -> list[float]:
    """Scale to [0,1]; a group of one, or of equal values, scores 1."""
    if not values:
        return []
    low, high = min(values), max(values)
    if high - low <= 1e-12:
        return [1.0] * len(values)
    return [(v - low) / (high - low) for v in values]


def normalize(candidates: Sequence[Candidate], *, key: str, enabled: bool = True) -> list[Candidate]:
    """Record `normalized`: score[key] min-max scaled within its source group (or as is)."""
    groups: dict[SourceKind, list[Candidate]] = {}
    for cand in candidates:
        groups.setdefault(cand.group, []).append(cand)
    for members in groups.values():
        raw = [c.scores.get(key, 0.0) for c in members]
        values = minmax(raw) if enabled else raw
        for cand, value in zip(members, values, strict=True):
            cand.record(STEP, value)
    return list(candidates)


def finalize(candidates: Sequence[Candidate], weights: Mapping[SourceKind, float], *,
             trust_prior: float = 0.0) -> list[Candidate]:
    """Record `final` = weight[group] x normalized x (1 + trust_prior x boost); best first."""
    for cand in candidates:
        weight = weights.get(cand.group, 1.0)
        cand.record(FINAL, weight * cand.scores.get(STEP, 0.0) * trust_factor(cand, trust_prior))
    return sorted(candidates, key=lambda c: -c.scores[FINAL])


def group_weights(settings: RetrievalSettings) -> dict[SourceKind, float]:
    """The per-group weights of the retrieval settings."""
    return {
        SourceKind.RESEARCH: settings.weight_research,
        SourceKind.KNOWLEDGE: settings.weight_knowledge,
        SourceKind.EVERGREEN: settings.weight_evergreen,
        SourceKind.PERSONA: settings.weight_persona,
    }
