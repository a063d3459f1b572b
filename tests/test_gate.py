"""The suitability gate's rules at their boundaries."""

import pytest

from nonseq.config import GateSettings
from nonseq.models import Candidate, Chunk, ContextPack, DropReason, SourceKind, Topic
from nonseq.pipeline.gate import evaluate

TOPIC = Topic(title="T", slug="t", category="ai")


def _pack(scores: list[float], domains: int = 3, offline: bool = False,
          group: SourceKind = SourceKind.RESEARCH, extra_unranked: int = 0,
          reranker: str = "cross-encoder:BAAI/bge-reranker-v2-m3") -> ContextPack:
    cands = []
    for i, s in enumerate(scores):
        chunk = Chunk(text=f"c{i}", topic_slug="t", category="ai", url=f"https://d{i % domains}.org/{i}",
                      domain=f"d{i % domains}.org", position=i)
        cand = Candidate(chunk=chunk, group=group)
        cand.record("bm25", 1.0)
        cand.record("rerank", s)
        cands.append(cand)
    for i in range(extra_unranked):  # dropped by dedup before the reranker
        chunk = Chunk(text="dup", topic_slug="t", category="ai", url=f"https://x.org/{i}", domain="x.org")
        cand = Candidate(chunk=chunk, group=SourceKind.RESEARCH)
        cand.discard(DropReason.DUPLICATE, "duplicate")
        cand.record("bm25", 1.0)
        cands.append(cand)
    return ContextPack(topic=TOPIC, query="T", pool=cands, reranker=reranker,
                       reranker_offline=offline)


@pytest.mark.parametrize(("n", "ok"), [(4, False), (5, True)])
def test_hard_chunk_rule_boundary(n: int, ok: bool) -> None:
    verdict = evaluate(_pack([0.9] * n), GateSettings())
    assert verdict.ok is ok
    assert verdict.can_continue is ok
    assert verdict.chunks == n
    if not ok:
        assert "only 4 research chunk(s), need 5" in verdict.reasons


@pytest.mark.parametrize(("score", "ok"), [(0.2499, False), (0.25, True)])
def test_quality_rule_boundary(score: float, ok: bool) -> None:
    verdict = evaluate(_pack([score] * 6), GateSettings())
    assert verdict.ok is ok
    assert verdict.can_continue is True
    assert verdict.mean_score == pytest.approx(score, abs=1e-4)


def test_quality_uses_the_top_k_only() -> None:
    scores = [0.9] * 10 + [0.0] * 30
    verdict = evaluate(_pack(scores), GateSettings(score_top_k=10))
    assert verdict.ok and verdict.mean_score == pytest.approx(0.9)


def test_quality_is_skipped_only_without_scores() -> None:
    """[rerank] backend = none gives no scores: the check is skipped and says so."""
    pack = _pack([0.01] * 6, offline=True, reranker="none")
    for cand in pack.pool:
        cand.scores.pop("rerank")
    verdict = evaluate(pack, GateSettings())
    assert verdict.ok
    assert verdict.mean_score is None
    assert any("skipped" in r and "backend = none" in r for r in verdict.reasons)
    quality = next(c for c in verdict.checks if c.name == "quality")
    assert quality.skipped and quality.backend == "none"


BI = "bi-encoder:sentence-transformers/all-MiniLM-L6-v2"


@pytest.mark.parametrize(("reranker", "offline", "threshold"), [
    ("cross-encoder:BAAI/bge-reranker-v2-m3", False, 0.25),
    ("fastembed:BAAI/bge-reranker-base", False, 0.25),
    (BI, True, 0.30),  # the offline fallback: its scores still count
    (BI, False, 0.30),
])
def test_quality_runs_with_every_scoring_backend_at_its_threshold(
        reranker: str, offline: bool, threshold: float) -> None:
    """Each backend is judged against its own threshold; an offline fallback is not skipped."""
    settings = GateSettings(min_mean_score=0.25, min_mean_score_bi_encoder=0.30)
    below = evaluate(_pack([threshold - 0.0001] * 6, offline=offline, reranker=reranker), settings)
    at = evaluate(_pack([threshold] * 6, offline=offline, reranker=reranker), settings)
    assert not below.ok and below.can_continue and at.ok
    quality = next(c for c in below.checks if c.name == "quality")
    assert not quality.skipped and not quality.passed
    assert quality.backend == reranker.split(":")[0] and quality.threshold == threshold
    assert below.mean_score == pytest.approx(threshold - 0.0001, abs=1e-4)


def test_off_topic_research_is_said_so() -> None:
    """The reason names off-topic research with the mean, the k and the threshold."""
    verdict = evaluate(_pack([0.14] * 12, reranker=BI), GateSettings(min_mean_score_bi_encoder=0.3))
    assert verdict.status == "THIN" and verdict.can_continue
    assert "research is off-topic: mean relevance 0.14 of the top 10, need 0.30" in verdict.reasons
    data = verdict.to_dict()
    (quality,) = [c for c in data["checks"] if c["name"] == "quality"]
    assert quality["backend"] == "bi-encoder" and quality["threshold"] == 0.30
    assert quality["skipped"] is False


@pytest.mark.parametrize(("domains", "ok"), [(1, False), (2, True)])
def test_diversity_rule_is_soft(domains: int, ok: bool) -> None:
    verdict = evaluate(_pack([0.9] * 6, domains=domains), GateSettings())
    assert verdict.ok is ok
    assert verdict.can_continue is True
    assert verdict.domains == domains


def test_only_research_candidates_that_reached_the_reranker_count() -> None:
    pack = _pack([0.9] * 4, extra_unranked=10)
    knowledge = _pack([0.9] * 10, group=SourceKind.KNOWLEDGE).pool
    pack.pool.extend(knowledge)
    verdict = evaluate(pack, GateSettings())
    assert verdict.chunks == 4 and not verdict.can_continue


def test_empty_research_is_thin_and_final() -> None:
    verdict = evaluate(_pack([]), GateSettings())
    assert verdict.status == "THIN" and not verdict.can_continue
    assert verdict.to_dict()["status"] == "THIN"


def test_each_local_file_counts_as_its_own_source() -> None:
    """Domains do not apply to local files: two files are two sources, one file's chunks are one."""
    pack = _pack([0.9] * 6, domains=1)
    for i, cand in enumerate(pack.pool):
        cand.chunk.domain, cand.chunk.url = "local", f"file:///home/me/docs/report-{i % 2}.pdf"
    assert evaluate(pack, GateSettings()).domains == 2
    for cand in pack.pool:
        cand.chunk.url = "file:///home/me/docs/report.pdf"
    verdict = evaluate(pack, GateSettings())
    assert verdict.domains == 1 and not verdict.ok
