"""Rerankers: [0,1] scores, the offline fallback, and the real CrossEncoder code path (tiny model)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from nonseq.cache import ModelCache
from nonseq.config import RerankSettings
from nonseq.errors import BackendError
from nonseq.index.embed import ASSETS
from nonseq.index.rerankers import (
    BiEncoderReranker,
    CrossEncoderReranker,
    FastEmbedReranker,
    build_reranker,
    check_reranker,
    sigmoid,
    to_unit_scores,
)


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 2-layer, 32-wide BERT cross-encoder with the bundled MiniLM tokenizer, saved locally."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    folder = tmp_path_factory.mktemp("tiny-ce")
    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64,
                        max_position_embeddings=128, num_labels=1)
    BertForSequenceClassification(config).save_pretrained(folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(ASSETS / name, folder / name)
    return folder


@pytest.fixture
def models() -> ModelCache:
    """No model loaded yet."""
    return ModelCache()


class FakeEmbedder:
    """A deterministic embedder: a bag of letters."""

    name, dim, max_tokens = "fake", 26, 256

    def embed(self, texts: list[str]) -> np.ndarray:
        """One letter histogram per text."""
        out = np.zeros((len(texts), 26), dtype=np.float32)
        for i, text in enumerate(texts):
            for ch in text.lower():
                if "a" <= ch <= "z":
                    out[i, ord(ch) - 97] += 1
        return out

    def embed_query(self, text: str) -> np.ndarray:
        """The query's histogram."""
        return self.embed([text])[0]


def test_sigmoid_maps_logits_into_unit_interval() -> None:
    """Logits go through a sigmoid; two-column outputs through a softmax."""
    np.testing.assert_allclose(sigmoid([0.0]), [0.5])
    out = to_unit_scores([-1000.0, 0.0, 3.0, 1000.0])
    assert out[0] == pytest.approx(0.0) and out[-1] == pytest.approx(1.0)
    assert out[2] == pytest.approx(1 / (1 + np.exp(-3.0)))
    assert to_unit_scores([[2.0], [-2.0]]).shape == (2,)
    np.testing.assert_allclose(to_unit_scores([[0.0, 0.0]]), [0.5])
    with pytest.raises(BackendError):
        to_unit_scores(np.zeros((2, 2, 2)))


def test_offline_fallback_is_marked_with_the_fix(capsys: pytest.CaptureFixture[str], models: ModelCache) -> None:
    """A model that is not on disk: bi-encoder fallback, offline=True, a note naming the model and
    the fix (the workspace prints it once; the builder prints nothing), and no failed load kept."""
    settings = RerankSettings()  # BAAI/bge-reranker-v2-m3, not available here
    first = build_reranker(settings, FakeEmbedder(), models)
    second = build_reranker(settings, FakeEmbedder(), models)
    assert capsys.readouterr().err == "" and len(models) == 0
    for r in (first, second):
        assert isinstance(r, BiEncoderReranker) and r.offline and "offline" in r.note
        assert "bge-reranker-v2-m3" in r.note and "model_path" in r.note
    none = build_reranker(settings.model_copy(update={"fallback": "none"}), FakeEmbedder(), models)
    assert none.backend == "none" and none.offline


def test_missing_model_path_and_fastembed_offline() -> None:
    """A model_path without a model, and fastembed without its files, both fall back."""
    bad = build_reranker(RerankSettings(model_path="/nonexistent/ce"), FakeEmbedder(), ModelCache())
    assert bad.offline and "config.json" in bad.note
    fe = build_reranker(RerankSettings(backend="fastembed"), FakeEmbedder(), ModelCache())
    assert fe.offline and fe.backend == "bi-encoder"


