"""Unit tests of the retrieval steps: BM25, dedup, trust, fusion, normalisation, selection."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nonseq.models import Candidate, Chunk, DropReason, SourceKind
from nonseq.retrieval.dedup import dedup
from nonseq.retrieval.fusion import fuse, fuse_scores, ranks, rrf
from nonseq.retrieval.normalize import finalize, minmax, normalize
from nonseq.retrieval.persona import rank_voice
from nonseq.retrieval.prerank import BM25Index, passage_text, prerank_bm25
from nonseq.retrieval.select import mark_rest, select
from nonseq.retrieval.trust import apply_trust


def cand(text: str = "x", *, url: str = "https://a.org/1", group: SourceKind = SourceKind.RESEARCH,
         boost: float = 0.0, vector: list[float] | None = None, pos: int = 0,
         **scores: float) -> Candidate:
    """A candidate with a chunk, optional vector and recorded scores."""
    c = Candidate(chunk=Chunk(text=text, topic_slug="t", category="science", url=url,
                              domain=url.split("/")[2] if "//" in url else "", position=pos,
                              trust_boost=boost), group=group, vector=vector, point_id=text)
    for step, value in scores.items():
        c.record(step, value)
    return c


# -- BM25 -----------------------------------------------------------------------------------------
def test_bm25_idf_rare_terms_weigh_more() -> None:
    """A match on a rare term outscores a match on a term most documents share."""
    docs = [["common", "rare"], ["common", "x"], ["common", "y"], ["common", "z"]]
    index = BM25Index(docs)
    assert index.idf["rare"] > index.idf["common"] > 0
    assert index.scores(["rare"])[0] > index.scores(["common"])[1]
    n, df = 4, 1
    assert index.idf["rare"] == pytest.approx(math.log(1 + (n - df + 0.5) / (df + 0.5)))


def test_bm25_k1_saturates_term_frequency() -> None:
    """More occurrences score more, with diminishing returns; k1 sets how fast it saturates."""
    docs = [["t"] + ["f"] * 9, ["t"] * 2 + ["f"] * 8, ["t"] * 8 + ["f"] * 2, ["g"] * 10]
    low = BM25Index(docs, k1=0.5, b=0.75).scores(["t"])
    high = BM25Index(docs, k1=3.0, b=0.75).scores(["t"])
    assert low[0] < low[1] < low[2] and high[0] < high[1] < high[2]
    assert (low[2] / low[0]) < (high[2] / high[0])  # small k1: saturates sooner
    assert (low[1] - low[0]) > (low[2] - low[1]) / 6  # diminishing gains per occurrence


def test_bm25_b_normalises_length() -> None:
    """With b=1 a long document with the same tf scores lower; with b=0 length does not matter."""
    docs = [["t", "a"], ["t"] + ["a"] * 30, ["b", "c"]]
    full = BM25Index(docs, b=1.0).scores(["t"])
    none = BM25Index(docs, b=0.0).scores(["t"])
    assert full[0] > full[1]
    assert none[0] == pytest.approx(none[1])


def test_bm25_matches_bm25s_lucene() -> None:
    """Same tokens, k1, b: bm25s's Lucene scores (which drop the constant (k1 + 1) factor)."""
    import bm25s

    docs = [["solar", "panel", "cost"], ["wind", "power", "cost", "cost"],
            ["solar", "storage", "battery", "grid", "grid"], ["grid", "power"]]
    ours = BM25Index(docs, k1=1.2, b=0.75).scores(["solar", "grid", "cost"])
    lib = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    lib.index(docs, show_progress=False)
    theirs = lib.get_scores(["solar", "grid", "cost"])
    np.testing.assert_allclose(ours, theirs * (1.2 + 1), rtol=1e-5)


def test_prerank_scores_every_candidate_and_sorts() -> None:
    """Every candidate gets a bm25 score; the order is best first; titles count."""
    cands = [cand("nothing here"), cand("the needle is here"), cand("hay hay")]
    cands[2].chunk.title = "needle"
    out = prerank_bm25(cands, ["needl"], tokenize=lambda t: [w.rstrip("e") for w in t.split()])
    assert len(out) == 3 and all("bm25" in c.scores for c in out)
    assert out[0].scores["bm25"] >= out[1].scores["bm25"] > out[2].scores["bm25"] == 0
    assert passage_text(cands[2].chunk).startswith("needle\n")


