"""Nothing lost from the vector store: the local-mode migration, research text in SQLite, `store rebuild`,
a database and a store of different workspaces refused, damaged files as one line, copy-then-swap rebuilds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from devkit.checks import one_error_line
from devkit.child import run_child
from nonseq import queue
from nonseq.config import load_settings
from nonseq.index.vector_store import EVERGREEN, knowledge_collection, research_collection
from nonseq.workspace import Workspace
from tests.shared_data import DATA
from tests.web import free_port

REPO = Path(__file__).resolve().parents[1]
MODEL = "all-MiniLM-L6-v2"


def _abstracts(n: int, skip: int = 0) -> list[dict]:
    """n real SciFact abstracts."""
    with (DATA / "scifact" / "corpus.jsonl").open(encoding="utf-8") as fh:
        rows = [json.loads(next(fh)) for _ in range(skip + n)]
    return rows[skip:]


def _ws() -> Workspace:
    return Workspace(load_settings())


def _data() -> Path:
    """The workspace folder of the test's settings."""
    return load_settings().data_dir


# -- the local-mode migration -----------------------------------------------------------------
def _local_mode_store(path: Path) -> dict[str, dict[str, tuple]]:
    """A qdrant-client local-mode folder as the embedded default wrote it: what every point holds."""
    from qdrant_client import QdrantClient, models

    rng = np.random.default_rng(5)
    client = QdrantClient(path=str(path))
    wrote: dict[str, dict[str, tuple]] = {}
    for name, trigger, size in (("research_science", False, 40), ("knowledge_science", False, 25),
                                ("persona_ada", True, 3)):
        vectors = {"dense": models.VectorParams(size=384, distance=models.Distance.COSINE)}
        if trigger:
            vectors["trigger_dense"] = models.VectorParams(size=384, distance=models.Distance.COSINE)
        sparse = {"sparse": models.SparseVectorParams(modifier=models.Modifier.IDF)}
        client.create_collection(name, vectors_config=vectors, sparse_vectors_config=sparse,
                                 metadata={"model": MODEL, "dim": 384, "trigger": trigger})
        points, wrote[name] = [], {}
        for i in range(size):
            pid = f"00000000-0000-4000-8000-{i:012d}"
            payload = {"text": f"Text {i} · ünïcode", "topic_slug": "t", "category": "science", "position": i,
                       "url": f"https://e.org/{i}", "flags": ["a", "b"], "sources": {"n": i}}
            named = {"dense": rng.normal(size=384).tolist(),
                     "sparse": models.SparseVector(indices=[i, 1000 + i], values=[0.5, 1.5])}
            if trigger:
                named["trigger_dense"] = rng.normal(size=384).tolist()
            points.append(models.PointStruct(id=pid, vector=named, payload=payload))
            wrote[name][pid] = (payload, named)
        client.upsert(name, points)
    client.close()
    return wrote


def _same_points(store: object, wrote: dict[str, dict[str, tuple]]) -> None:
    """Every point of `wrote` is in the store with its payload and vectors."""
    for name, points in wrote.items():
        got = {p.id: p for p in store.iter_points(name, vectors=True)}  # type: ignore[attr-defined]
        assert set(got) == set(points), name
        for pid, (payload, named) in points.items():
            stored = got[pid].chunk.to_payload()
            assert {k: stored[k] for k in payload} == payload
            for vector, value in named.items():
                if vector == "sparse":
                    assert list(got[pid].vectors["sparse"].indices) == value.indices
                    assert np.allclose(got[pid].vectors["sparse"].values, value.values)
                else:
                    a, b = np.asarray(got[pid].vectors[vector]), np.asarray(value)
                    assert np.allclose(a / np.linalg.norm(a), b / np.linalg.norm(b), atol=1e-5)


