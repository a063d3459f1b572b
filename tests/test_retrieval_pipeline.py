"""The retrieval chain end to end on a real embedded Qdrant with the bundled models."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nonseq.index.vector_store import EVERGREEN, knowledge_collection, persona_collection, research_collection
from nonseq.models import Chunk, SourceKind, Topic
from nonseq.retrieval.pipeline import research_pool, retrieve
from nonseq.retrieval.sources import research_candidates
from nonseq.workspace import Workspace

TOPIC = Topic(title="Surface codes for quantum error correction", slug="qec", category="science",
              focus="why logical qubits need many physical qubits",
              sub_queries=["below threshold error rates"], persona="ada", id=1)


def chunk(text: str, url: str, pos: int = 0, *, kind: SourceKind = SourceKind.RESEARCH,
          slug: str = "qec", category: str = "science", boost: float = 0.0) -> Chunk:
    """A chunk with provenance."""
    domain = url.split("/")[2] if "//" in url else ""
    return Chunk(text=text, topic_slug=slug, category=category, url=url, domain=domain,
                 title=f"Page {domain}", position=pos, trust_boost=boost, source_kind=kind)


def count_calls(monkeypatch: pytest.MonkeyPatch, obj: object, name: str) -> list[int]:
    """Wrap obj.name to count its calls."""
    calls: list[int] = []
    real = getattr(obj, name)

    def wrapper(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(obj, name, wrapper)
    return calls


def test_prerank_covers_every_chunk_of_a_big_collection(ws: Workspace,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """300 chunks, top 100: ONE scroll, every chunk scored, the needle is first."""
    rng = np.random.default_rng(0)
    texts = [f"filler paragraph number {i} about gardening, tomatoes and soil" for i in range(299)]
    texts.insert(217, "The surface code threshold sits near one percent physical error rate.")
    chunks = [chunk(t, f"https://site{i % 40}.org/p", i) for i, t in enumerate(texts)]
    name = research_collection("science")
    ws.store.ensure(name, ws.embedder.dim, ws.embedder.name)
    ws.store.upsert(name, chunks, rng.normal(size=(300, ws.embedder.dim)),
                    ws.sparse.encode(texts))
    scrolls = count_calls(monkeypatch, ws.store, "iter_points")
    cands = research_candidates(ws, TOPIC)
    assert len(scrolls) == 1 and len(cands) == 300
    assert all(c.vector is not None and len(c.vector) == ws.embedder.dim for c in cands)
    pool, discarded = research_pool(ws, cands, ws.sparse.tokenize(TOPIC.query), {})
    assert len(pool) == 100 and len(discarded) == 200
    assert all("bm25" in c.scores for c in cands)  # 100% coverage, no approximate search
    assert pool[0].chunk.position == 217
    assert all(c.dropped.startswith("below the pre-rank cut") for c in discarded)


@pytest.fixture
def filled(ws: Workspace) -> Workspace:
    """Research (with a duplicate and a trusted page), knowledge, evergreen and a persona."""
    research = [
        chunk("Surface codes arrange physical qubits on a grid and measure stabilizers.",
              "https://a.org/1", 0),
        chunk("Surface codes arrange physical qubits on a grid and measure stabilizers!",
              "https://copy.net/1", 0),
        chunk("A logical qubit needs many physical qubits because errors must be outvoted.",
              "https://a.org/1", 1),
        chunk("Below threshold, adding qubits to the code lowers the logical error rate.",
              "https://a.org/1", 2),
        chunk("Quantum error correction experiments reached below-threshold error rates.",
              "https://nature.com/x", 0, boost=0.9),
        chunk("Recipes for sourdough bread need flour, water and patience.", "https://b.org/2", 0),
        chunk("The surface code tolerates about one percent error per physical qubit.",
              "https://c.org/3", 0),
    ]
    ws.indexer.index(research_collection("science"), research)
    know = [chunk("Google's Willow chip showed surface code memory below threshold in 2024.",
                  "https://k.org/1", 1, kind=SourceKind.KNOWLEDGE),
            chunk("Bananas ripen faster in a paper bag.", "https://k.org/2", 2,
                  kind=SourceKind.KNOWLEDGE, slug="fruit")]
    ws.indexer.index(knowledge_collection("science"), know)
    ever = [chunk("A qubit is the quantum analogue of a classical bit.", "", 1,
                  kind=SourceKind.EVERGREEN, slug=""),
            chunk("Error correcting codes add redundancy to detect and fix errors.", "", 2,
                  kind=SourceKind.EVERGREEN, slug=""),
            chunk("Interest rates are set by central banks.", "", 3, kind=SourceKind.EVERGREEN,
                  slug="", category="finance")]
    ws.indexer.index(EVERGREEN, ever)
    voice = [chunk(t, "", i, kind=SourceKind.PERSONA, slug="", category="")
             for i, t in enumerate(["I explain with kitchen analogies.", "I never use jargon.",
                                    "I close with a question."])]
    ws.indexer.index(persona_collection("ada"), voice,
                 triggers=["cooking food", "physical qubits and logical qubits", "endings"])
    ws.settings.retrieval.per_url_max = 2
    return ws


def test_retrieve_builds_the_pack(filled: Workspace, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Every group, every step recorded, dedup, per-URL cap, persona apart, offline marked."""
    ws = filled
    seen: list[str] = []
    real_score = ws.reranker.score

    def spy(query: str, passages: list[str], vectors: object = None) -> np.ndarray:
        seen.extend(passages)
        return real_score(query, passages, vectors)

    monkeypatch.setattr(ws.reranker, "score", spy)
    pack = retrieve(ws, TOPIC)
    assert pack.reranker_offline and pack.reranker.startswith("bi-encoder")
    assert any("offline" in n for n in pack.notes)
    assert capsys.readouterr().err.count("warning:") == 1
    assert [c.chunk.domain for c in pack.discarded] == ["copy.net"]
    assert "duplicate of" in pack.discarded[0].dropped
    urls = [c.chunk.url for c in pack.research]
    assert urls.count("https://a.org/1") <= 2
    assert any(c.dropped.startswith("per-URL cap") for c in pack.pool)
    groups = {c.group for c in pack.pool}
    assert groups == {SourceKind.RESEARCH, SourceKind.KNOWLEDGE, SourceKind.EVERGREEN}
    assert all(c.chunk.category == "science" for c in pack.evergreen)
    for c in pack.pool:
        assert {"trust", "dedup", "rerank", "fused", "normalized", "final"} <= set(c.scores)
        assert ("bm25" if c.group == SourceKind.RESEARCH else "hybrid") in c.scores
        assert 0.0 <= c.scores["rerank"] <= 1.0
    finals = [c.scores["final"] for c in pack.research]
    assert finals == sorted(finals, reverse=True)
    weights = {SourceKind.RESEARCH: 1.0, SourceKind.KNOWLEDGE: 0.85, SourceKind.EVERGREEN: 0.7}
    for c in pack.pool:  # final = weight x normalized x (1 + trust_prior x boost)
        assert c.scores["final"] == pytest.approx(
            weights[c.group] * c.scores["normalized"] * (1 + 0.1 * c.chunk.trust_boost))
    assert all(c.group == SourceKind.PERSONA for c in pack.voice)
    assert pack.voice[0].chunk.text == "I never use jargon."
    assert not any("jargon" in p or "kitchen" in p for p in seen)  # never reranked
    assert len(seen) == len(pack.pool)
    json.dumps(pack.to_dict())