# -- dedup ----------------------------------------------------------------------------------------
def test_dedup_keeps_the_better_scored_chunk() -> None:
    """Of two near-identical chunks the better scored stays, whatever the input order."""
    worse = cand("copy", vector=[1.0, 0.01, 0.0], trust=1.0)
    better = cand("orig", vector=[10.0, 0.0, 0.0], trust=5.0)  # raw, unnormalised vector
    other = cand("other", vector=[0.0, 1.0, 0.0], trust=0.5)
    kept = dedup([worse, other, better], 0.92, key="trust")
    assert [c.chunk.text for c in kept] == ["orig", "other"]
    assert worse.dropped.startswith("duplicate of") and worse.scores["dedup"] > 0.99
    assert not better.dropped


def test_dedup_threshold_and_limit() -> None:
    """Below the threshold both stay; the walk stops once `limit` are kept."""
    a = cand("a", vector=[1.0, 0.0], trust=3.0)
    b = cand("b", vector=[0.9, 0.5], trust=2.0)  # cosine ~0.87
    c = cand("c", vector=[0.0, 1.0], trust=1.0)
    assert len(dedup([a, b, c], 0.92, key="trust")) == 3
    assert b.scores["dedup"] == pytest.approx(0.9 / math.hypot(0.9, 0.5), abs=1e-6)
    assert not b.dropped  # 0.87 < 0.92: kept
    for x in (a, b, c):
        x.scores.pop("dedup")
    assert [x.chunk.text for x in dedup([a, b, c], 0.92, key="trust", limit=2)] == ["a", "b"]
    assert "dedup" not in c.scores  # the walk stopped before c: it was never compared
    assert [x.chunk.text for x in dedup([a, b, c], 0.86, key="trust")] == ["a", "c"]
    assert b.dropped.startswith("duplicate of") and "0.874" in b.dropped


# -- trust ----------------------------------------------------------------------------------------
def test_trust_boost_reorders_the_pool_cut() -> None:
    """score x (1 + boost): a trusted page overtakes better BM25 hits and enters the cut."""
    a = cand("a", url="https://unknown.com/a", bm25=10.0)
    b = cand("b", url="https://unknown.com/b", bm25=9.0)
    t = cand("t", url="https://nature.com/t", boost=0.5, bm25=8.0)
    ranked = apply_trust([a, b, t], key="bm25")
    assert [c.chunk.text for c in ranked] == ["t", "a", "b"]
    assert t.scores["trust"] == pytest.approx(12.0) and a.scores["trust"] == 10.0
    kept = ranked[:2]
    gone = mark_rest(ranked, kept, DropReason.PRERANK_CUT, "below the pre-rank cut")
    assert gone == [b] and b.dropped == "below the pre-rank cut" and b.drop is DropReason.PRERANK_CUT


# -- fusion ---------------------------------------------------------------------------------------
def test_rrf_and_ranks() -> None:
    """RRF adds 1/(k + rank); rank 0 means absent from that list."""
    assert list(ranks([0.1, 0.9, 0.5])) == [3, 1, 2]
    fused = rrf([[1, 2, 0], [2, 1, 1]], k=60)
    assert fused[2] == pytest.approx(1 / 61)
    assert fused[0] == pytest.approx(fused[1])


def test_weak_reranker_does_not_erase_the_prerank_order() -> None:
    """Fusion keeps the pre-rank's worst hit last, where a flat reranker alone lifts it."""
    prior = [10.0, 9.5, 1.0]
    weak = [0.40, 0.42, 0.41]
    assert list(np.argsort(-fuse_scores(prior, weak, "none"))) == [1, 2, 0]
    assert list(np.argsort(-fuse_scores(prior, weak, "weighted", 0.5)))[-1] == 2
    assert list(np.argsort(-fuse_scores(prior, weak, "rrf", k=60)))[-1] == 2
    assert list(np.argsort(-fuse_scores(prior, weak, "weighted", 0.0))) == [0, 1, 2]