def test_a_local_mode_workspace_migrates_keeping_every_point_and_payload(cli, isolated: Path) -> None:  # noqa: ANN001
    with _ws() as ws:
        queue.insert_topic(ws.db, "An old topic", "science", ws.categories, slug="t")
        wrote = _local_mode_store(ws.qdrant_path)
    result = cli("collections", "--json")
    assert "moving the vector store" in result.stderr
    listed = {c["name"]: c for c in json.loads(result.stdout)}
    assert {n: c["points"] for n, c in listed.items()} == {n: len(p) for n, p in wrote.items()}
    assert listed["persona_ada"]["trigger"] is True and listed["research_science"]["model"] == MODEL
    with _ws() as ws:
        _same_points(ws.store, wrote)
        assert (ws.qdrant_path / "local-mode-backup" / "meta.json").is_file()
        assert not (ws.qdrant_path / "meta.json").exists()
    report = json.loads(cli("store", "migrate", "--prune", "--json").stdout)
    assert report["points"] == {n: len(p) for n, p in wrote.items()} and report["pruned"]
    assert not (_data() / "qdrant" / "local-mode-backup").exists() and not report["backup"]


@pytest.mark.slow
def test_an_interrupted_migration_starts_over_and_loses_nothing(cli, isolated: Path) -> None:  # noqa: ANN001
    with _ws() as ws:
        queue.insert_topic(ws.db, "An old topic", "science", ws.categories, slug="t")
        wrote = _local_mode_store(ws.qdrant_path)
        root = ws.qdrant_path
    assert run_child(["collections"], isolated, kill_at="rebuild:2", timeout=600).returncode == -9
    assert (root / "meta.json").is_file(), "the local-mode files stay until every collection is copied"
    cli("store", "migrate")
    with _ws() as ws:
        _same_points(ws.store, wrote)


def test_a_damaged_local_mode_store_is_one_line(cli, isolated: Path) -> None:  # noqa: ANN001
    with _ws() as ws:
        _local_mode_store(ws.qdrant_path)
        root = ws.qdrant_path
    (root / "collection" / "knowledge_science" / "storage.sqlite").write_bytes(b"not a database" * 100)
    line = one_error_line(cli("collections", code=1), warnings=True)
    assert "cannot be read" in line and "storage.sqlite" in line
    (root / "meta.json").write_text("{garbage")
    assert "meta.json" in one_error_line(cli("collections", code=1), warnings=True)


# -- research text in SQLite, and the store rebuilt from it ----------------------------------
def _research(cli, isolated: Path, title: str = "Cerebral white matter in newborns",  # noqa: ANN001
              category: str = "science", n: int = 2) -> int:
    """A topic researched from local text files (real SciFact abstracts); its id."""
    files = []
    for row in _abstracts(n):
        path = isolated / f"{row['_id']}.md"
        path.write_text(f"# {row['title']}\n\n{row['text']}\n", encoding="utf-8")
        files += ["--file", str(path)]
    topic = json.loads(cli("queue", "add", title, "--category", category, "--json").stdout)
    cli("research", str(topic["id"]), *files, "--json")
    return int(topic["id"])


def _research_points(category: str = "science") -> dict[str, dict]:
    with _ws() as ws:
        return {p.id: p.chunk.to_payload() for p in ws.store.iter_points(research_collection(category))}


def _rows(topic_id: int | None = None) -> dict[str, str]:
    with _ws() as ws:
        sql = "SELECT point_id, collection FROM research_chunks" + (" WHERE topic_id=?" if topic_id else "")
        return {r[0]: r[1] for r in ws.db.execute(sql, (topic_id,) if topic_id else ())}


def test_research_text_is_kept_in_sqlite_and_follows_the_topic(cli, isolated: Path) -> None:  # noqa: ANN001
    """Every research point has its row (text and payload); rows move with the category, go with the topic."""
    tid = _research(cli, isolated)
    points = _research_points()
    assert points and set(_rows(tid)) == set(points)
    with _ws() as ws:
        row = ws.db.execute("SELECT payload, text FROM research_chunks LIMIT 1").fetchone()
        assert json.loads(row[0])["topic_slug"] and row[1] in {p["text"] for p in points.values()}
    assert "moved" in cli("queue", "edit", str(tid), "--category", "health").stdout
    assert set(_rows(tid).values()) == {research_collection("health")}
    assert set(_research_points("health")) == set(points) and not _research_points("science")
    cli("queue", "remove", str(tid))
    assert _rows() == {} and not _research_points("health")


