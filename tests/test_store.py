"""The vector store on both engines (qdrant-edge on disk, a Qdrant server by URL), with the bundled models.

The server tests run against devkit/qdrant_fake.py (Qdrant's REST wire format on 127.0.0.1), or a
real server when NONSEQ_TEST_QDRANT_URL is set.
"""

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from nonseq import queue
from nonseq.config import load_settings
from nonseq.errors import ModelMismatchError, UsageError, WorkspaceBusyError
from nonseq.index.store_engines import open_store
from nonseq.index.vector_store import (
    knowledge_collection,
    persona_collection,
    research_collection,
    safe_name,
)
from nonseq.models import Chunk
from nonseq.workspace import Workspace

TEXTS = [
    "The James Webb Space Telescope observed early galaxies in infrared light.",
    "Central banks raised interest rates to fight inflation.",
    "A new battery chemistry promises cheaper electric cars.",
]


@pytest.fixture(params=["edge", "server"])
def sws(request: pytest.FixtureRequest, isolated: Path) -> Iterator[Workspace]:
    """A workspace on each engine: qdrant-edge in the folder, or a Qdrant server (config.toml says which)."""
    if request.param == "server":
        url = request.getfixturevalue("qdrant_url")
        (isolated / "config.toml").write_text(f'[qdrant]\nurl = "{url}"\n', encoding="utf-8")
    workspace = Workspace(load_settings())
    yield workspace
    workspace.close()


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


def test_missing_collection_reads_as_empty(sws: Workspace) -> None:
    assert sws.store.scroll_all("research_nothing") == []
    assert sws.store.count("research_nothing") == 0
    assert sws.store.search("research_nothing", [0.0] * 384) == []
    sws.store.delete("research_nothing", {"topic_slug": "x"})


def test_data_persists_across_close_and_reopen(sws: Workspace) -> None:
    assert sws.indexer.index("research_science", _chunks("t1")) == 3
    sws.close()
    again = Workspace(sws.settings)
    points = again.store.scroll_all("research_science", {"topic_slug": "t1"}, vectors=True)
    assert sorted(p.chunk.text for p in points) == sorted(TEXTS)
    assert set(points[0].vectors) == {"dense", "sparse"}
    again.close()


def test_two_topics_one_url_do_not_clash(sws: Workspace) -> None:
    sws.indexer.index("research_science", _chunks("t1"))
    sws.indexer.index("research_science", _chunks("t2"))
    assert sws.store.count("research_science") == 6
    sws.store.delete("research_science", {"topic_slug": "t1"})
    assert sws.store.count("research_science") == 3
    assert sws.store.count("research_science", {"topic_slug": "t2"}) == 3


def test_reindexing_overwrites_instead_of_duplicating(sws: Workspace) -> None:
    sws.indexer.index("research_science", _chunks("t1"))
    sws.indexer.index("research_science", _chunks("t1"))
    assert sws.store.count("research_science") == 3


def test_relevant_sentence_scores_above_irrelevant(ws: Workspace) -> None:
    query = ws.embedder.embed_query("telescope images of distant galaxies")
    docs = ws.embedder.embed(TEXTS)
    scores = docs @ query
    assert scores[0] > scores[1] + 0.2 and scores[0] > scores[2] + 0.2
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)


def test_dense_sparse_and_hybrid_search(sws: Workspace) -> None:
    sws.indexer.index("research_science", _chunks("t1"))
    q = "interest rates and inflation"
    dense = sws.store.search("research_science", sws.embedder.embed_query(q), limit=1)
    sparse = sws.store.search("research_science", sws.sparse.encode_query(q), using="sparse")
    hybrid = sws.store.hybrid("research_science", sws.embedder.embed_query(q),
                             sws.sparse.encode_query(q), limit=3, match={"topic_slug": "t1"})
    assert dense[0].chunk.text == TEXTS[1]
    assert sparse[0].chunk.text == TEXTS[1]
    assert hybrid[0].chunk.text == TEXTS[1] and len(hybrid) == 3


def test_scroll_reads_everything_in_one_call(sws: Workspace) -> None:
    chunks = [Chunk(text=f"chunk number {i} about topic", topic_slug="big", category="ai",
                    url=f"https://e.org/{i // 5}", position=i % 5) for i in range(230)]
    sws.indexer.index("research_ai", chunks)
    assert len(sws.store.scroll_all("research_ai", {"topic_slug": "big"})) == 230


def test_model_is_recorded_and_a_change_is_refused(sws: Workspace) -> None:
    sws.indexer.index("research_science", _chunks("t1"))
    assert sws.store.metadata("research_science") == {"model": "all-MiniLM-L6-v2", "dim": 384,
                                                     "trigger": False}
    with pytest.raises(ModelMismatchError, match="reembed"):
        sws.store.ensure("research_science", 768, "other-model")


