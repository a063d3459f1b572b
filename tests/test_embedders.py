"""The other dense embedders: sentence-transformers (extra `torch`) and Ollama's /api/embed."""

from __future__ import annotations

import numpy as np
import pytest

from devkit.llm_servers import FakeOllama
from nonseq.config import EmbeddingSettings
from nonseq.errors import BackendError
from nonseq.index.embed import FastEmbedEmbedder, RowMemo, build_embedder

TEXTS = ["The telescope saw water vapour above Europa.", "Interest rates rose again in March.",
         "Plumes of water erupt from Jupiter's icy moon."]


def test_sentence_transformers_agrees_with_the_bundled_onnx_model() -> None:
    onnx = build_embedder(EmbeddingSettings())
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
    embedder = FastEmbedEmbedder(EmbeddingSettings(threads=1, batch_size=2))
    embedder.memo = None  # every row from the model
    together = embedder.embed(LENGTHS)
    alone = np.vstack([embedder.embed([t]) for t in LENGTHS])
    assert np.array_equal(together, alone)
    assert np.array_equal(embedder.embed([*LENGTHS[::-1], LENGTHS[0]])[:4], together[::-1])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_a_text_embedded_again_is_not_run_again_and_gets_the_same_row() -> None:
    embedder = FastEmbedEmbedder(EmbeddingSettings(threads=1))
    ran: list[str] = []
    run = embedder._run
    embedder._run = lambda texts: (ran.extend(texts), run(texts))[1]  # type: ignore[method-assign]
    first = embedder.embed(LENGTHS[:2] + LENGTHS[:1])  # a text twice in one call runs once
    assert ran == LENGTHS[:2] and np.array_equal(first[0], first[2])
    again = embedder.embed(LENGTHS[::-1])
    assert ran == LENGTHS[:2] + LENGTHS[3:1:-1]  # only the two new texts ran
    assert np.array_equal(again[2:], first[1::-1])
    fresh = FastEmbedEmbedder(EmbeddingSettings(threads=1))
    fresh.memo = None
    assert np.array_equal(again, fresh.embed(LENGTHS[::-1]))


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
