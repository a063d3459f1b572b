"""The Qdrant store in embedded mode on disk, with the bundled embedding and BM25 models."""

import numpy as np
import pytest

from nonseq import queue
from nonseq.errors import ModelMismatchError, UsageError, WorkspaceBusyError
from nonseq.index.store import (
    knowledge_collection,
    persona_collection,
    research_collection,
    safe_name,
)
from nonseq.index.stores import open_store
from nonseq.models import Chunk
from nonseq.workspace import Workspace

TEXTS = [
    "The James Webb Space Telescope observed early galaxies in infrared light.",
    "Central banks raised interest rates to fight inflation.",
    "A new battery chemistry promises cheaper electric cars.",
]


def _chunks(slug: str, url_prefix: str = "https://example.org/") -> list[Chunk]:
    return [Chunk(text=t, topic_slug=slug, category="science", url=f"{url_prefix}{i}",
                  domain="example.org", position=0) for i, t in enumerate(TEXTS)]


def test_collection_names_are_normalised() -> None:
    assert research_collection("AI") == "research_ai"
    assert knowledge_collection("Climate-Tech") == "knowledge_climate_tech"
    assert persona_collection("The Skeptic") == "persona_the_skeptic"
    for bad in ("", "  ", "../..", "x" * 80):
        with pytest.raises(UsageError):
            safe_name(bad)


def test_missing_collection_reads_as_empty(ws: Workspace) -> None:
    assert ws.store.scroll_all("research_nothing") == []
    assert ws.store.count("research_nothing") == 0
    assert ws.store.search("research_nothing", [0.0] * 384) == []
    ws.store.delete("research_nothing", {"topic_slug": "x"})


def test_data_persists_across_close_and_reopen(ws: Workspace, settings) -> None:
    assert ws.indexer.index("research_science", _chunks("t1")) == 3
    ws.close()
    again = Workspace(settings)
    points = again.store.scroll_all("research_science", {"topic_slug": "t1"}, vectors=True)
    assert sorted(p.chunk.text for p in points) == sorted(TEXTS)
    assert set(points[0].vectors) == {"dense", "sparse"}
    again.close()


def test_two_topics_one_url_do_not_clash(ws: Workspace) -> None:
    ws.indexer.index("research_science", _chunks("t1"))
    ws.indexer.index("research_science", _chunks("t2"))
    assert ws.store.count("research_science") == 6
    ws.store.delete("research_science", {"topic_slug": "t1"})
    assert ws.store.count("research_science") == 3
    assert ws.store.count("research_science", {"topic_slug": "t2"}) == 3


def test_reindexing_overwrites_instead_of_duplicating(ws: Workspace) -> None:
    ws.indexer.index("research_science", _chunks("t1"))
    ws.indexer.index("research_science", _chunks("t1"))
    assert ws.store.count("research_science") == 3


def test_relevant_sentence_scores_above_irrelevant(ws: Workspace) -> None:
    query = ws.embedder.embed_query("telescope images of distant galaxies")
    docs = ws.embedder.embed(TEXTS)
    scores = docs @ query
    assert scores[0] > scores[1] + 0.2 and scores[0] > scores[2] + 0.2
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)


def test_dense_sparse_and_hybrid_search(ws: Workspace) -> None:
    ws.indexer.index("research_science", _chunks("t1"))
    q = "interest rates and inflation"
    dense = ws.store.search("research_science", ws.embedder.embed_query(q), limit=1)
    sparse = ws.store.search("research_science", ws.sparse.encode_query(q), using="sparse")
    hybrid = ws.store.hybrid("research_science", ws.embedder.embed_query(q),
                             ws.sparse.encode_query(q), limit=3, match={"topic_slug": "t1"})
    assert dense[0].chunk.text == TEXTS[1]
    assert sparse[0].chunk.text == TEXTS[1]
    assert hybrid[0].chunk.text == TEXTS[1] and len(hybrid) == 3


def test_scroll_reads_everything_in_one_call(ws: Workspace) -> None:
    chunks = [Chunk(text=f"chunk number {i} about topic", topic_slug="big", category="ai",
                    url=f"https://e.org/{i // 5}", position=i % 5) for i in range(230)]
    ws.indexer.index("research_ai", chunks)
    assert len(ws.store.scroll_all("research_ai", {"topic_slug": "big"})) == 230


def test_model_is_recorded_and_a_change_is_refused(ws: Workspace) -> None:
    ws.indexer.index("research_science", _chunks("t1"))
    assert ws.store.metadata("research_science") == {"model": "all-MiniLM-L6-v2", "dim": 384,
                                                     "trigger": False}
    with pytest.raises(ModelMismatchError, match="reembed"):
        ws.store.ensure("research_science", 768, "other-model")


def test_persona_collections_have_trigger_vectors(ws: Workspace) -> None:
    chunks = [Chunk(text="Let me be blunt.", topic_slug="", category="", url="persona:x",
                    position=0)]
    ws.indexer.index("persona_x", chunks, triggers=["criticism of a claim"])
    points = ws.store.scroll_all("persona_x", vectors=True)
    assert set(points[0].vectors) == {"dense", "sparse", "trigger_dense"}


def test_second_process_on_the_same_folder_gets_a_clear_error(ws: Workspace) -> None:
    ws.store.collections()
    with pytest.raises(WorkspaceBusyError, match="in use by another nonseq process"):
        open_store(path=ws.qdrant_path)


def test_second_process_via_cli_gets_one_line(ws: Workspace, cli) -> None:
    queue.add_topic(ws.db, "Busy", "ai", ws.categories)
    ws.store.collections()
    result = cli("queue", "remove", "busy", code=75)
    assert "in use by another nonseq process" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert queue.get_topic(ws.db, "busy").title == "Busy"  # nothing changed


def test_remove_deletes_research_but_keeps_knowledge(ws: Workspace, cli) -> None:
    topic = queue.add_topic(ws.db, "Keep knowledge", "science", ws.categories)
    ws.indexer.index(research_collection("science"), _chunks(topic.slug))
    ws.indexer.index(knowledge_collection("science"), _chunks(topic.slug))
    ws.close()
    assert "3 research chunk(s)" in cli("queue", "remove", topic.slug).stdout
    assert ws.store.count("research_science") == 0
    assert ws.store.count("knowledge_science") == 3
