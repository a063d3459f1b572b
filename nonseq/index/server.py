"""The store on a Qdrant server or cluster (`[qdrant] url`), over qdrant-client's REST API.

A rebuilt collection is a new physical collection `<name>-r<n>` (a name our collections never
take: safe_name turns "-" into "_"), switched in by pointing the alias `<name>` at it in one alias
request; the old one is deleted after. Until the switch the live collection is untouched. Every
call resolves a name through the aliases, so callers only ever see `<name>`.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from nonseq.errors import BackendError
from nonseq.index.vector_store import (
    DENSE,
    INDEXED_KEYS,
    PAGE,
    RRF_K,
    SPARSE,
    TRIGGER,
    RawPoint,
    Staging,
    StoredPoint,
    VectorStore,
)
from nonseq.models import Chunk

#: The collection whose metadata records the workspace this server's collections belong to.
WORKSPACE_COLLECTION = "nonseq_workspace"
_COPY_RE = re.compile(r"^(?P<name>[a-z0-9_]+)-r(?P<n>\d+)$")


def qdrant_filter(must: dict[str, Any] | None = None, *, must_any: dict[str, Sequence[Any]] | None = None,
                  must_not_any: dict[str, Sequence[Any]] | None = None) -> Any:
    """A Qdrant filter: every `must` value, one of each `must_any` list, none of each `must_not_any` list."""
    from qdrant_client import models

    if not (must or must_any or must_not_any):
        return None
    cond = models.FieldCondition
    positive = [cond(key=k, match=models.MatchValue(value=v)) for k, v in (must or {}).items()]
    positive += [cond(key=k, match=models.MatchAny(any=list(v))) for k, v in (must_any or {}).items()]
    negative = [cond(key=k, match=models.MatchAny(any=list(v))) for k, v in (must_not_any or {}).items()]
    return models.Filter(must=positive or None, must_not=negative or None)


def server_sparse(vector: Any) -> Any:  # qdrant_client.models.SparseVector
    """A qdrant-client SparseVector from anything with `indices` and `values` (a SparseTerms)."""
    from qdrant_client import models

    return models.SparseVector(indices=[int(i) for i in vector.indices], values=[float(v) for v in vector.values])


def _vectors(vectors: dict[str, Any]) -> dict[str, Any]:
    """Named vectors for a PointStruct: dense as lists of floats, sparse as qdrant-client SparseVectors."""
    return {name: server_sparse(vec) if hasattr(vec, "indices") else [float(x) for x in vec]
            for name, vec in vectors.items()}


def _number(physical: str) -> int:
    """The copy number of a physical collection: n of `<name>-r<n>`, 0 for a plain one, -1 for none."""
    found = _COPY_RE.match(physical)
    return int(found.group("n")) if found else (0 if physical else -1)


def _point(record: Any) -> StoredPoint:
    """A StoredPoint from a qdrant Record or ScoredPoint."""
    vecs = record.vector if isinstance(record.vector, dict) else {}
    return StoredPoint(id=str(record.id), chunk=Chunk.from_payload(record.payload or {}),
                       score=float(getattr(record, "score", 0.0) or 0.0), vectors=vecs)


class ServerStore(VectorStore):
    """Collections of chunks with dense, sparse and trigger vectors on a Qdrant server."""

    remote = True

    def __init__(self, *, url: str, api_key: str = "", batch_size: int = 128, timeout: float = 30.0) -> None:
        from qdrant_client import QdrantClient

        super().__init__(url, batch_size)
        self.url = url
        self.client = QdrantClient(url=url, api_key=api_key or None, timeout=max(1, int(timeout)),
                                   check_compatibility=False)
        self._alias_map: dict[str, str] | None = None
        self._recover()

    @contextlib.contextmanager
    def _calling(self) -> Iterator[None]:
        """A server's refusal or silence as one line."""
        try:
            yield
        except (ValueError, BackendError):
            raise
        except Exception as exc:  # qdrant-client raises its own and httpx's errors
            reason = " ".join(str(exc).split())[:300] or type(exc).__name__
            raise BackendError(f"qdrant server {self.url}: {reason}") from None

    # -- names -------------------------------------------------------------------------------
    def _aliases(self) -> dict[str, str]:
        """alias → collection (read once, kept up to date by our own alias changes)."""
        if self._alias_map is None:
            with self._calling():
                found = self.client.get_aliases().aliases
            self._alias_map = {a.alias_name: a.collection_name for a in found}
        return self._alias_map

    def _physical(self, name: str) -> str:
        """The collection behind a name (its alias target, or the name itself)."""
        return self._aliases().get(name, name)

    def _names(self) -> list[str]:
        """Every collection on the server."""
        with self._calling():
            return [c.name for c in self.client.get_collections().collections]

    def _recover(self) -> None:
        """Switch in the newest complete copy a kill left unswitched."""
        aliases = self._aliases()
        names = self._names()
        for physical in sorted(names, key=_number, reverse=True):
            found = _COPY_RE.match(physical)
            if not found or physical in aliases.values():
                continue
            name = found.group("name")
            live = aliases.get(name) or (name if name in names else "")
            if _number(physical) > _number(live) and self._meta(physical).get("complete"):
                self.switch(name, physical)
                aliases, names = self._aliases(), self._names()

    def _point_alias(self, name: str, physical: str) -> None:
        """Make `name` an alias of `physical` in one request (replacing the alias it was)."""
        from qdrant_client import models

        actions: list[Any] = []
        if name in self._aliases():
            actions.append(models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=name)))
        actions.append(models.CreateAliasOperation(
            create_alias=models.CreateAlias(collection_name=physical, alias_name=name)))
        with self._calling():
            self.client.update_collection_aliases(change_aliases_operations=actions)
        self._aliases()[name] = physical

    def close(self) -> None:
        """Release the connection."""
        self.client.close()

    def exists(self, name: str) -> bool:
        """True when the collection exists."""
        with self._calling():
            return bool(self.client.collection_exists(self._physical(name)))

    def collections(self) -> list[str]:
        """Names of all collections (aliases stand for the copies behind them)."""
        aliases = self._aliases()
        behind = set(aliases.values())
        names = {n for n in self._names() if n not in behind and not _COPY_RE.match(n)
                 and n != WORKSPACE_COLLECTION}
        return sorted(names | set(aliases))

    def create(self, name: str, dim: int, trigger: bool, meta: dict[str, Any]) -> None:
        """Create a collection with its vectors, payload indexes and metadata."""
        from qdrant_client import models

        vectors = {DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)}
        if trigger:
            vectors[TRIGGER] = models.VectorParams(size=dim, distance=models.Distance.COSINE)
        with self._calling():
            self.client.create_collection(
                name, vectors_config=vectors,
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                metadata=meta)
            if not _COPY_RE.sub(r"\g<name>", name).startswith("persona_"):
                for key in INDEXED_KEYS:
                    self.client.create_payload_index(name, key, models.PayloadSchemaType.KEYWORD, wait=True)

    def _meta(self, physical: str) -> dict[str, Any]:
        """The metadata of a physical collection."""
        with self._calling():
            info = self.client.get_collection(physical)
        return dict(info.config.metadata or {})

    def metadata(self, name: str) -> dict[str, Any]:
        """The embedding model and dimension recorded on a collection."""
        if not self.exists(name):
            raise ValueError(f"Collection {name} not found")
        meta = self._meta(self._physical(name))
        meta.pop("complete", None)
        return meta

    def vector_config(self, name: str) -> dict[str, Any]:
        """The dense and sparse vector configuration of a collection, as the server reports it."""
        with self._calling():
            params = self.client.get_collection(self._physical(name)).config.params
        dense = params.vectors if isinstance(params.vectors, dict) else {}
        return {"dense": {k: (v.size, str(v.distance.value)) for k, v in dense.items()},
                "sparse": sorted((params.sparse_vectors or {}).keys())}

    def drop(self, name: str) -> None:
        """Delete a whole collection (and its alias)."""
        from qdrant_client import models

        self.generation += 1
        physical = self._physical(name)
        with self._calling():
            if name in self._aliases():
                self.client.update_collection_aliases(change_aliases_operations=[
                    models.DeleteAliasOperation(delete_alias=models.DeleteAlias(alias_name=name))])
                del self._aliases()[name]
            if self.client.collection_exists(physical):
                self.client.delete_collection(physical)

    def rebuild(self, name: str, dim: int, model: str | None, trigger: bool = False) -> Staging:
        """A copy of `name` built as `<name>-r<n>`, switched in by its alias (see the module docstring)."""
        self.generation += 1
        live = self._physical(name)
        copies = [n for n in self._names() if (m := _COPY_RE.match(n)) and m.group("name") == name]
        for stale in copies:
            if stale != live:  # a copy a kill left behind before its switch
                with self._calling():
                    self.client.delete_collection(stale)
        number = 1 + max((_number(n) for n in copies), default=0)
        return ServerStaging(self, name, f"{name}-r{number}", dim, model, trigger)

    def switch(self, name: str, physical: str) -> None:
        """Point `name` at a complete copy; the collection it was is deleted after."""
        live = self._physical(name)
        with self._calling():
            if name not in self._aliases() and self.client.collection_exists(name):
                self.client.delete_collection(name)  # a plain collection cannot share a name with an alias
        self._point_alias(name, physical)
        if live not in (name, physical):
            with self._calling():
                self.client.delete_collection(live)
        self.generation += 1

    # -- points ------------------------------------------------------------------------------
    def write_points(self, name: str, points: Iterable[RawPoint]) -> int:
        """Upsert raw points in batches (each acknowledged once applied)."""
        self.generation += 1
        return self.write_to(self._physical(name), points)

    def write_to(self, physical: str, points: Iterable[RawPoint]) -> int:
        """Upsert raw points into a physical collection, batch_size a request; returns how many."""
        from qdrant_client import models

        batch: list[Any] = []
        done = 0
        for pid, vectors, payload in points:
            batch.append(models.PointStruct(id=pid, vector=_vectors(vectors), payload=payload))
            if len(batch) >= self.batch_size:
                done += self._send(physical, batch)
                batch = []
        return done + (self._send(physical, batch) if batch else 0)

    def _send(self, physical: str, batch: list[Any]) -> int:
        """One upsert request."""
        with self._calling():
            self.client.upsert(physical, batch, wait=True)
        return len(batch)

    def count(self, name: str, match: dict[str, Any] | None = None) -> int:
        """Exact number of points (0 for a missing collection)."""
        if not self.exists(name):
            return 0
        with self._calling():
            return int(self.client.count(self._physical(name), count_filter=qdrant_filter(match), exact=True).count)

    def iter_points(self, name: str, match: dict[str, Any] | None = None,
                    vectors: bool | Sequence[str] = False, page: int = PAGE) -> Iterator[StoredPoint]:
        """Matching points page by page, in id order (nothing for a missing collection)."""
        if not self.exists(name):
            return
        for record in self.records(self._physical(name), match, vectors, True, page):
            yield _point(record)

    def point_ids(self, name: str) -> set[str]:
        """Every point id of a collection (empty for a missing one)."""
        if not self.exists(name):
            return set()
        return {str(r.id) for r in self.records(self._physical(name), None, False, False, 4 * PAGE)}

    def records(self, physical: str, match: dict[str, Any] | None, vectors: bool | Sequence[str],
                payload: bool, page: int) -> Iterator[Any]:
        """Scroll a physical collection page by page."""
        with_vectors: bool | list[str] = list(vectors) if isinstance(vectors, list | tuple) else bool(vectors)
        flt, offset = qdrant_filter(match), None
        while True:
            with self._calling():
                found, offset = self.client.scroll(physical, scroll_filter=flt, limit=page, offset=offset,
                                                   with_payload=payload, with_vectors=with_vectors)
            yield from found
            if offset is None:
                return

    def _delete_where(self, name: str, must: dict[str, Any], must_any: dict[str, Sequence[Any]],
                      must_not_any: dict[str, Sequence[Any]]) -> int:
        """Count, then delete by the same filter."""
        from qdrant_client import models

        physical = self._physical(name)
        flt = qdrant_filter(must, must_any=must_any, must_not_any=must_not_any)
        with self._calling():
            count = int(self.client.count(physical, count_filter=flt, exact=True).count)
            if count:
                self.generation += 1
                self.client.delete(physical, points_selector=models.FilterSelector(filter=flt), wait=True)
        return count

    def _search(self, name: str, vector: Sequence[float] | Any, using: str, limit: int,
                match: dict[str, Any] | None, vectors: bool) -> list[StoredPoint]:
        """One query_points request by a named vector."""
        query: Any = server_sparse(vector) if using == SPARSE else [float(x) for x in vector]
        with self._calling():
            res = self.client.query_points(self._physical(name), query=query, using=using, limit=limit,
                                           query_filter=qdrant_filter(match), with_payload=True,
                                           with_vectors=vectors)
        return [_point(p) for p in res.points]

    def _hybrid(self, name: str, dense: Sequence[float], sparse: Any, limit: int,
                match: dict[str, Any] | None, depth: int, vectors: bool) -> list[StoredPoint]:
        """One query_points request: two prefetches fused by RrfQuery(k=60)."""
        from qdrant_client import models

        flt = qdrant_filter(match)
        with self._calling():
            res = self.client.query_points(
                self._physical(name),
                prefetch=[models.Prefetch(query=[float(x) for x in dense], using=DENSE, limit=depth, filter=flt),
                          models.Prefetch(query=server_sparse(sparse), using=SPARSE, limit=depth, filter=flt)],
                query=models.RrfQuery(rrf=models.Rrf(k=RRF_K)), limit=limit, with_payload=True,
                with_vectors=vectors)
        return [_point(p) for p in res.points]

    # -- whose store, and the server itself --------------------------------------------------
    def workspace_id(self) -> str:
        """The id of the workspace this server's collections belong to ("" before one is recorded)."""
        with self._calling():
            if not self.client.collection_exists(WORKSPACE_COLLECTION):
                return ""
        return str(self._meta(WORKSPACE_COLLECTION).get("workspace") or "")

    def set_workspace_id(self, workspace: str) -> None:
        """Record the workspace on the server (the metadata of a one-dimensional, empty collection)."""
        from qdrant_client import models

        with self._calling():
            if not self.client.collection_exists(WORKSPACE_COLLECTION):
                try:
                    self.client.create_collection(
                        WORKSPACE_COLLECTION, metadata={"workspace": workspace},
                        vectors_config={DENSE: models.VectorParams(size=1, distance=models.Distance.COSINE)})
                    return
                except Exception:  # another worker of the workspace made it after the look
                    if not self.client.collection_exists(WORKSPACE_COLLECTION):
                        raise
            self.client.update_collection(WORKSPACE_COLLECTION, metadata={"workspace": workspace})

    def engine(self) -> str:
        """The server and its version (a request that also proves it answers)."""
        with self._calling():
            return f"Qdrant server {self.client.info().version}"


