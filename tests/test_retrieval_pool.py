"""The rerank pool's size, retrieval once per state (the pack cache), and prose-only facts."""

from __future__ import annotations

import numpy as np
import pytest

from nonseq.index.vector_store import EVERGREEN, knowledge_collection, research_collection
from nonseq.models import Chunk, SourceKind, Topic
from nonseq.retrieval.pipeline import PackCache, invalidate, pack_cache, retrieve
from nonseq.workspace import Workspace

TOPIC = Topic(title="Tidal power in estuaries", slug="tidal", category="climate",
              focus="what tidal lagoons cost", id=1)
PROSE = ("Tidal lagoons hold water behind a wall and release it through turbines as the tide "
         "turns, which makes their output predictable years ahead.")
LINKS = ("Related articles\n- Tidal Power Plans Shelved In Wales\n- Five Facts About Estuaries\n"
         "- Turbines: The Complete Guide\nShare on Facebook\nShare on Twitter\n"
         "Subscribe to our newsletter")


def chunk(text: str, url: str, pos: int = 0, kind: SourceKind = SourceKind.RESEARCH,
          slug: str = "tidal") -> Chunk:
    """A chunk with provenance."""
    return Chunk(text=text, topic_slug=slug, category="climate", url=url,
                 domain=url.split("/")[2], title="Tidal page", position=pos, source_kind=kind)


def put(ws: Workspace, name: str, chunks: list[Chunk], seed: int = 0) -> None:
    """Write chunks with random (distinct) dense vectors: fast, and never near-duplicates."""
    rng = np.random.default_rng(seed)
    ws.store.ensure(name, ws.embedder.dim, ws.embedder.name)
    texts = [c.text for c in chunks]
    ws.store.upsert(name, chunks, rng.normal(size=(len(chunks), ws.embedder.dim)),
                    ws.sparse.encode(texts))


def test_rerank_pool_is_at_most_100_and_research_fills_the_rest(ws: Workspace) -> None:
    """150 research + 25 knowledge + 20 evergreen: 100 reach the rerank, side groups first."""
    ws.settings.retrieval.knowledge_top = 30
    research = [chunk(f"{PROSE} Variant {i} of the tidal estuary note.", f"https://r{i}.org/a", i)
                for i in range(150)]
    put(ws, research_collection("climate"), research, 1)
    put(ws, knowledge_collection("climate"),
        [chunk(f"Fact {i}: tidal estuary lagoons store water.", f"https://k{i}.org/f", i,
               SourceKind.KNOWLEDGE) for i in range(25)], 2)
    ever = [chunk(f"Concept {i}: tides follow the moon.", f"https://e{i}.org/c", i,
                  SourceKind.EVERGREEN, slug="") for i in range(20)]
    put(ws, EVERGREEN, ever, 3)
    pack = retrieve(ws, TOPIC)
    groups = [c.group for c in pack.pool]
    assert len(pack.pool) == 100
    assert groups.count(SourceKind.KNOWLEDGE) == 25 and groups.count(SourceKind.EVERGREEN) == 20
    assert groups.count(SourceKind.RESEARCH) == 55
    assert all("rerank" in c.scores for c in pack.pool)
    cut = [c for c in pack.discarded if c.group is SourceKind.RESEARCH]
    assert len(cut) == 95 and all(c.dropped == "below the pre-rank cut (top 55)" for c in cut)
    ws.settings.retrieval.prerank_top = 30  # a smaller pool: the side groups are cut too
    small = retrieve(ws, TOPIC)
    assert len(small.pool) == 30 and not any(c.group is SourceKind.RESEARCH for c in small.pool)
    assert any(c.dropped == "beyond the rerank pool (30)" for c in small.discarded)


def test_the_chain_runs_once_per_state(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same state: the cached pack (a copy); any write, invalidate() or setting: a fresh run."""
    put(ws, research_collection("climate"),
        [chunk(PROSE, f"https://r{i}.org/a", i) for i in range(6)])
    start = pack_cache(ws).runs
    first = retrieve(ws, TOPIC)
    again = retrieve(ws, TOPIC)
    assert pack_cache(ws).runs - start == 1
    assert [c.point_id for c in again.pool] == [c.point_id for c in first.pool]
    again.pool[0].scores["rerank"] = 99.0  # callers may change their copy...
    again.research.clear()
    third = retrieve(ws, TOPIC)
    assert third.pool[0].scores["rerank"] != 99.0 and third.research  # ...not the cache
    assert {id(c) for c in third.research} <= {id(c) for c in third.pool}
    assert pack_cache(ws).runs - start == 1

    put(ws, research_collection("climate"), [chunk(PROSE, "https://new.org/a")], 9)  # indexing
    assert len(retrieve(ws, TOPIC).pool) == 7 and pack_cache(ws).runs - start == 2
    ws.store.delete(knowledge_collection("climate"), {"topic_slug": "tidal"})  # a wipe (no-op)
    retrieve(ws, TOPIC)
    assert pack_cache(ws).runs - start == 3
    invalidate(ws, TOPIC)
    retrieve(ws, TOPIC)
    assert pack_cache(ws).runs - start == 4
    invalidate(ws, "tidal")
    retrieve(ws, TOPIC)
    invalidate(ws)
    retrieve(ws, TOPIC)
    assert pack_cache(ws).runs - start == 6
    ws.settings.retrieval.final_top = 3
    assert len(retrieve(ws, TOPIC).research) == 3 and pack_cache(ws).runs - start == 7
    other = Topic(title=TOPIC.title, slug="tidal", category="climate", focus="something else")
    retrieve(ws, other)
    assert pack_cache(ws).runs - start == 8
    small = ws.memo("context_packs", PackCache)
    small.size = 1
    retrieve(ws, TOPIC)
    assert len(pack_cache(ws).packs) == 1


def test_link_lists_and_share_lines_never_become_facts(ws: Workspace) -> None:
    """A chunk of related links and share buttons stays in the pool but is not selected."""
    ws.indexer.index(research_collection("climate"),
                 [chunk(PROSE, "https://a.org/1"), chunk(LINKS, "https://b.org/2"),
                  chunk("Tidal power in estuaries: lagoons cost more than wind farms per unit.",
                        "https://c.org/3")])
    pack = retrieve(ws, TOPIC)
    chosen = [c.chunk.url for c in pack.research]
    assert chosen and "https://b.org/2" not in chosen
    (links,) = [c for c in pack.pool if c.chunk.url == "https://b.org/2"]
    assert links.scores["prose"] < 0.5 and links.dropped.startswith("not prose")
    assert all(c.scores["prose"] >= 0.5 for c in pack.research)
    ws.settings.retrieval.prose_min = 0.0  # the filter off: everything may be chosen
    assert "https://b.org/2" in [c.chunk.url for c in retrieve(ws, TOPIC).research]