def test_store_rebuild_restores_points_from_sqlite(cli, isolated: Path) -> None:  # noqa: ANN001
    """Deleted store: commands refuse with the fix, doctor names the loss, `store rebuild` restores
    every research and knowledge point (same ids, same payloads)."""
    _research(cli, isolated, n=1)
    cli("knowledge", "add", "--category", "science", "--evergreen", "--text",
        "Diffusion tensor imaging measures how water moves along white-matter fibres.")
    before = {name: _points(name) for name in (research_collection("science"), EVERGREEN)}
    shutil.rmtree(_data() / "qdrant")
    line = one_error_line(cli("knowledge", "search", "white matter", code=1), warnings=True)
    assert "missing or empty" in line and "nonseq store rebuild" in line
    doctor = cli("doctor", code=1).stdout
    assert "FAIL qdrant" in doctor and "store rebuild" in doctor
    report = json.loads(cli("store", "rebuild", "--json").stdout)
    assert (report["knowledge"], report["research"]) == (1, len(before[research_collection("science")]))
    assert {name: _points(name) for name in before} == before
    assert json.loads(cli("store", "rebuild", "--json").stdout)["research"] == 0  # nothing left to do
    with _ws() as ws:
        from nonseq.pipeline.rebuild import missing_points

        assert missing_points(ws) == {}


def _points(name: str) -> dict[str, dict]:
    with _ws() as ws:
        return {p.id: p.chunk.to_payload() for p in ws.store.iter_points(name)}


def test_doctor_reports_points_missing_against_sqlite(cli, isolated: Path) -> None:  # noqa: ANN001
    cli("knowledge", "add", "--category", "science", "--topic", "t", "--text",
        "Measles vaccination prevents an estimated million deaths a year.")
    with _ws() as ws:
        ws.store.delete(knowledge_collection("science"), {"topic_slug": "t"})
    line = next(x for x in cli("doctor", code=1).stdout.splitlines() if "qdrant" in x)
    assert "1 point(s) the database expects are missing (knowledge_science 1)" in line


# -- whose database, whose store -------------------------------------------------------------
def _stamped(cli, isolated: Path) -> None:  # noqa: ANN001
    """A workspace with a topic and knowledge points."""
    cli("queue", "add", "Heat pumps", "--category", "science")
    cli("knowledge", "add", "--category", "science", "--topic", "heat-pumps", "--text",
        "A heat pump moves heat instead of making it.")


@pytest.mark.parametrize("how", ["deleted", "emptied"])
def test_a_new_database_beside_old_vectors_is_refused(cli, isolated: Path, how: str) -> None:  # noqa: ANN001
    _stamped(cli, isolated)
    db = _data() / "nonseq.db"
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    db.unlink() if how == "deleted" else db.write_bytes(b"")
    line = one_error_line(cli("knowledge", "search", "heat", code=1), warnings=True)
    assert "new or empty" in line and "restore" in line
    cli("queue", "add", "Heat pumps", "--category", "science")  # the old slug again: never the old chunks
    line = one_error_line(cli("inspect", "heat-pumps", code=1), warnings=True)
    assert "belong to different workspaces" in line