def test_fastembed_backend_applies_sigmoid(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """fastembed returns raw logits: they come out through a sigmoid, batched as configured."""
    calls: list[tuple[str, list[str], int]] = []

    class FakeCrossEncoder:
        def __init__(self, model: str, **kwargs: object) -> None:
            assert kwargs["local_files_only"] is True

        def rerank(self, query: str, docs: list[str], batch_size: int) -> list[float]:
            calls.append((query, docs, batch_size))
            return [-2.0, 0.0, 5.0]

    import fastembed.rerank.cross_encoder as fe

    monkeypatch.setattr(fe, "TextCrossEncoder", FakeCrossEncoder)
    r = FastEmbedReranker(RerankSettings(backend="fastembed", model_path=str(tmp_path),
                                         batch_size=7, max_length=16))
    out = r.score("q", ["a", "b", "c" * 1000])
    np.testing.assert_allclose(out, sigmoid([-2.0, 0.0, 5.0]))
    assert calls[0][2] == 7 and len(calls[0][1][2]) < 1000  # truncated to the window


def test_bi_encoder_uses_stored_vectors_and_clips() -> None:
    """Cosine in [0,1]; stored vectors are used as given, missing ones embedded."""
    emb = FakeEmbedder()
    r = BiEncoderReranker(emb)
    stored = [list(emb.embed_query("abc")), None]
    out = r.score("abc", ["zzz", "xyz"], stored)
    assert out[0] == pytest.approx(1.0) and 0.0 <= out[1] < 1.0
    assert r.score("q", []).size == 0


def test_tiny_cross_encoder_plumbing(tiny_cross_encoder: Path, models: ModelCache) -> None:
    """The real sentence-transformers path: local folder, window cut, batches, [0,1] scores."""
    settings = RerankSettings(model_path=str(tiny_cross_encoder), batch_size=2, max_length=512)
    r = build_reranker(settings, FakeEmbedder(), models)
    assert isinstance(r, CrossEncoderReranker) and not r.offline
    assert r.max_length == 128  # cut to the model's position window
    passages = ["short", "x " * 5000, "another passage", "a fourth one", "fifth"]
    out = r.score("a query about something", passages)
    assert out.shape == (5,) and np.all((out >= 0) & (out <= 1))
    assert r.score("q", []).size == 0
    assert build_reranker(settings, FakeEmbedder(), models) is r  # loaded once per cache (process)


def test_cross_encoder_import_error_is_a_backend_error(monkeypatch: pytest.MonkeyPatch,
                                                       tiny_cross_encoder: Path) -> None:
    """Without sentence-transformers the load fails with a one-line BackendError (then fallback)."""
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "sentence_transformers":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(BackendError, match="not installed"):
        CrossEncoderReranker(RerankSettings(model_path=str(tiny_cross_encoder)))


def test_doctor_reports_the_reranker(ws, tiny_cross_encoder: Path) -> None:  # noqa: ANN001
    """The doctor check names the fallback and the fix, or the loaded model."""
    from nonseq.pipeline.doctor import CHECKS

    detail = CHECKS["reranker"](ws)
    assert "OFFLINE" in detail and "model_path" in detail
    ws.settings.rerank.model_path = str(tiny_cross_encoder)
    detail = CHECKS["reranker"](ws)
    assert "loaded" in detail and "tiny" in detail
    assert check_reranker(build_reranker(ws.settings.rerank, FakeEmbedder(), ModelCache())) == detail


def test_pipeline_with_the_tiny_cross_encoder(ws, tiny_cross_encoder: Path) -> None:  # noqa: ANN001
    """A loaded cross-encoder: the run is not offline and its scores are used as they are."""
    from nonseq.index.vector_store import research_collection
    from nonseq.models import Chunk, Topic
    from nonseq.retrieval.pipeline import retrieve

    ws.settings.rerank.model_path = str(tiny_cross_encoder)
    texts = ["Tidal turbines sit on the sea floor.", "Tidal range power uses lagoons.",
             "Cats sleep most of the day."]
    ws.indexer.index(research_collection("climate"),
                 [Chunk(text=t, topic_slug="tidal", category="climate", url=f"https://s{i}.org")
                  for i, t in enumerate(texts)])
    pack = retrieve(ws, Topic(title="Tidal power", slug="tidal", category="climate"))
    assert not pack.reranker_offline and pack.reranker.startswith("cross-encoder")
    assert len(pack.pool) == 3 and not pack.notes
    for c in pack.pool:
        assert 0.0 <= c.scores["rerank"] <= 1.0
        assert c.scores["fused"] == c.scores["rerank"]  # fusion auto: none for cross-encoders
    from nonseq.config import GateSettings
    from nonseq.pipeline.gate import evaluate

    settings = GateSettings(min_chunks=1, min_domains=1, min_mean_score=0.25,
                            min_mean_score_bi_encoder=0.99)
    quality = next(c for c in evaluate(pack, settings).checks if c.name == "quality")
    assert quality.backend == "cross-encoder" and quality.threshold == 0.25  # not the bi-encoder's
    assert not quality.skipped
    top = sorted((c.scores["rerank"] for c in pack.pool), reverse=True)
    assert quality.value == pytest.approx(sum(top) / len(top), abs=1e-4)
    assert quality.passed is (quality.value >= 0.25)


def test_backend_none_keeps_the_prerank_order(ws) -> None:  # noqa: ANN001
    """[rerank] backend = none: no rerank scores, the BM25 order stands, marked offline."""
    from nonseq.index.vector_store import research_collection
    from nonseq.models import Chunk, Topic
    from nonseq.retrieval.pipeline import retrieve

    ws.settings.rerank.backend = "none"
    texts = ["Tidal power tidal power tidal lagoons.", "Tidal power.", "Cats sleep."]
    ws.indexer.index(research_collection("climate"),
                 [Chunk(text=t, topic_slug="tidal", category="climate", url=f"https://s{i}.org")
                  for i, t in enumerate(texts)])
    pack = retrieve(ws, Topic(title="Tidal power", slug="tidal", category="climate"))
    assert pack.reranker_offline and pack.reranker == "none"
    assert all("rerank" not in c.scores for c in pack.pool)
    assert [c.chunk.text for c in pack.research][-1] == "Cats sleep."