class ServerStaging(Staging):
    """A collection rebuilt as a new physical collection; commit marks it complete and moves the alias."""

    def __init__(self, store: ServerStore, name: str, physical: str, dim: int, model: str | None,
                 trigger: bool) -> None:
        super().__init__(name)
        self.store = store
        self.physical = physical
        self.meta: dict[str, Any] = {"model": model, "dim": dim, "trigger": trigger}
        store.create(physical, dim, trigger, self.meta)

    def write_points(self, points: Iterable[RawPoint]) -> int:
        """Add raw points to the copy; returns how many."""
        done = self.store.write_to(self.physical, points)
        self.written += done
        return done

    def point_ids(self) -> set[str]:
        """Every point id written to the copy so far."""
        return {str(r.id) for r in self.store.records(self.physical, None, False, False, 4 * PAGE)}

    def mark_complete(self) -> None:
        """Mark the copy complete in its metadata."""
        with self.store._calling():
            self.store.client.update_collection(self.physical, metadata={**self.meta, "complete": True})

    def switch_in(self) -> None:
        """Point the alias at the copy (see ServerStore.switch)."""
        self.store.switch(self.name, self.physical)

    def abort(self) -> None:
        """Throw the copy away."""
        with contextlib.suppress(Exception):
            self.store.client.delete_collection(self.physical)
