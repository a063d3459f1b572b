"""The suitability gate's rules at their boundaries."""

import pytest

from nonseq.config import GateSettings
from nonseq.gate import evaluate
from nonseq.models import Candidate, Chunk, ContextPack, SourceKind, Topic

TOPIC = Topic(title="T", slug="t", category="ai")


def _pack(scores: list[float], domains: int = 3, offline: bool = False,
          group: SourceKind = SourceKind.RESEARCH, extra_unranked: int = 0) -> ContextPack:
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
        cand = Candidate(chunk=chunk, group=SourceKind.RESEARCH, dropped="duplicate")
        cand.record("bm25", 1.0)
        cands.append(cand)
    return ContextPack(topic=TOPIC, query="T", pool=cands, reranker_offline=offline)


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


def test_quality_is_skipped_and_said_when_reranker_offline() -> None:
    verdict = evaluate(_pack([0.01] * 6, offline=True), GateSettings())
    assert verdict.ok
    assert verdict.mean_score is None
    assert any("skipped" in r for r in verdict.reasons)
    quality = next(c for c in verdict.checks if c.name == "quality")
    assert quality.skipped


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