def test_knowledge_comes_from_the_engine_never_a_full_scroll(ws: Workspace,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Knowledge: the topic's own facts by a topic filter, the rest by the engine's hybrid query; the
    collection is never read whole, whatever its size."""
    ws.settings.retrieval.knowledge_top = 5
    facts = [chunk(f"fact {i} about crops and harvests", f"https://k.org/{i}", i,
                   kind=SourceKind.KNOWLEDGE, slug="farming") for i in range(103)]
    facts += [chunk("Surface codes need a grid of physical qubits.", "https://k.org/q", 0,
                    kind=SourceKind.KNOWLEDGE),
              chunk("Bananas are berries.", "https://k.org/b", 1, kind=SourceKind.KNOWLEDGE)]
    ws.indexer.index(knowledge_collection("science"), facts)
    ws.indexer.index(research_collection("science"),
                     [chunk("Surface code basics for logical qubits.", "https://a.org/1")])
    reads: list[tuple[str, object]] = []
    real = ws.store.iter_points

    def spy(name: str, match: object = None, *args: object, **kwargs: object) -> object:
        reads.append((name, match))
        return real(name, match, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ws.store, "iter_points", spy)
    hybrids = count_calls(monkeypatch, ws.store, "hybrid")
    pack = retrieve(ws, TOPIC)
    assert len(hybrids) == 2  # knowledge and evergreen
    assert all(isinstance(m, dict) and m.get("topic_slug") for n, m in reads if n.startswith("knowledge_"))
    know = [c for c in pack.pool + pack.discarded if c.group == SourceKind.KNOWLEDGE]
    own = {c.chunk.text for c in know if c.chunk.topic_slug == "qec"}
    assert own == {"Surface codes need a grid of physical qubits.", "Bananas are berries."}  # every own fact
    assert len(know) <= 5 + 2
    assert any("qdrant RRF" in " ".join(c.notes) for c in know)


def test_topic_without_research_gives_an_empty_pack(ws: Workspace) -> None:
    """No research: nothing to select, and a note says so."""
    pack = retrieve(ws, Topic(title="Nothing yet", slug="nothing", category="science"))
    assert pack.research == [] and pack.pool == []
    assert any("no research" in n for n in pack.notes)
