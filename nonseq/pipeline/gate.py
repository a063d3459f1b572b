"""The suitability gate: refuse to write from thin research, and say exactly why."""

from __future__ import annotations

from statistics import fmean
from typing import TYPE_CHECKING, Any

from nonseq.config import GateSettings
from nonseq.errors import StageError
from nonseq.models import Candidate, ContextPack, DropReason, GateCheck, GateVerdict, SourceKind, Stage, Topic

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

#: The step name under which the reranker records its [0,1] score on a candidate.
RERANK_STEP = "rerank"
#: Stages the gate can judge.
GATEABLE = (Stage.RESEARCHED, Stage.GATED, Stage.THIN)


def gate_candidates(pack: ContextPack) -> list[Candidate]:
    """Research candidates that survived dedup and reached the reranker (not only the selection).

    A topic whose research was wiped after promotion is judged on its own promoted facts instead
    (knowledge points carrying its slug): they are what its research became.
    """
    pool = pack.pool or pack.research
    alive = [c for c in pool if c.drop is not DropReason.DUPLICATE]
    research = [c for c in alive if c.group is SourceKind.RESEARCH]
    if research:
        return research
    return [c for c in alive if c.group is SourceKind.KNOWLEDGE and c.chunk.topic_slug == pack.topic.slug]


def check_chunks(cands: list[Candidate], settings: GateSettings) -> GateCheck:
    """Hard rule: enough research chunks."""
    n = len(cands)
    ok = n >= settings.min_chunks
    return GateCheck("chunks", ok, n, settings.min_chunks, hard=True,
                     reason="" if ok else f"only {n} research chunk(s), need {settings.min_chunks}")


def reranker_backend(pack: ContextPack) -> str:
    """The backend that scored the pack: cross-encoder, fastembed, bi-encoder or none."""
    name = pack.reranker or ""
    return name.split(":", 1)[0] if name else "cross-encoder"


def quality_threshold(backend: str, settings: GateSettings) -> float | None:
    """The mean relevance the quality check needs with this backend (None: no scores, no check)."""
    if backend == "none":
        return None
    if backend == "bi-encoder":
        return settings.min_mean_score_bi_encoder
    return settings.min_mean_score


def quality_setup(pack: ContextPack, settings: GateSettings) -> dict[str, Any]:
    """The backend the quality check will judge with and its threshold (None: skipped)."""
    backend = reranker_backend(pack)
    return {"backend": backend, "threshold": quality_threshold(backend, settings)}


def check_quality(cands: list[Candidate], settings: GateSettings, backend: str) -> GateCheck:
    """Quality rule: mean rerank score of the top candidates, against the backend's threshold."""
    threshold = quality_threshold(backend, settings)
    if threshold is None or (cands and not any(RERANK_STEP in c.scores for c in cands)):
        return GateCheck("quality", True, 0.0, settings.min_mean_score, skipped=True,
                         backend=backend, reason="quality check skipped: the reranker gave no "
                         "relevance scores ([rerank] backend = none)")
    top = sorted((c.scores.get(RERANK_STEP, 0.0) for c in cands), reverse=True)[: settings.score_top_k]
    mean = fmean(top) if top else 0.0
    ok = bool(top) and mean >= threshold
    reason = "" if ok else (f"research is off-topic: mean relevance {mean:.2f} of the top "
                            f"{len(top)}, need {threshold:.2f}" if top else
                            "no research chunks to score")
    return GateCheck("quality", ok, round(mean, 4), threshold, backend=backend, reason=reason)


def check_diversity(cands: list[Candidate], settings: GateSettings) -> GateCheck:
    """Soft rule: research from enough distinct domains (each of the user's local files counts as one)."""
    domains = {c.chunk.source_key for c in cands}
    n = len(domains)
    ok = n >= settings.min_domains
    return GateCheck("domains", ok, n, settings.min_domains,
                     reason="" if ok else f"only {n} distinct domain(s), need {settings.min_domains}")


def evaluate(pack: ContextPack, settings: GateSettings) -> GateVerdict:
    """OK when every rule passes; THIN otherwise (continuable unless the hard rule failed)."""
    cands = gate_candidates(pack)
    checks = [
        check_chunks(cands, settings),
        check_quality(cands, settings, reranker_backend(pack)),
        check_diversity(cands, settings),
    ]
    ok = all(c.passed for c in checks)
    hard_failed = any(c.hard and not c.passed for c in checks)
    quality = checks[1]
    return GateVerdict(
        ok=ok,
        can_continue=not hard_failed,
        checks=checks,
        chunks=len(cands),
        mean_score=None if quality.skipped else quality.value,
        domains=int(checks[2].value),
    )


def run_gate(ws: Workspace, ref: int | str) -> tuple[Topic, ContextPack, GateVerdict]:
    """Retrieve a researched topic's context, judge it, and record the verdict in its history."""
    from nonseq import queue
    from nonseq.retrieval.pipeline import retrieve

    topic = queue.get_topic(ws.db, ref)
    if topic.stage not in GATEABLE:
        raise StageError(f"topic {topic.slug!r} is {topic.stage}: the gate needs researched topics "
                         f"(run `nonseq research {topic.id}` first)")
    pack = retrieve(ws, topic)
    verdict = evaluate(pack, ws.settings.gate)
    data = verdict.to_dict()
    reason = f"gate {verdict.status}" + (f": {'; '.join(verdict.reasons)}" if verdict.reasons else "")
    if topic.stage is Stage.RESEARCHED or (topic.stage is Stage.THIN and verdict.ok):
        topic = queue.move(ws.db, topic.id, Stage.GATED, reason=reason, data=data)
    else:
        queue.note(ws.db, topic.id, reason, data)
    if not verdict.ok and topic.stage is Stage.GATED:
        topic = queue.move(ws.db, topic.id, Stage.THIN, reason="; ".join(verdict.reasons))
    return topic, pack, verdict
