"""The vector store: one interface over two engines, so the rest of the code cannot tell them apart.

- qdrant-edge (nonseq.index.edge): Qdrant's embedded engine, on disk in `[qdrant] path` (the default);
- a Qdrant server or cluster by `[qdrant] url` (nonseq.index.server, over qdrant-client).

`nonseq.index.store_engines.open_store` picks one. Both keep collections of chunks with dense, sparse and
(personas) trigger vectors, keyword payload indexes on the filtered keys, and rebuild a collection beside the live one
(`rebuild`), switching only when the copy is complete.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from nonseq.errors import ModelMismatchError, UsageError
from nonseq.models import Chunk

DENSE = "dense"
SPARSE = "sparse"
TRIGGER = "trigger_dense"
RRF_K = 60
#: Keyword payload indexes of every non-persona collection (a topic's points, deletes by fact uid).
INDEXED_KEYS = ("topic_slug", "category", "url", "fact_uid")
#: Points per page when a whole collection is read (bounded memory).
PAGE = 1024
_NAME_RE = re.compile(r"[^a-z0-9_]+")
#: (point id, named vectors, payload): a point as one engine hands it to another.
RawPoint = tuple[str, dict[str, Any], dict[str, Any]]


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


def chunk_points(chunks: Sequence[Chunk], dense: Sequence[Sequence[float]] | Any, sparse: Sequence[Any],
                 trigger: Sequence[Sequence[float]] | Any | None = None) -> list[RawPoint]:
    """Raw points of chunks: deterministic ids, named vectors (dense as floats), payloads."""
    if not (len(chunks) == len(dense) == len(sparse)):
        raise ValueError("chunks, dense and sparse must have the same length")
    points = []
    for i, chunk in enumerate(chunks):
        vectors: dict[str, Any] = {DENSE: [float(x) for x in dense[i]], SPARSE: sparse[i]}
        if trigger is not None:
            vectors[TRIGGER] = [float(x) for x in trigger[i]]
        points.append((chunk.point_id(), vectors, chunk.to_payload()))
    return points


def mismatch_message(name: str, meta: dict[str, Any], model: str, dim: int) -> str:
    """Why a collection cannot take this embedder's vectors, and the fix."""
    return (f"collection {name} was built with {meta.get('model')} ({meta.get('dim')} dims), but the "
            f"embedder is {model} ({dim} dims); run `nonseq reembed {name}` or switch [embedding] back")


