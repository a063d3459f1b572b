"""The other dense embedders: sentence-transformers (extra `torch`) and Ollama's /api/embed."""

from __future__ import annotations

import numpy as np
import pytest

from devkit.llm_servers import FakeOllama
from nonseq.config import EmbeddingSettings
from nonseq.errors import BackendError
from nonseq.index.embed import build_embedder

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


def test_the_bundled_model_gives_each_text_its_own_row_whatever_the_lengths() -> None:
    embedder = build_embedder(EmbeddingSettings(threads=1, batch_size=2))
    texts = ["A much longer sentence about axolotls regrowing whole limbs, bone and nerves included.",
             "Short.", "Stadia launched in November 2019.", "Mid-length text on the lunar south pole."]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    assert np.allclose(together, alone, atol=1e-5)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


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