def test_fuse_is_per_group_and_keeps_prior_without_rerank() -> None:
    """Each group is fused on its own; without rerank scores the pre-rank order stands."""
    r = [cand("r1", trust=2.0, rerank=0.1), cand("r2", trust=1.0, rerank=0.9)]
    k = [cand("k1", group=SourceKind.KNOWLEDGE, trust=0.03)]
    fuse([*r, *k], prior="trust", method="none")
    assert r[1].scores["fused"] > r[0].scores["fused"]
    assert [c.scores["fused"] for c in r] == [0.1, 0.9]  # method none: the rerank score itself
    assert k[0].scores["fused"] == 0.03  # a group without rerank scores keeps its prior
    plain = [cand("p", trust=3.0), cand("q", trust=5.0), cand("s", trust=4.0)]
    out = fuse(plain, prior="trust", method="weighted", weight=0.9)
    assert [c.chunk.text for c in out] == ["q", "s", "p"]
    assert [c.scores["fused"] for c in plain] == [3.0, 5.0, 4.0]
    mixed = [cand("m1", trust=1.0, rerank=1.0), cand("m2", trust=2.0, rerank=0.0),
             cand("k2", group=SourceKind.KNOWLEDGE, trust=9.0, rerank=0.5),
             cand("k3", group=SourceKind.KNOWLEDGE, trust=1.0, rerank=0.4)]
    fuse(mixed, prior="trust", method="weighted", weight=0.6)
    assert [c.scores["fused"] for c in mixed] == pytest.approx([0.6, 0.4, 1.0, 0.0])


# -- normalisation --------------------------------------------------------------------------------
def test_minmax_group_of_one_and_ties() -> None:
    """A group of one scores 1, equal values score 1, otherwise [0,1]."""
    assert minmax([0.42]) == [1.0]
    assert minmax([0.3, 0.3]) == [1.0, 1.0]
    assert minmax([1.0, 3.0, 2.0]) == [0.0, 1.0, 0.5]


def test_normalize_per_group_then_weight() -> None:
    """Each group is scaled on its own, then weighted: small groups cannot dominate raw."""
    research = [cand("r1", fused=0.08), cand("r2", fused=0.01)]
    knowledge = [cand("k1", group=SourceKind.KNOWLEDGE, fused=0.99)]
    ever = [cand("e1", group=SourceKind.EVERGREEN, fused=0.97),
            cand("e2", group=SourceKind.EVERGREEN, fused=0.93)]
    pool = [*research, *knowledge, *ever]
    normalize(pool, key="fused")
    weights = {SourceKind.RESEARCH: 1.0, SourceKind.KNOWLEDGE: 0.85, SourceKind.EVERGREEN: 0.7}
    out = finalize(pool, weights)
    assert knowledge[0].scores["normalized"] == 1.0  # group of one
    assert [c.chunk.text for c in out][:3] == ["r1", "k1", "e1"]
    assert out[0].scores["final"] == 1.0 and knowledge[0].scores["final"] == pytest.approx(0.85)
    normalize(pool, key="fused", enabled=False)
    out = finalize(pool, weights)
    assert out[0].chunk.text == "k1"  # raw scores: the small collection wins


def test_final_score_carries_the_trust_prior() -> None:
    """final = weight x normalized x (1 + trust_prior x boost)."""
    a = cand("a", boost=0.9, normalized=0.5)
    b = cand("b", normalized=0.5)
    finalize([a, b], {SourceKind.RESEARCH: 1.0}, trust_prior=0.2)
    assert a.scores["final"] == pytest.approx(0.5 * 1.18)
    assert b.scores["final"] == pytest.approx(0.5)


# -- selection ------------------------------------------------------------------------------------
def test_select_caps_chunks_per_url() -> None:
    """At most K chunks from one URL; the next best from elsewhere fill the slots."""
    same = [cand(f"s{i}", url="https://one.org/p", pos=i, final=1.0 - i / 10) for i in range(5)]
    other = [cand("o1", url="https://two.org/p", final=0.1)]
    chosen = select([*same, *other], top=4, per_url_max=3)
    assert [c.chunk.text for c in chosen] == ["s0", "s1", "s2", "o1"]
    assert same[3].dropped.startswith("per-URL cap") and same[4].dropped.startswith("per-URL")


def test_select_top_n_marks_the_rest() -> None:
    """Past the top N the reason says so."""
    cands = [cand(f"c{i}", url=f"https://x.org/{i}", final=float(-i)) for i in range(4)]
    assert len(select(cands, top=2, per_url_max=3)) == 2
    assert cands[3].dropped == "below final_top 2 (rank 4)"


def test_rank_voice_by_trigger_cosine() -> None:
    """Persona chunks: cosine(trigger, focus) x weight, best first, cut to top."""
    v = [cand("near", vector=[1.0, 0.1]), cand("far", vector=[0.0, 1.0]),
         cand("mid", vector=[1.0, 1.0])]
    out = rank_voice(v, [2.0, 0.0], top=2, weight=0.6)
    assert [c.chunk.text for c in out] == ["near", "mid"]
    assert out[0].scores["final"] == pytest.approx(0.6 * out[0].scores["trigger"])
    assert v[1].dropped.startswith("below persona_top")