class Staging(ABC):
    """A collection being rebuilt beside the live one: written in full, then switched in by `commit`.

    Until `commit` returns the live collection is untouched and readable; a failure or a kill leaves
    it as it was, and the next rebuild starts the copy afresh.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.written = 0

    @abstractmethod
    def write_points(self, points: Iterable[RawPoint]) -> int:
        """Add raw points to the copy; returns how many."""

    def upsert(self, chunks: Sequence[Chunk], dense: Sequence[Sequence[float]] | Any, sparse: Sequence[Any],
               trigger: Sequence[Sequence[float]] | Any | None = None) -> int:
        """Add chunks with their vectors to the copy; returns how many."""
        return self.write_points(chunk_points(chunks, dense, sparse, trigger))

    @abstractmethod
    def point_ids(self) -> set[str]:
        """Every point id written to the copy so far."""

    @abstractmethod
    def mark_complete(self) -> None:
        """Record that the copy is whole: from here a kill still ends with the copy switched in."""

    @abstractmethod
    def switch_in(self) -> None:
        """Make the complete copy the live collection (the old one is removed)."""

    def commit(self) -> None:
        """Switch the live collection to the complete copy (the old one is removed)."""
        self.mark_complete()
        self.switch_in()

    @abstractmethod
    def abort(self) -> None:
        """Throw the copy away (the live collection stays as it was)."""

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is None:
            self.commit()
        elif issubclass(kind, Exception):
            self.abort()  # a kill or Ctrl-C leaves the copy: the next rebuild replaces it


class VectorStore(ABC):
    """Collections of chunks with dense, sparse and trigger vectors (see the module docstring)."""

    #: True for a server reached over the network.
    remote = False

    def __init__(self, location: str, batch_size: int = 128) -> None:
        self.location = location
        self.batch_size = batch_size
        #: Bumped by every write (upsert, delete, drop): retrieval's cache key (see
        #: nonseq.retrieval.pipeline.invalidate).
        self.generation = 0

    # -- the engine --------------------------------------------------------------------------
    @abstractmethod
    def close(self) -> None:
        """Release the store (and the embedded folder's lock)."""

    @abstractmethod
    def exists(self, name: str) -> bool:
        """True when the collection exists."""

    @abstractmethod
    def collections(self) -> list[str]:
        """Names of all collections."""

    @abstractmethod
    def create(self, name: str, dim: int, trigger: bool, meta: dict[str, Any]) -> None:
        """Create a collection with its vectors, payload indexes and metadata."""

    @abstractmethod
    def metadata(self, name: str) -> dict[str, Any]:
        """The embedding model and dimension recorded on a collection (ValueError when missing)."""

    @abstractmethod
    def write_points(self, name: str, points: Iterable[RawPoint]) -> int:
        """Upsert raw points in batches; returns how many."""

    @abstractmethod
    def count(self, name: str, match: dict[str, Any] | None = None) -> int:
        """Exact number of points (0 for a missing collection)."""

    @abstractmethod
    def iter_points(self, name: str, match: dict[str, Any] | None = None,
                    vectors: bool | Sequence[str] = False, page: int = PAGE) -> Iterator[StoredPoint]:
        """Matching points page by page, in id order (nothing for a missing collection)."""

    @abstractmethod
    def point_ids(self, name: str) -> set[str]:
        """Every point id of a collection (empty for a missing one)."""

    @abstractmethod
    def _delete_where(self, name: str, must: dict[str, Any], must_any: dict[str, Sequence[Any]],
                      must_not_any: dict[str, Sequence[Any]]) -> int:
        """Count and delete the matching points of an existing collection (see delete_where)."""

    @abstractmethod
    def drop(self, name: str) -> None:
        """Delete a whole collection."""

    @abstractmethod
    def _search(self, name: str, vector: Sequence[float] | Any, using: str, limit: int,
                match: dict[str, Any] | None, vectors: bool) -> list[StoredPoint]:
        """Nearest points of an existing collection by one named vector (see search)."""

    @abstractmethod
    def _hybrid(self, name: str, dense: Sequence[float], sparse: Any, limit: int,
                match: dict[str, Any] | None, depth: int, vectors: bool) -> list[StoredPoint]:
        """Dense + sparse RRF over an existing collection (see hybrid)."""

    @abstractmethod
    def rebuild(self, name: str, dim: int, model: str | None, trigger: bool = False) -> Staging:
        """Start a copy of `name` beside it (see Staging); the live collection is untouched until commit."""

    @abstractmethod
    def engine(self) -> str:
        """Which engine this is, for people (and a check that it answers)."""

    @abstractmethod
    def vector_config(self, name: str) -> dict[str, Any]:
        """{"dense": {vector: (size, distance)}, "sparse": [names]} of a collection, as the engine has it."""

    @abstractmethod
    def workspace_id(self) -> str:
        """The id of the workspace this store belongs to ("" before one is recorded)."""

    @abstractmethod
    def set_workspace_id(self, workspace: str) -> None:
        """Record the workspace this store belongs to."""

    # -- shared behaviour --------------------------------------------------------------------
    def ensure(self, name: str, dim: int, model: str, trigger: bool = False) -> None:
        """Create the collection if needed; refuse one built with another embedding model.

        Another worker on the same server may create it between the look and the create: the
        server's refusal is then no error, and the collection it made is checked like any other."""
        if not self.exists(name):
            try:
                self.create(name, dim, trigger, {"model": model, "dim": dim, "trigger": trigger})
                return
            except Exception:
                if not self.exists(name):
                    raise
        meta = self.metadata(name)
        if meta.get("model") not in (None, model) or meta.get("dim") not in (None, dim):
            raise ModelMismatchError(mismatch_message(name, meta, model, dim))

    def upsert(self, name: str, chunks: Sequence[Chunk], dense: Sequence[Sequence[float]] | Any,
               sparse: Sequence[Any], trigger: Sequence[Sequence[float]] | Any | None = None) -> int:
        """Write chunks with their vectors in batches; returns the number written."""
        points = chunk_points(chunks, dense, sparse, trigger)
        self.generation += 1
        return self.write_points(name, points)

    def scroll_all(self, name: str, match: dict[str, Any] | None = None,
                   vectors: bool | Sequence[str] = False) -> list[StoredPoint]:
        """Every matching point, in id order."""
        return list(self.iter_points(name, match, vectors))

    def delete(self, name: str, match: dict[str, Any]) -> None:
        """Delete the points matching a filter (nothing happens for a missing collection)."""
        if not match:
            raise ValueError("refusing to delete without a filter")
        self.generation += 1
        self.delete_where(name, match)

    def delete_where(self, name: str, must: dict[str, Any], *,
                     must_any: dict[str, Sequence[Any]] | None = None,
                     must_not_any: dict[str, Sequence[Any]] | None = None) -> int:
        """Delete points matching every `must` value, one of each `must_any` list and none of each
        `must_not_any` list; returns how many went (0 for a missing collection)."""
        if not must:
            raise ValueError("refusing to delete without a filter")
        if not self.exists(name):
            return 0
        return self._delete_where(name, must, must_any or {}, must_not_any or {})

    def search(self, name: str, vector: Sequence[float] | Any, using: str = DENSE,
               limit: int = 10, match: dict[str, Any] | None = None,
               vectors: bool = False) -> list[StoredPoint]:
        """Nearest points by one named vector (dense, trigger_dense or sparse); none for a missing collection."""
        return self._search(name, vector, using, limit, match, vectors) if self.exists(name) else []

    def hybrid(self, name: str, dense: Sequence[float], sparse: Any, limit: int = 20,
               match: dict[str, Any] | None = None, depth: int = 100,
               vectors: bool = False) -> list[StoredPoint]:
        """Dense + sparse prefetch fused with RRF (k=60) inside the engine; none for a missing collection."""
        return self._hybrid(name, dense, sparse, limit, match, depth, vectors) if self.exists(name) else []

    def has_points(self) -> bool:
        """True when any collection holds a point."""
        return any(self.count(name) for name in self.collections())

    def copy(self, source: str, target: str, match: dict[str, Any],
             payload: dict[str, Any] | None = None) -> int:
        """Copy matching points (vectors kept, payload keys updated) into another collection."""
        if not self.count(source, match):
            return 0
        meta = self.metadata(source)
        self.ensure(target, int(meta["dim"]), str(meta["model"]), trigger=bool(meta.get("trigger")))
        self.generation += 1
        return self.write_points(target, ((p.id, p.vectors, {**p.chunk.to_payload(), **(payload or {})})
                                          for p in self.iter_points(source, match, vectors=True)))

    def move(self, source: str, target: str, match: dict[str, Any],
             payload: dict[str, Any] | None = None) -> int:
        """Move matching points into another collection: the copy is complete before the originals go."""
        moved = self.copy(source, target, match, payload)
        if moved:
            self.delete(source, match)
        return moved