def test_persona_collections_have_trigger_vectors(sws: Workspace) -> None:
    chunks = [Chunk(text="Let me be blunt.", topic_slug="", category="", url="persona:x",
                    position=0)]
    sws.indexer.index("persona_x", chunks, triggers=["criticism of a claim"])
    points = sws.store.scroll_all("persona_x", vectors=True)
    assert set(points[0].vectors) == {"dense", "sparse", "trigger_dense"}


def test_second_process_on_the_same_folder_gets_a_clear_error(ws: Workspace) -> None:
    ws.store.collections()
    with pytest.raises(WorkspaceBusyError, match="in use by another nonseq process"):
        open_store(path=ws.qdrant_path)


def test_second_process_via_cli_gets_one_line(ws: Workspace, cli) -> None:
    queue.insert_topic(ws.db, "Busy", "ai", ws.categories)
    ws.store.collections()
    result = cli("queue", "remove", "busy", code=75)
    assert "in use by another nonseq process" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert queue.get_topic(ws.db, "busy").title == "Busy"  # nothing changed


def test_remove_deletes_research_but_keeps_knowledge(sws: Workspace, cli) -> None:
    topic = queue.insert_topic(sws.db, "Keep knowledge", "science", sws.categories)
    sws.indexer.index(research_collection("science"), _chunks(topic.slug))
    sws.indexer.index(knowledge_collection("science"), _chunks(topic.slug))
    sws.close()
    assert "3 research chunk(s)" in cli("queue", "remove", topic.slug).stdout
    assert sws.store.count("research_science") == 0
    assert sws.store.count("knowledge_science") == 3


def _random_chunks(n: int, slug: str = "big") -> tuple[list[Chunk], np.ndarray, list]:
    """n chunks with seeded random unit vectors and real BM25 vectors of their texts."""
    from nonseq.config import SparseSettings
    from nonseq.index.sparse import SparseEncoder

    chunks = [Chunk(text=f"chunk {i} on topic {slug}", topic_slug=slug, category="ai", url=f"https://e.org/{i}",
                    position=0) for i in range(n)]
    dense = np.random.default_rng(n).normal(size=(n, 8))
    sparse = SparseEncoder(SparseSettings()).encode([c.text for c in chunks])
    return chunks, dense / np.linalg.norm(dense, axis=1, keepdims=True), sparse


def test_payload_indexes_on_the_filtered_keys(sws: Workspace) -> None:
    """Filters by topic, category, url and fact uid use a keyword index on both engines."""
    sws.store.ensure("knowledge_ai", 8, "m")
    sws.store.ensure("persona_p", 8, "m", trigger=True)
    sws.close()
    if sws.settings.qdrant.url:
        from qdrant_client import QdrantClient

        client = QdrantClient(url=sws.settings.qdrant.url, check_compatibility=False)
        schema = client.get_collection("knowledge_ai").payload_schema
        client.close()
    else:
        import qdrant_edge

        shard = qdrant_edge.EdgeShard.load(str(sws.qdrant_path / "edge" / "knowledge_ai"))
        schema = shard.info().payload_schema
        shard.close()
    assert set(schema) == {"topic_slug", "category", "url", "fact_uid"}


def test_a_collection_another_worker_creates_first_is_used_not_an_error(qdrant_url: str) -> None:
    """Two workers on one server index the same category at once: the one whose create is refused
    (the other made the collection after its look) goes on with that collection; a wrong model still fails."""
    from nonseq.index.server import ServerStore

    first, second = ServerStore(url=qdrant_url), ServerStore(url=qdrant_url)
    looked = second.exists

    def late_look(name: str) -> bool:
        """The second worker's look answers before the first worker's create lands."""
        answer = looked(name)
        first.ensure(name, 8, "m")
        return answer

    second.exists = late_look  # type: ignore[method-assign]
    second.ensure("research_ai", 8, "m")
    assert first.metadata("research_ai")["model"] == "m" and first.count("research_ai") == 0
    second.exists = looked  # type: ignore[method-assign]
    with pytest.raises(ModelMismatchError):
        second.ensure("research_ai", 8, "other")
    first.drop("research_ai")
    second.exists = late_look  # type: ignore[method-assign]
    with pytest.raises(ModelMismatchError):
        second.ensure("research_ai", 8, "other")  # made with "m" by the first worker in the window


