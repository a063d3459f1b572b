"""The vector store over qdrant-client: embedded on disk by default, a server by URL."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nonseq.errors import BackendError, ModelMismatchError, UsageError, WorkspaceBusyError
from nonseq.models import Chunk

DENSE = "dense"
SPARSE = "sparse"
TRIGGER = "trigger_dense"
RRF_K = 60
_NAME_RE = re.compile(r"[^a-z0-9_]+")


def safe_name(name: str) -> str:
    """Normalise a category or persona name into a safe collection-name part."""
    cleaned = _NAME_RE.sub("_", name.strip().lower().replace("-", "_")).strip("_")
    if not cleaned or len(cleaned) > 60:
        raise UsageError(f"invalid name {name!r}: use 1-60 letters, digits, - or _")
    return cleaned


def research_collection(category: str) -> str:
    """The research collection of a category."""
    return f"research_{safe_name(category)}"


def knowledge_collection(category: str) -> str:
    """The permanent knowledge collection of a category."""
    return f"knowledge_{safe_name(category)}"


EVERGREEN = "knowledge_evergreen"


def persona_collection(name: str) -> str:
    """The voice collection of a persona."""
    return f"persona_{safe_name(name)}"


@dataclass
class StoredPoint:
    """A point read back from the store."""

    id: str
    chunk: Chunk
    score: float = 0.0
    vectors: dict[str, Any] = field(default_factory=dict)


def _filter(match: dict[str, Any] | None) -> Any:
    """A Qdrant filter that matches every key/value pair given."""
    from qdrant_client import models

    if not match:
        return None
    return models.Filter(
        must=[models.FieldCondition(key=k, match=models.MatchValue(value=v))
              for k, v in match.items()]
    )


class VectorStore:
    """Collections of chunks with dense, sparse and trigger vectors."""

    def __init__(self, *, path: Path | None = None, url: str = "", api_key: str = "",
                 batch_size: int = 128, timeout: float = 30.0) -> None:
        from qdrant_client import QdrantClient

        self.batch_size = batch_size
        self.location = url or str(path)
        #: Bumped by every write (upsert, delete, drop): retrieval's cache key (see
        #: nonseq.retrieval.pipeline.invalidate).
        self.generation = 0
        self.remote = bool(url)
        try:
            if url:
                self.client = QdrantClient(url=url, api_key=api_key or None, timeout=int(timeout))
            else:
                assert path is not None
                path.mkdir(parents=True, exist_ok=True)
                self.client = QdrantClient(path=str(path))
        except RuntimeError as exc:
            if "already accessed" in str(exc):
                raise WorkspaceBusyError(
                    f"workspace in use by another nonseq process (Qdrant folder {path})"
                ) from None
            raise BackendError(f"qdrant: {exc}") from None

    def close(self) -> None:
        """Release the store (and the embedded folder's lock)."""
        self.client.close()

    def exists(self, name: str) -> bool:
        """True when the collection exists."""
        return self.client.collection_exists(name)

    def collections(self) -> list[str]:
        """Names of all collections."""
        return sorted(c.name for c in self.client.get_collections().collections)

    def ensure(self, name: str, dim: int, model: str, trigger: bool = False) -> None:
        """Create the collection if needed; refuse one built with another embedding model."""
        from qdrant_client import models

        if self.exists(name):
            meta = self.metadata(name)
            if meta.get("model") not in (None, model) or meta.get("dim") not in (None, dim):
                raise ModelMismatchError(
                    f"collection {name} was built with {meta.get('model')} "
                    f"({meta.get('dim')} dims), but the embedder is {model} ({dim} dims); "
                    f"run `nonseq reembed {name}` or switch [embedding] back"
                )
            return
        vectors = {DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)}
        if trigger:
            vectors[TRIGGER] = models.VectorParams(size=dim, distance=models.Distance.COSINE)
        self.client.create_collection(
            name,
            vectors_config=vectors,
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            metadata={"model": model, "dim": dim, "trigger": trigger},
        )
        if self.remote and not name.startswith("persona_"):
            for key in ("topic_slug", "category", "url"):
                self.client.create_payload_index(name, key, models.PayloadSchemaType.KEYWORD)

    def metadata(self, name: str) -> dict[str, Any]:
        """The embedding model and dimension recorded on a collection."""
        info = self.client.get_collection(name)
        return dict(info.config.metadata or {})

    def upsert(self, name: str, chunks: Sequence[Chunk], dense: Sequence[Sequence[float]] | Any,
               sparse: Sequence[Any], trigger: Sequence[Sequence[float]] | Any | None = None) -> int:
        """Write chunks with their vectors in batches; returns the number written."""
        from qdrant_client import models

        if not (len(chunks) == len(dense) == len(sparse)):
            raise ValueError("chunks, dense and sparse must have the same length")
        points = []
        for i, chunk in enumerate(chunks):
            vector: dict[str, Any] = {DENSE: list(map(float, dense[i])), SPARSE: sparse[i]}
            if trigger is not None:
                vector[TRIGGER] = list(map(float, trigger[i]))
            points.append(models.PointStruct(id=chunk.point_id(), vector=vector,
                                             payload=chunk.to_payload()))
        self.generation += 1
        for start in range(0, len(points), self.batch_size):
            self.client.upsert(name, points[start:start + self.batch_size], wait=True)
        return len(points)

    def count(self, name: str, match: dict[str, Any] | None = None) -> int:
        """Exact number of points (0 for a missing collection)."""
        if not self.exists(name):
            return 0
        return self.client.count(name, count_filter=_filter(match), exact=True).count

    def scroll_all(self, name: str, match: dict[str, Any] | None = None,
                   vectors: bool | Sequence[str] = False) -> list[StoredPoint]:
        """Every matching point in ONE scroll call (local mode re-sorts ids on each page)."""
        total = self.count(name, match)
        if total == 0:
            return []
        with_vectors: bool | list[str] = list(vectors) if isinstance(vectors, list | tuple) else bool(vectors)
        records, _ = self.client.scroll(name, scroll_filter=_filter(match), limit=total + 1,
                                        with_payload=True, with_vectors=with_vectors)
        return [self._point(r) for r in records]

    def delete(self, name: str, match: dict[str, Any]) -> None:
        """Delete the points matching a filter (nothing happens for a missing collection)."""
        from qdrant_client import models

        if not match:
            raise ValueError("refusing to delete without a filter")
        self.generation += 1
        if self.exists(name):
            self.client.delete(name, points_selector=models.FilterSelector(filter=_filter(match)),
                               wait=True)

    def delete_where(self, name: str, must: dict[str, Any], *,
                     must_any: dict[str, Sequence[Any]] | None = None,
                     must_not_any: dict[str, Sequence[Any]] | None = None) -> int:
        """Delete points matching every `must` value, one of each `must_any` list and none of each
        `must_not_any` list; returns how many went (0 for a missing collection)."""
        from qdrant_client import models

        if not must:
            raise ValueError("refusing to delete without a filter")
        if not self.exists(name):
            return 0
        cond = models.FieldCondition
        flt = models.Filter(
            must=[cond(key=k, match=models.MatchValue(value=v)) for k, v in must.items()]
            + [cond(key=k, match=models.MatchAny(any=list(v))) for k, v in (must_any or {}).items()],
            must_not=[cond(key=k, match=models.MatchAny(any=list(v)))
                      for k, v in (must_not_any or {}).items()],
        )
        count = self.client.count(name, count_filter=flt, exact=True).count
        if count:
            self.generation = getattr(self, "generation", 0) + 1
            self.client.delete(name, points_selector=models.FilterSelector(filter=flt), wait=True)
        return count

    def move(self, source: str, target: str, match: dict[str, Any],
             payload: dict[str, Any] | None = None) -> int:
        """Move matching points (vectors kept, payload keys updated) into another collection.

        The copy is written before the originals are deleted, so an interruption loses nothing.
        """
        from qdrant_client import models

        points = self.scroll_all(source, match, vectors=True)
        if not points:
            return 0
        meta = self.metadata(source)
        self.ensure(target, int(meta["dim"]), str(meta["model"]), trigger=bool(meta.get("trigger")))
        structs = [models.PointStruct(id=p.id, vector=p.vectors,
                                      payload={**p.chunk.to_payload(), **(payload or {})})
                   for p in points]
        for start in range(0, len(structs), self.batch_size):
            self.client.upsert(target, structs[start:start + self.batch_size], wait=True)
        self.delete(source, match)
        return len(structs)

    def drop(self, name: str) -> None:
        """Delete a whole collection."""
        self.generation += 1
        if self.exists(name):
            self.client.delete_collection(name)

    def search(self, name: str, vector: Sequence[float] | Any, using: str = DENSE,
               limit: int = 10, match: dict[str, Any] | None = None,
               vectors: bool = False) -> list[StoredPoint]:
        """Nearest points by one named vector (dense, trigger_dense or sparse)."""
        if not self.exists(name):
            return []
        query: Any = vector if using == SPARSE else list(map(float, vector))
        res = self.client.query_points(name, query=query, using=using, limit=limit,
                                       query_filter=_filter(match), with_payload=True,
                                       with_vectors=vectors)
        return [self._point(p) for p in res.points]

    def hybrid(self, name: str, dense: Sequence[float], sparse: Any, limit: int = 20,
               match: dict[str, Any] | None = None, depth: int = 100,
               vectors: bool = False) -> list[StoredPoint]:
        """Dense + sparse prefetch fused with RRF (k=60) inside Qdrant."""
        from qdrant_client import models

        if not self.exists(name):
            return []
        flt = _filter(match)
        res = self.client.query_points(
            name,
            prefetch=[
                models.Prefetch(query=list(map(float, dense)), using=DENSE, limit=depth,
                                filter=flt),
                models.Prefetch(query=sparse, using=SPARSE, limit=depth, filter=flt),
            ],
            query=models.RrfQuery(rrf=models.Rrf(k=RRF_K)),
            limit=limit,
            with_payload=True,
            with_vectors=vectors,
        )
        return [self._point(p) for p in res.points]

    @staticmethod
    def _point(record: Any) -> StoredPoint:
        """A StoredPoint from a qdrant Record or ScoredPoint."""
        vecs = record.vector if isinstance(record.vector, dict) else {}
        return StoredPoint(id=str(record.id), chunk=Chunk.from_payload(record.payload or {}),
                           score=float(getattr(record, "score", 0.0) or 0.0), vectors=vecs)

