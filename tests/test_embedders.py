"""The other dense embedders: sentence-transformers (extra `torch`) and Ollama's /api/embed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from devkit.llm_servers import FakeOllama
from nonseq.config import EmbeddingSettings
from nonseq.errors import BackendError
from nonseq.index.embed import FastEmbedEmbedder, RowMemo, build_embedder, bundled_tag
from nonseq.index.vector_cache import VectorCache

TEXTS = ["The telescope saw water vapour above Europa.", "Interest rates rose again in March.",
         "Plumes of water erupt from Jupiter's icy moon."]


def test_sentence_transformers_agrees_with_the_bundled_onnx_model() -> None:
    onnx = build_embedder(EmbeddingSettings(vector_cache=""))
    st = build_embedder(EmbeddingSettings(backend="sentence-transformers"))
    assert (st.name, st.dim, st.max_tokens) == ("all-MiniLM-L6-v2", 384, 256)
    a, b = onnx.embed(TEXTS), st.embed(TEXTS)
    agreement = np.sum(a * b, axis=1)
    assert agreement.min() > 0.99  # int8 ONNX vs float safetensors of the same model
    assert st.count_tokens("water vapour") == onnx.count_tokens("water vapour")


LENGTHS = ["A much longer sentence about axolotls regrowing whole limbs, bone and nerves included.",
           "Short.", "Stadia launched in November 2019.", "Mid-length text on the lunar south pole."]


def test_the_bundled_model_gives_each_text_its_own_row_whatever_the_batch() -> None:
    """Bit for bit, what lets the embedder remember rows (RowMemo): a remembered row is the row a run gives."""
    embedder = FastEmbedEmbedder(EmbeddingSettings(threads=1, batch_size=2, vector_cache=""))
    embedder.memo = None  # every row from the model
    together = embedder.embed(LENGTHS)
    alone = np.vstack([embedder.embed([t]) for t in LENGTHS])
    assert np.array_equal(together, alone)
    assert np.array_equal(embedder.embed([*LENGTHS[::-1], LENGTHS[0]])[:4], together[::-1])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def _recording(settings: EmbeddingSettings) -> tuple[FastEmbedEmbedder, list[str]]:
    """The bundled embedder and the list of texts its model is run on."""
    embedder = FastEmbedEmbedder(settings)
    ran: list[str] = []
    run = embedder._run
    embedder._run = lambda texts: (ran.extend(texts), run(texts))[1]  # type: ignore[method-assign]
    return embedder, ran


def test_a_text_embedded_again_is_not_run_again_and_gets_the_same_row() -> None:
    embedder, ran = _recording(EmbeddingSettings(threads=1, vector_cache=""))
    first = embedder.embed(LENGTHS[:2] + LENGTHS[:1])  # a text twice in one call runs once
    assert ran == LENGTHS[:2] and np.array_equal(first[0], first[2])
    again = embedder.embed(LENGTHS[::-1])
    assert ran == LENGTHS[:2] + LENGTHS[3:1:-1]  # only the two new texts ran
    assert np.array_equal(again[2:], first[1::-1])
    fresh = FastEmbedEmbedder(EmbeddingSettings(threads=1, vector_cache=""))
    fresh.memo = None
    assert np.array_equal(again, fresh.embed(LENGTHS[::-1]))


def test_a_later_run_reads_the_vectors_an_earlier_one_kept_bit_for_bit(tmp_path: Path) -> None:
    path = tmp_path / "cache" / "vectors.sqlite"
    first, ran = _recording(EmbeddingSettings(threads=1, vector_cache=str(path)))
    kept = first.embed(LENGTHS[:3])
    assert ran == LENGTHS[:3] and path.is_file()
    later, ran = _recording(EmbeddingSettings(threads=1, vector_cache=str(path)))  # nothing in its memory
    rows = later.embed(LENGTHS)
    assert ran == LENGTHS[3:]  # only the new text ran
    assert np.array_equal(rows[:3], kept)
    plain = FastEmbedEmbedder(EmbeddingSettings(threads=1, vector_cache=""))
    plain.memo = None
    assert np.array_equal(rows, plain.embed(LENGTHS))  # what the model gives
    tag = bundled_tag()
    other = subprocess.run([sys.executable, "-c", "import sys; from pathlib import Path; "
                            "from nonseq.index.vector_cache import VectorCache; "
                            "print(len(VectorCache(Path(sys.argv[1]), sys.argv[2], 384)))", str(path), tag],
                           capture_output=True, text=True, timeout=120)
    assert other.stdout.strip() == "4", other.stderr  # another process reads the same file
    assert VectorCache(path, "another model", 384).get([RowMemo.key(LENGTHS[0])]) == [None]


@pytest.mark.parametrize("damage", ["garbage", "a folder in the way"])
def test_a_vector_cache_that_cannot_be_used_is_left_alone_and_the_model_runs(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "vectors.sqlite"
    if damage == "garbage":
        path.write_bytes(b"not a database at all " * 100)
    else:
        (tmp_path / "blocker").write_text("a file where the cache's folder would be")
        path = tmp_path / "blocker" / "vectors.sqlite"
    embedder, ran = _recording(EmbeddingSettings(threads=1, vector_cache=str(path)))
    rows = embedder.embed(LENGTHS)
    assert ran == LENGTHS and rows.shape == (4, 384)
    assert embedder.memo is not None and embedder.memo.disk is not None
    assert str(path) in embedder.memo.disk.error
    if damage == "garbage":
        assert path.read_bytes().startswith(b"not a database")  # left as it was


def test_the_vector_cache_drops_its_oldest_rows_first(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path / "v.sqlite", "tag", 2, max_rows=1_000)
    keys = [RowMemo.key(str(i)) for i in range(1_300)]
    for start in range(0, 1_300, 100):
        cache.put(keys[start:start + 100], [np.full(2, float(i)) for i in range(start, start + 100)])
    assert len(cache) == 1_000
    got = cache.get([keys[0], keys[299], keys[300], keys[1_299]])
    assert got[:2] == [None, None]
    assert got[2] is not None and got[3] is not None and got[3].tolist() == [1_299.0, 1_299.0]


def test_the_row_memo_keeps_the_last_rows_used() -> None:
    memo = RowMemo(size=2)
    a, b, c = (RowMemo.key(t) for t in ("a", "b", "c"))
    memo.put([a, b], [np.ones(2), np.zeros(2)])
    assert np.array_equal(memo.get([a])[0], np.ones(2))  # a is now the newest
    memo.put([c], [np.full(2, 2.0)])
    assert len(memo) == 2 and memo.get([b]) == [None] and memo.get([a])[0] is not None


def test_sentence_transformers_missing_model_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(BackendError, match="cannot load"):
        build_embedder(EmbeddingSettings(backend="sentence-transformers", model="no-such/model",
                                         model_path=str(tmp_path / "nothing")))


@pytest.fixture(scope="module")
def ollama() -> FakeOllama:
    fake = FakeOllama().start()
    yield fake
    fake.stop()


def test_ollama_embedder_reads_the_dimension_from_the_model(ollama: FakeOllama) -> None:
    emb = build_embedder(EmbeddingSettings(backend="ollama", model="smollm2:135m", ollama_url=ollama.url))
    vectors = emb.embed(TEXTS)
    assert vectors.shape == (3, emb.dim) and emb.dim > 100
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert ollama.requests[-1][0] == "/api/embed"


def test_ollama_embedder_errors(ollama: FakeOllama) -> None:
    with pytest.raises(BackendError, match="not pulled; run `ollama pull nope:1b`"):
        build_embedder(EmbeddingSettings(backend="ollama", model="nope:1b", ollama_url=ollama.url))
    with pytest.raises(BackendError, match="no server at"):
        build_embedder(EmbeddingSettings(backend="ollama", model="x", ollama_url="http://127.0.0.1:9"))


WRITER = """
import sys
from pathlib import Path
import numpy as np
from nonseq.index.embed import RowMemo
from nonseq.index.vector_cache import VectorCache
cache = VectorCache(Path(sys.argv[1]), "tag", 4)
first = int(sys.argv[2])
keys = [RowMemo.key(str(i)) for i in range(first, first + 2_000)]
for start in range(0, 2_000, 50):
    cache.put(keys[start:start + 50], [np.full(4, float(i)) for i in range(first + start, first + start + 50)])
    cache.get(keys[max(0, start - 500):start])
print(cache.error or "ok", cache.skipped)
"""


def test_processes_writing_one_vector_cache_at_once_keep_every_vector_exactly(tmp_path: Path) -> None:
    """Team workers and night runs share the user's file: two writers at once, overlapping texts."""
    path = tmp_path / "v.sqlite"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(first)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for first in (0, 1_000)]
    said = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in said]
    reports = [out.split() for out, _ in said]
    assert [r[0] for r in reports] == ["ok", "ok"]
    skipped = sum(int(r[1]) for r in reports)  # a put that waited past the busy timeout keeps nothing
    cache = VectorCache(path, "tag", 4)
    got = cache.get([RowMemo.key(str(i)) for i in range(3_000)])
    kept = [i for i, row in enumerate(got) if row is not None]
    assert len(kept) >= 3_000 - skipped and len(cache) == len(kept)
    assert all(got[i].tolist() == [float(i)] * 4 for i in kept)  # each vector is its text's, whoever wrote it