def test_whole_collections_are_read_page_by_page(sws: Workspace) -> None:
    chunks, dense, sparse = _random_chunks(2300)
    sws.store.ensure("research_ai", 8, "m")
    assert sws.store.upsert("research_ai", chunks, dense, sparse) == 2300
    assert len(sws.store.point_ids("research_ai")) == 2300
    assert len(list(sws.store.iter_points("research_ai", {"topic_slug": "big"}, page=1000))) == 2300


def test_a_rebuild_switches_only_when_complete(sws: Workspace) -> None:
    """Copy-then-swap on both engines: readable old data until commit, the copy after, nothing half."""
    store = sws.store
    chunks, dense, sparse = _random_chunks(30)
    store.ensure("research_ai", 8, "old-model")
    store.upsert("research_ai", chunks, dense, sparse)
    staging = store.rebuild("research_ai", 8, "new-model")
    staging.upsert(chunks[:10], dense[:10], sparse[:10])
    assert store.count("research_ai") == 30 and store.metadata("research_ai")["model"] == "old-model"
    staging.abort()
    assert store.count("research_ai") == 30 and store.collections() == ["research_ai"]
    with store.rebuild("research_ai", 8, "new-model") as staging:
        staging.upsert(chunks[:12], dense[:12], sparse[:12])
    assert store.count("research_ai") == 12 and store.metadata("research_ai")["model"] == "new-model"
    assert store.collections() == ["research_ai"]
    with pytest.raises(RuntimeError), store.rebuild("research_ai", 8, "third") as staging:
        staging.upsert(chunks[:3], dense[:3], sparse[:3])
        raise RuntimeError("the embedder broke")
    assert store.count("research_ai") == 12 and store.metadata("research_ai")["model"] == "new-model"


def test_an_unswitched_copy_is_recovered_or_dropped_on_reopen(sws: Workspace) -> None:
    """A kill after the copy was marked complete finishes the switch on the next open; before, drops it."""
    chunks, dense, sparse = _random_chunks(20)
    sws.store.ensure("research_ai", 8, "old-model")
    sws.store.upsert("research_ai", chunks, dense, sparse)
    staging = sws.store.rebuild("research_ai", 8, "half")
    staging.upsert(chunks[:5], dense[:5], sparse[:5])  # killed here: never committed
    sws.close()
    again = Workspace(sws.settings)
    assert again.store.count("research_ai") == 20 and again.store.metadata("research_ai")["model"] == "old-model"
    staging = again.store.rebuild("research_ai", 8, "whole")
    staging.upsert(chunks[:7], dense[:7], sparse[:7])
    staging.mark_complete()  # killed here: complete, not switched in
    again.close()
    third = Workspace(sws.settings)
    assert third.store.count("research_ai") == 7 and third.store.metadata("research_ai")["model"] == "whole"
    assert third.store.collections() == ["research_ai"]
    third.close()


def test_an_unreachable_server_is_one_line(isolated: Path, cli) -> None:
    from tests.web import free_port

    (isolated / "config.toml").write_text(f'[qdrant]\nurl = "http://127.0.0.1:{free_port()}"\ntimeout = 2\n')
    result = cli("collections", code=1)
    assert "qdrant server http://127.0.0.1:" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_doctor_checks_the_server_its_collections_and_their_vectors(qdrant_url: str, isolated: Path) -> None:
    from qdrant_client import QdrantClient, models

    from nonseq.pipeline.doctor import run_one
    from tests.web import free_port

    (isolated / "config.toml").write_text(f'[qdrant]\nurl = "{qdrant_url}"\n', encoding="utf-8")
    ws = Workspace(load_settings())
    ws.indexer.index("research_science", _chunks("t1"))
    check = run_one(ws, "qdrant")
    assert check.ok and "Qdrant server 1." in check.detail and "1 collection(s), 3 point(s)" in check.detail
    client = QdrantClient(url=qdrant_url, check_compatibility=False)
    client.create_collection("knowledge_science", metadata={"model": "all-MiniLM-L6-v2", "dim": 384},
                             vectors_config={"dense": models.VectorParams(size=8, distance=models.Distance.COSINE)},
                             sparse_vectors_config={"sparse": models.SparseVectorParams()})
    client.close()
    check = run_one(ws, "qdrant")
    assert not check.ok and "knowledge_science" in check.detail and "'dense' is (8, 'Cosine')" in check.detail
    ws.close()
    (isolated / "config.toml").write_text(f'[qdrant]\nurl = "http://127.0.0.1:{free_port()}"\ntimeout = 2\n')
    down = Workspace(load_settings())
    check = run_one(down, "qdrant")
    assert not check.ok and check.detail.startswith("qdrant server http://127.0.0.1:")
    down.close()
