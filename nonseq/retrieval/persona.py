"""Persona voice: ranked by cosine(trigger_dense, focus vector), weighted, never reranked."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nonseq.index.vector_store import TRIGGER, persona_collection
from nonseq.models import Candidate, DropReason, SourceKind, Topic
from nonseq.retrieval.dedup import unit
from nonseq.retrieval.select import FINAL

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

STEP = "trigger"


def persona_voice(ws: Workspace, topic: Topic, focus_vec: Any | None = None) -> list[Candidate]:
    """The persona chunks whose triggers best match the topic's focus (none without a persona)."""
    s = ws.settings.retrieval
    if not topic.persona or s.persona_top == 0:
        return []
    name = persona_collection(topic.persona)
    total = ws.store.count(name)
    if total == 0:
        return []
    if focus_vec is None:
        focus_vec = ws.embedder.embed_query(topic.focus or topic.title)
    if total <= s.scroll_limit:
        points = ws.store.scroll_all(name, vectors=[TRIGGER])
    else:
        points = ws.store.search(name, list(unit(focus_vec)), using=TRIGGER,
                                 limit=s.persona_top, vectors=True)
    return rank_voice(
        [Candidate(chunk=p.chunk, group=SourceKind.PERSONA, point_id=p.id,
                   vector=p.vectors.get(TRIGGER)) for p in points],
        focus_vec, top=s.persona_top, weight=s.weight_persona)


def rank_voice(cands: list[Candidate], focus_vec: Any, *, top: int,
               weight: float) -> list[Candidate]:
    """Record `trigger` (cosine) and `final` (weight x cosine); the best `top`, best first."""
    q = unit(focus_vec)
    for cand in cands:
        cos = float(unit(cand.vector) @ q) if cand.vector is not None else 0.0
        cand.record(STEP, cos)
        cand.record(FINAL, weight * cos)
    ordered = sorted(cands, key=lambda c: -c.scores[FINAL])
    for rank, cand in enumerate(ordered[top:], start=top + 1):
        cand.discard(DropReason.RANK_CUT, f"below persona_top {top} (rank {rank})")
    return ordered[:top]