def test_another_workspaces_store_is_refused(cli, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    _stamped(cli, isolated)
    monkeypatch.setenv("NONSEQ_PATHS__DATA_DIR", str(isolated / "other"))
    monkeypatch.setenv("NONSEQ_QDRANT__PATH", str(isolated / ".nonseq" / "qdrant"))
    cli("queue", "add", "Something else", "--category", "science")
    assert "belong to different workspaces" in one_error_line(cli("collections", code=1), warnings=True)


# -- damaged files ---------------------------------------------------------------------------
DAMAGE = {
    "shard config": ("edge_config.json", b"{garbage"),
    "metadata": ("nonseq.json", b"\x00\x01"),
    "wal": ("wal/open-1", os.urandom(256)),
}


@pytest.mark.parametrize("part", sorted(DAMAGE))
def test_a_damaged_collection_is_one_line_and_rebuilt(cli, isolated: Path, part: str) -> None:  # noqa: ANN001
    _stamped(cli, isolated)
    name, garbage = DAMAGE[part]
    folder = _data() / "qdrant" / "edge" / knowledge_collection("science")
    (folder / name).write_bytes(garbage)
    line = one_error_line(cli("knowledge", "search", "heat pump", code=1), warnings=True)
    assert "knowledge_science" in line and "damaged" in line and "nonseq store rebuild" in line
    report = json.loads(cli("store", "rebuild", "--json").stdout)
    assert report["damaged"] == [knowledge_collection("science")] and report["knowledge"] == 1
    assert json.loads(cli("knowledge", "search", "heat pump", "--json").stdout)[0]["text"].startswith("A heat pump")


def test_a_damaged_workspace_mark_is_one_line(cli, isolated: Path) -> None:  # noqa: ANN001
    _stamped(cli, isolated)
    (_data() / "qdrant" / "workspace.json").write_text("[1")
    assert "workspace.json" in one_error_line(cli("collections", code=1), warnings=True)


# -- copy-then-swap: reembed and category moves ------------------------------------------------
def test_reembed_with_a_broken_embedder_keeps_everything(cli, isolated: Path) -> None:  # noqa: ANN001
    _stamped(cli, isolated)
    name = knowledge_collection("science")
    before = _points(name)
    (isolated / "config.toml").write_text(
        f'[embedding]\nbackend = "ollama"\nollama_url = "http://127.0.0.1:{free_port()}"\nmodel = "x"\n')
    line = one_error_line(cli("reembed", name, code=1), warnings=True)
    assert "ollama" in line.lower()
    (isolated / "config.toml").unlink()
    assert _points(name) == before


@pytest.mark.slow
def test_reembed_killed_halfway_keeps_the_old_collection_and_a_rerun_finishes(cli, isolated: Path) -> None:  # noqa: ANN001
    with _ws() as ws:
        from nonseq.models import Chunk

        chunks = [Chunk(text=row["text"][:300], topic_slug="t", category="science", url=f"https://e.org/{i}",
                        position=0) for i, row in enumerate(_abstracts(12))]
        ws.store.ensure(research_collection("science"), 384, "an-old-model")
        ws.store.upsert(research_collection("science"), chunks, np.eye(384)[:12], ws.sparse.encode(
            [c.text for c in chunks]))
    before = _research_points()
    env_batch = {"NONSEQ_TEST_KILL_AT": "rebuild:1"}
    env = {**os.environ, "PYTHONPATH": str(REPO), **env_batch}
    killed = subprocess.run([sys.executable, "-c", "import nonseq.pipeline.vectors as v; v.REEMBED_BATCH = 5; "
                             "import sys; sys.argv = ['x', 'reembed', 'research_science']; "
                             "from devkit.child import main; main()"],
                            cwd=isolated, env=env, capture_output=True, text=True, timeout=600)
    assert killed.returncode == -9, killed.stderr
    with _ws() as ws:
        assert ws.store.metadata(research_collection("science"))["model"] == "an-old-model"
    assert _research_points() == before
    assert "re-embedded 12 point(s)" in cli("reembed", "research_science").stdout
    with _ws() as ws:
        assert ws.store.metadata(research_collection("science"))["model"] == MODEL
        assert ws.store.collections() == [research_collection("science")]
    assert _research_points() == before


@pytest.mark.slow
def test_a_category_move_killed_halfway_keeps_the_research_readable(cli, isolated: Path) -> None:  # noqa: ANN001
    tid = _research(cli, isolated, n=1)
    before = _research_points()
    killed = run_child(["queue", "edit", str(tid), "--category", "health"], isolated, kill_at="write:1", timeout=600)
    assert killed.returncode == -9
    with _ws() as ws:
        topic = queue.get_topic(ws.db, tid)
        assert topic.category == "science"  # the switch comes after the copy
        assert ws.store.count(research_collection("science"), {"topic_slug": topic.slug}) == len(before)
    cli("queue", "edit", str(tid), "--category", "health")
    assert set(_research_points("health")) == set(before) and not _research_points("science")
    assert set(_rows(tid).values()) == {research_collection("health")}
