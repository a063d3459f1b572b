"""Reranker models behind one interface (scores in [0,1]): cross-encoder, fastembed ONNX, a served
reranker over HTTP, bi-encoder."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from nonseq.cache import SHARED, ModelCache
from nonseq.config import RerankSettings
from nonseq.errors import BackendError
from nonseq.index.embed import normalize_rows

#: Characters of a passage kept before tokenising (the tokenizer then cuts to max_length).
CHARS_PER_TOKEN = 8

Vectors = Sequence[Sequence[float] | None] | None


class Reranker(Protocol):
    """Scores (query, passage) pairs in [0,1]; `offline` marks a fallback for a missing model."""

    name: str
    backend: str
    offline: bool
    note: str

    def score(self, query: str, passages: Sequence[str], vectors: Vectors = None) -> np.ndarray:
        """One score in [0,1] per passage (vectors: the passages' dense vectors, if known)."""
        ...


def sigmoid(logits: Any) -> np.ndarray:
    """Logistic function, numerically stable, as float64."""
    x = np.clip(np.asarray(logits, dtype=np.float64), -500, 500)
    return 1.0 / (1.0 + np.exp(-x))


def to_unit_scores(raw: Any) -> np.ndarray:
    """Model outputs to [0,1]: sigmoid of one logit; softmax's last column for two or more."""
    arr = np.asarray(raw, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim == 1:
        return sigmoid(arr)
    if arr.ndim == 2:
        shifted = np.exp(arr - arr.max(axis=1, keepdims=True))
        return shifted[:, -1] / shifted.sum(axis=1)
    raise BackendError(f"reranker returned scores of shape {arr.shape}; expected one per pair")


def truncate(text: str, max_tokens: int) -> str:
    """Cut a passage to roughly the model's window before tokenising (the tokenizer cuts exactly)."""
    limit = max(64, max_tokens * CHARS_PER_TOKEN)
    return text if len(text) <= limit else text[:limit]


def _hf_snapshot(model: str) -> Path | None:
    """The newest local snapshot of a Hugging Face model in the HF cache, if any."""
    try:
        from huggingface_hub.constants import HF_HUB_CACHE
    except ImportError:  # pragma: no cover - huggingface_hub comes with fastembed
        return None
    folder = Path(HF_HUB_CACHE) / f"models--{model.replace('/', '--')}" / "snapshots"
    snaps = sorted(folder.glob("*/config.json"), key=lambda p: p.stat().st_mtime) if (
        folder.is_dir()) else []
    return snaps[-1].parent if snaps else None


def model_source(settings: RerankSettings) -> Path:
    """The local folder of the cross-encoder: [rerank] model_path, else the HF cache."""
    if settings.model_path:
        path = Path(settings.model_path).expanduser()
        if not (path / "config.json").is_file():
            raise BackendError(f"no model in {path} (config.json missing)")
        return path
    local = Path(settings.model).expanduser()
    if (local / "config.json").is_file():
        return local
    snap = _hf_snapshot(settings.model)
    if snap is None:
        raise BackendError(f"{settings.model} is not in the Hugging Face cache")
    return snap


def how_to_fix(settings: RerankSettings) -> str:
    """Where to put the model folder so that the configured reranker loads offline."""
    try:
        from huggingface_hub.constants import HF_HUB_CACHE
    except ImportError:  # pragma: no cover
        HF_HUB_CACHE = "~/.cache/huggingface/hub"  # noqa: N806
    cache = Path(HF_HUB_CACHE) / f"models--{settings.model.replace('/', '--')}"
    return (f"copy the {settings.model} folder (config.json, tokenizer, weights) somewhere and set "
            f"[rerank] model_path to it, or put it in the Hugging Face cache at {cache}")


def _quiet_transformers() -> None:
    """No progress bars or info logs from transformers while loading a model."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except ImportError:  # pragma: no cover
        pass


class CrossEncoderReranker:
    """sentence-transformers CrossEncoder, loaded from a local folder only (extra `torch`)."""

    backend = "cross-encoder"

    def __init__(self, settings: RerankSettings) -> None:
        """Load the model from its local folder (BackendError when it cannot)."""
        source = model_source(settings)
        try:
            import torch
            from sentence_transformers import CrossEncoder
        except ImportError:
            raise BackendError("sentence-transformers is not installed (pip install "
                               "torch==2.13.0 'nonseq[torch]')") from None
        _quiet_transformers()
        try:
            model = CrossEncoder(str(source), device="cpu", local_files_only=True,
                                 max_length=settings.max_length)
        except Exception as exc:  # OSError, ValueError, HF errors
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise BackendError(f"cannot load cross-encoder {source}: {first}") from None
        window = getattr(model.config, "max_position_embeddings", settings.max_length)
        self.max_length = int(min(settings.max_length, window or settings.max_length))
        if hasattr(type(model), "max_seq_length"):
            model.max_seq_length = self.max_length
        else:  # pragma: no cover - older sentence-transformers
            model.max_length = self.max_length
        self._model, self._identity = model, torch.nn.Identity()
        self.batch_size = settings.batch_size
        self.name = f"cross-encoder:{settings.model if not settings.model_path else source.name}"
        self.offline, self.note = False, ""

    def score(self, query: str, passages: Sequence[str], vectors: Vectors = None) -> np.ndarray:
        """Raw logits of every pair, in batches, through a sigmoid."""
        if not passages:
            return np.zeros(0)
        pairs = [(query, truncate(p, self.max_length)) for p in passages]
        raw = self._model.predict(pairs, batch_size=self.batch_size, show_progress_bar=False,
                                  activation_fn=self._identity, convert_to_numpy=True)
        return to_unit_scores(raw)


class FastEmbedReranker:
    """fastembed TextCrossEncoder (ONNX), local files only; logits through a sigmoid."""

    backend = "fastembed"

    def __init__(self, settings: RerankSettings) -> None:
        """Load the ONNX model from local files (BackendError when it cannot)."""
        try:
            from fastembed.rerank.cross_encoder import TextCrossEncoder
        except ImportError:  # pragma: no cover - fastembed is a core dependency
            raise BackendError("fastembed is not installed") from None
        from nonseq.index.embed import quiet_fastembed

        quiet_fastembed()
        path = settings.model_path or (str(_hf_snapshot(settings.model) or ""))
        if not path and not os.environ.get("FASTEMBED_CACHE_PATH"):
            raise BackendError(f"{settings.model} is not in a local cache")
        try:
            self._model = TextCrossEncoder(settings.model, specific_model_path=path or None,
                                           threads=settings.threads or None,
                                           local_files_only=True)
        except Exception as exc:  # ValueError/OSError variants
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise BackendError(f"fastembed cannot load {settings.model!r} offline: {first}") from None
        self.max_length = settings.max_length
        self.batch_size = settings.batch_size
        self.name = f"fastembed:{settings.model}"
        self.offline, self.note = False, ""

    def score(self, query: str, passages: Sequence[str], vectors: Vectors = None) -> np.ndarray:
        """Raw logits through a sigmoid."""
        if not passages:
            return np.zeros(0)
        docs = [truncate(p, self.max_length) for p in passages]
        raw = list(self._model.rerank(query, docs, batch_size=self.batch_size))
        return to_unit_scores(np.asarray(raw, dtype=np.float64))


class BiEncoderReranker:
    """Cosine of query and passage embeddings (the workspace embedder), clipped to [0,1]."""

    backend = "bi-encoder"

    def __init__(self, embedder: Any, *, offline: bool = False, note: str = "") -> None:
        """Wrap the workspace embedder."""
        self._embedder = embedder
        self.name = f"bi-encoder:{embedder.name}"
        self.offline, self.note = offline, note

    def score(self, query: str, passages: Sequence[str], vectors: Vectors = None) -> np.ndarray:
        """Cosine with the stored vectors where given, else with fresh embeddings."""
        if not passages:
            return np.zeros(0)
        q = normalize_rows(self._embedder.embed_query(query))[0]
        given = list(vectors) if vectors is not None else [None] * len(passages)
        missing = [i for i, v in enumerate(given) if v is None]
        fresh = self._embedder.embed([passages[i] for i in missing]) if missing else []
        rows = [np.zeros_like(q) if v is None else np.asarray(v, dtype=np.float32) for v in given]
        for i, vec in zip(missing, fresh, strict=True):
            rows[i] = np.asarray(vec, dtype=np.float32)
        return np.clip(normalize_rows(np.stack(rows)) @ q, 0.0, 1.0).astype(np.float64)


class NullReranker:
    """No reranking: the pipeline keeps the pre-rank order."""

    backend = "none"

    def __init__(self, *, offline: bool = True, note: str = "reranking disabled") -> None:
        """No model at all."""
        self.name = "none"
        self.offline, self.note = offline, note

    def score(self, query: str, passages: Sequence[str], vectors: Vectors = None) -> np.ndarray:
        """Refuses: the pipeline skips the rerank step for this backend."""
        raise BackendError("reranking is disabled ([rerank] backend = none)")


#: [rerank] backend -> the class that loads that model (bi-encoder and none need no model).
BACKENDS: dict[str, Callable[[RerankSettings], Reranker]] = {
    "cross-encoder": CrossEncoderReranker,
    "fastembed": FastEmbedReranker,
}
#: Backends that can fail to load and then run the fallback.
LOADED = ("cross-encoder", "fastembed", "http")


def fallback_reranker(settings: RerankSettings, embedder: Any, exc: Exception) -> Reranker:
    """The [rerank] fallback, marked offline, its note saying why and how to fix it."""
    from nonseq.index.served import how_to_reach

    fix = how_to_reach(settings) if settings.backend == "http" else how_to_fix(settings)
    note = f"reranker offline: {exc}; using the {settings.fallback} fallback (to fix: {fix})"
    if settings.fallback == "bi-encoder":
        return BiEncoderReranker(embedder, offline=True, note=note)
    return NullReranker(offline=True, note=note)


def build_reranker(settings: RerankSettings, embedder: Any, cache: ModelCache = SHARED,
                   warn: Callable[[str], None] | None = None) -> Reranker:
    """The configured reranker; a model that cannot be loaded falls back (marked offline, with a note).

    A served reranker (http) is asked once here; if it stops answering later, it switches to the
    fallback then (saying so through `warn`).
    """
    if settings.backend == "bi-encoder":
        return BiEncoderReranker(embedder)
    if settings.backend == "none":
        return NullReranker(offline=True, note="reranking disabled ([rerank] backend = none)")
    try:
        if settings.backend == "http":
            from nonseq.index.served import HttpReranker

            served = HttpReranker(settings, lambda exc: fallback_reranker(settings, embedder, exc), warn)
            served.probe()
            return served
        return cache.get("reranker", settings.model_dump_json(), lambda: BACKENDS[settings.backend](settings))
    except BackendError as exc:
        return fallback_reranker(settings, embedder, exc)


def fell_back(settings: RerankSettings, reranker: Reranker) -> bool:
    """True when the configured model could not be loaded (or served) and a fallback runs instead."""
    return reranker.offline and settings.backend in LOADED


def check_reranker(reranker: Reranker) -> str:
    """Doctor: which reranker loaded, or that it runs offline and how to fix that."""
    if reranker.backend != "none":
        reranker.score("health check", ["a passage about health checks"])
    if reranker.offline:
        return f"OFFLINE, using {reranker.name}: {reranker.note}"
    where = getattr(reranker, "where", "")
    return f"{reranker.name} answers at {where}" if where else f"{reranker.name} loaded"
