"""The embedded store over qdrant-edge: one EdgeShard per collection in `[qdrant] path` (the default).

Layout of the store folder:
  .lock                   exclusive lock of the folder (the file qdrant-client's local mode locked too)
  workspace.json          {"workspace": id}: the workspace this store belongs to
  edge/<name>/            one EdgeShard (edge_config.json, segments/, wal/) plus nonseq.json
                          ({"model", "dim", "trigger"}: what a server keeps as collection metadata)
  edge/.rebuild.<name>/   a copy being built beside <name> (see Staging); "complete" once written
  edge/.old.<name>/       the collection a finished rebuild replaced, removed right after
  local-mode-backup/      a migrated local-mode store (meta.json, collection/), kept until pruned

Shards are exact-scan (no HNSW graph): exact results, and no index build in the way of writes.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from nonseq.errors import BackendError, StoreError, WorkspaceBusyError
from nonseq.index.jsonfile import read_json, write_json
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

EDGE_DIR = "edge"
META_FILE = "nonseq.json"
SHARD_CONFIG = "edge_config.json"
WORKSPACE_FILE = "workspace.json"
REBUILD, OLD, DROPPED, CREATING = ".rebuild.", ".old.", ".dropped.", ".creating."
#: Free space kept on the store's disk: the engine grows its memory-mapped files and WAL in pieces of up
#: to 32 MB, and a write into a mapping the disk cannot back is a SIGBUS, not an error.
MIN_FREE_BYTES = 256 * 2**20
#: Points read (with vectors and payloads) when a collection's files are checked.
SAMPLE_POINTS = 64
_FOLDER_RE = re.compile(r"[a-z0-9_]{1,128}")
#: Engine errors that mean a collection's files are damaged (a truncated vector file, garbage in a page).
_DAMAGE = re.compile(r"not readable|decompress|lz4|corrupt|unexpected end|fill whole buffer|deserializ|checksum|"
                     r"out of bounds|truncat|invalid (?:data|magic|header)", re.IGNORECASE)


def _q() -> Any:
    """The qdrant_edge module (imported on first use: start-up stays light)."""
    import qdrant_edge

    return qdrant_edge


def edge_filter(must: dict[str, Any] | None = None, *, must_any: dict[str, Sequence[Any]] | None = None,
                must_not_any: dict[str, Sequence[Any]] | None = None) -> Any:
    """An edge Filter: every `must` value, one of each `must_any` list, none of each `must_not_any` list."""
    q = _q()
    if not (must or must_any or must_not_any):
        return None
    cond = q.FieldCondition
    positive = [cond(key=k, match=q.MatchValue(value=v)) for k, v in (must or {}).items()]
    positive += [cond(key=k, match=q.MatchAny(any=list(v))) for k, v in (must_any or {}).items()]
    negative = [cond(key=k, match=q.MatchAny(any=list(v))) for k, v in (must_not_any or {}).items()]
    return q.Filter(must=positive or None, must_not=negative or None)


def edge_sparse(vector: Any) -> Any:
    """An edge SparseVector from anything with `indices` and `values`."""
    return _q().SparseVector(indices=[int(i) for i in vector.indices], values=[float(v) for v in vector.values])


def edge_vectors(vectors: dict[str, Any]) -> dict[str, Any]:
    """Named vectors for an edge Point: dense as lists of floats, sparse as edge SparseVectors."""
    return {name: edge_sparse(vec) if hasattr(vec, "indices") else [float(x) for x in vec]
            for name, vec in vectors.items()}


def shard_config(dim: int, trigger: bool) -> Any:
    """Named dense (cosine) [+ trigger_dense] and sparse (IDF) vectors; exact scan (HNSW m=0)."""
    q = _q()
    vectors = {DENSE: q.EdgeVectorParams(size=dim, distance=q.Distance.Cosine)}
    if trigger:
        vectors[TRIGGER] = q.EdgeVectorParams(size=dim, distance=q.Distance.Cosine)
    return q.EdgeConfig(vectors=vectors, sparse_vectors={SPARSE: q.EdgeSparseVectorParams(modifier=q.Modifier.Idf)},
                        hnsw_config=q.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10000))


def one_line(exc: BaseException) -> str:
    """An engine error as one short line."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text.removeprefix("Service runtime error: ")[:300]


class EdgeStore(VectorStore):
    """Collections of chunks with dense, sparse and trigger vectors, embedded with qdrant-edge."""

    def __init__(self, *, path: Path, batch_size: int = 128, warn: Callable[[str], None] | None = None,
                 migrate: bool = True, progress: Callable[[str, int, int], None] | None = None) -> None:
        super().__init__(str(path), batch_size)
        self.root = Path(path)
        self.warn = warn
        self._shards: dict[str, Any] = {}
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            (self.root / EDGE_DIR).mkdir(exist_ok=True)
        except OSError as exc:
            raise StoreError(f"[qdrant] path {self.root} cannot hold the vector store: "
                             f"{exc.strerror or exc}") from None
        self._lock: Any = self._take_lock()
        self._recover()
        if migrate:
            try:
                self.migrate_local(progress)
            except BaseException:
                self.close()
                raise

    # -- the folder --------------------------------------------------------------------------
    def _take_lock(self) -> Any:
        """Lock the folder exclusively, or refuse at once."""
        import portalocker

        handle = open(self.root / ".lock", "a+")  # noqa: SIM115 - held open until close()
        try:
            portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
        except portalocker.exceptions.LockException:
            handle.close()
            raise WorkspaceBusyError(
                f"workspace in use by another nonseq process (Qdrant folder {self.root})") from None
        return handle

    def _recover(self) -> None:
        """Finish or undo a rebuild a kill interrupted (see Staging), so every name reads whole."""
        base = self.root / EDGE_DIR
        for entry in sorted(base.iterdir()):
            if entry.name.startswith(REBUILD):
                name = entry.name[len(REBUILD):]
                if _complete(entry):
                    _switch(base, name)
                else:
                    shutil.rmtree(entry, ignore_errors=True)
        for entry in sorted(base.iterdir()):
            if entry.name.startswith((DROPPED, CREATING)):
                shutil.rmtree(entry, ignore_errors=True)
            elif entry.name.startswith(OLD):
                name = entry.name[len(OLD):]
                if (base / name).exists():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    os.replace(entry, base / name)

    def migrate_local(self, progress: Callable[[str, int, int], None] | None = None) -> dict[str, int]:
        """Move an old qdrant-client local-mode store into qdrant-edge (nothing when there is none)."""
        from nonseq.index import local_mode

        if not local_mode.pending(self.root):
            return {}
        if self.warn is not None:
            self.warn(f"moving the vector store {self.root} from qdrant-client local mode to qdrant-edge "
                      "(once; the old files are kept in local-mode-backup/)")
        return local_mode.migrate(self, self.root, progress)

    def close(self) -> None:
        """Flush and close every open shard and release the folder's lock."""
        for name in list(self._shards):
            self._close_shard(name)
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _dir(self, name: str) -> Path:
        """The folder of a collection."""
        return self.root / EDGE_DIR / name

    def _close_shard(self, name: str) -> None:
        """Flush and close one open shard."""
        shard = self._shards.pop(name, None)
        if shard is not None:
            with self._calling(name):
                shard.flush()
                shard.close()

    def _shard(self, name: str) -> Any:
        """The open shard of an existing collection (opened once, kept until close)."""
        if name not in self._shards:
            if not self.exists(name):
                raise ValueError(f"Collection {name} not found")
            self.metadata(name)  # a damaged nonseq.json is found on first use, not at a later write
            self._shards[name] = self.load_shard(self._dir(name), name)
        return self._shards[name]

    def load_shard(self, folder: Path, name: str) -> Any:
        """Open a shard folder; a damaged one is one line naming it and the fix."""
        ensure_free_space(self.root, 0)
        try:
            return _q().EdgeShard.load(str(folder))
        except Exception as exc:  # qdrant_edge raises plain Exception
            if "WouldBlock" in str(exc):
                raise WorkspaceBusyError(f"workspace in use by another process (vector collection {name})") from None
            raise StoreError(damaged(name, folder, one_line(exc))) from None

    @contextlib.contextmanager
    def _calling(self, name: str) -> Iterator[None]:
        """Engine errors of one call as a one-line BackendError."""
        try:
            yield
        except Exception as exc:
            if isinstance(exc, ValueError | StoreError | WorkspaceBusyError):
                raise
            if _DAMAGE.search(str(exc)):
                raise StoreError(damaged(name, self._dir(name), one_line(exc))) from None
            raise BackendError(f"qdrant-edge, collection {name}: {one_line(exc)} (if it repeats, "
                               "`nonseq store rebuild` rebuilds the collection from the database)") from None

    # -- collections -------------------------------------------------------------------------
    def exists(self, name: str) -> bool:
        """True when the collection exists."""
        return (self._dir(name) / SHARD_CONFIG).is_file()

    def collections(self) -> list[str]:
        """Names of all collections."""
        base = self.root / EDGE_DIR
        return sorted(p.name for p in base.iterdir() if _FOLDER_RE.fullmatch(p.name)
                      and (p / SHARD_CONFIG).is_file())

    def create(self, name: str, dim: int, trigger: bool, meta: dict[str, Any]) -> None:
        """Create a collection (replacing leftovers of an interrupted create) with its payload indexes."""
        if not _FOLDER_RE.fullmatch(name):
            raise ValueError(f"invalid collection name {name!r}")
        self._close_shard(name)
        ensure_free_space(self.root, 0)
        # Built beside the others with its nonseq.json, then renamed into place: a kill never leaves a
        # collection without its recorded model and dimension.
        making = self._dir(name).with_name(f"{CREATING}{name}")
        new_shard(making, dim, trigger, meta, indexed=not name.startswith("persona_")).close()
        shutil.rmtree(self._dir(name), ignore_errors=True)
        os.replace(making, self._dir(name))
        self._shards[name] = self.load_shard(self._dir(name), name)

    def metadata(self, name: str) -> dict[str, Any]:
        """The embedding model and dimension recorded on a collection."""
        if not self.exists(name):
            raise ValueError(f"Collection {name} not found")
        path = self._dir(name) / META_FILE
        try:
            meta = read_json(path)
        except FileNotFoundError:
            raise StoreError(damaged(name, self._dir(name), f"{META_FILE} is missing (no recorded model or "
                                                            "dimension)")) from None
        except (OSError, ValueError) as exc:
            raise StoreError(damaged(name, self._dir(name), f"{META_FILE}: {one_line(exc)}")) from None
        meta.pop("complete", None)
        if not isinstance(meta.get("dim"), int):
            raise StoreError(damaged(name, self._dir(name), f"{META_FILE} records no embedding dimension"))
        return meta

    def drop(self, name: str) -> None:
        """Delete a whole collection (renamed first: a stop halfway leaves no half-collection)."""
        self.generation += 1
        if self.exists(name):
            self._close_shard(name)
            doomed = self._dir(name).with_name(f"{DROPPED}{name}")
            shutil.rmtree(doomed, ignore_errors=True)
            os.replace(self._dir(name), doomed)
            shutil.rmtree(doomed, ignore_errors=True)

    def rebuild(self, name: str, dim: int, model: str | None, trigger: bool = False) -> Staging:
        """A copy of `name` built in edge/.rebuild.<name>, switched in by renames (see _switch)."""
        self.generation += 1
        return EdgeStaging(self, name, dim, model, trigger)

    def optimize(self, name: str | None = None) -> list[str]:
        """Merge segments and vacuum deleted points; returns the collections changed."""
        names = [name] if name else self.collections()
        changed = []
        for each in names:
            with self._calling(each):
                if self._shard(each).optimize():
                    changed.append(each)
        return changed

    # -- points ------------------------------------------------------------------------------
    def write_points(self, name: str, points: Iterable[RawPoint]) -> int:
        """Upsert raw points in batches (each batch is applied, and in the WAL, on return)."""
        shard = self._shard(name)
        self.generation += 1
        return write_batches(shard, points, self.batch_size, lambda: self._calling(name), self.root)

    def count(self, name: str, match: dict[str, Any] | None = None) -> int:
        """Exact number of points (0 for a missing collection)."""
        if not self.exists(name):
            return 0
        shard = self._shard(name)
        with self._calling(name):
            return int(shard.count(_q().CountRequest(exact=True, filter=edge_filter(match))))

    def iter_points(self, name: str, match: dict[str, Any] | None = None,
                    vectors: bool | Sequence[str] = False, page: int = PAGE) -> Iterator[StoredPoint]:
        """Matching points page by page, in id order (nothing for a missing collection)."""
        for record in self._records(name, match, vectors, True, page):
            yield _point(record)

    def point_ids(self, name: str) -> set[str]:
        """Every point id of a collection (empty for a missing one)."""
        return {str(r.id) for r in self._records(name, None, False, False, 4 * PAGE)}

    def _records(self, name: str, match: dict[str, Any] | None, vectors: bool | Sequence[str],
                 payload: bool, page: int) -> Iterator[Any]:
        """Scroll a collection page by page."""
        if not self.exists(name):
            return
        q, shard = _q(), self._shard(name)
        with_vector = list(vectors) if isinstance(vectors, list | tuple) else bool(vectors)
        flt, offset = edge_filter(match), None
        while True:
            with self._calling(name):
                records, offset = shard.scroll(q.ScrollRequest(offset=offset, limit=page, filter=flt,
                                                               with_payload=payload, with_vector=with_vector))
            yield from records
            if offset is None:
                return

    def read_sample(self, name: str, k: int = SAMPLE_POINTS) -> int:
        """Read up to k points spread over a collection, with vectors and payloads; a damaged file is a
        StoreError naming `nonseq store rebuild`. Returns how many were read."""
        ids = sorted(self.point_ids(name))
        if not ids:
            return 0
        picks = sorted(set(ids[:: max(1, len(ids) // k)][:k]) | {ids[-1]})
        q, shard = _q(), self._shard(name)
        try:
            for pid in picks:
                records, _ = shard.scroll(q.ScrollRequest(offset=pid, limit=1, with_payload=True, with_vector=True))
                for record in records:
                    _point(record)
        except Exception as exc:  # qdrant_edge raises plain Exception
            raise StoreError(damaged(name, self._dir(name), one_line(exc))) from None
        return len(picks)

    def _delete_where(self, name: str, must: dict[str, Any], must_any: dict[str, Sequence[Any]],
                      must_not_any: dict[str, Sequence[Any]]) -> int:
        """Count and delete the matching points (one filter, on the payload indexes)."""
        ensure_free_space(self.root, 0)
        q, shard = _q(), self._shard(name)
        flt = edge_filter(must, must_any=must_any, must_not_any=must_not_any)
        with self._calling(name):
            count = int(shard.count(q.CountRequest(exact=True, filter=flt)))
            if count:
                self.generation += 1
                shard.update(q.UpdateOperation.delete_points_by_filter(flt))
        return count

    def _search(self, name: str, vector: Sequence[float] | Any, using: str, limit: int,
                match: dict[str, Any] | None, vectors: bool) -> list[StoredPoint]:
        """One Nearest query on the shard."""
        q = _q()
        query = edge_sparse(vector) if using == SPARSE else [float(x) for x in vector]
        request = q.QueryRequest(limit=limit, query=q.Query.Nearest(query, using=using),
                                 filter=edge_filter(match), with_payload=True, with_vector=vectors)
        shard = self._shard(name)
        with self._calling(name):
            return [_point(p) for p in shard.query(request)]

    def _hybrid(self, name: str, dense: Sequence[float], sparse: Any, limit: int,
                match: dict[str, Any] | None, depth: int, vectors: bool) -> list[StoredPoint]:
        """Two prefetches (dense, sparse) fused by Rrf(k=60) on the shard."""
        q = _q()
        flt = edge_filter(match)
        request = q.QueryRequest(
            limit=limit,
            prefetches=[q.Prefetch(limit=depth, query=q.Query.Nearest([float(x) for x in dense], using=DENSE),
                                   filter=flt),
                        q.Prefetch(limit=depth, query=q.Query.Nearest(edge_sparse(sparse), using=SPARSE),
                                   filter=flt)],
            query=q.Fusion.Rrf(k=RRF_K), with_payload=True, with_vector=vectors)
        shard = self._shard(name)
        with self._calling(name):
            return [_point(p) for p in shard.query(request)]

    def engine(self) -> str:
        """Which engine this is."""
        from importlib.metadata import version

        return f"qdrant-edge {version('qdrant-edge-py')}"

    def vector_config(self, name: str) -> dict[str, Any]:
        """{"dense": {vector: (size, distance)}, "sparse": [names]} from the shard's own config file."""
        try:
            config = read_json(self._dir(name) / SHARD_CONFIG)
            dense = {k: (int(v["size"]), str(v["distance"])) for k, v in config.get("vectors", {}).items()}
            return {"dense": dense, "sparse": sorted(config.get("sparse_vectors", {}))}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreError(damaged(name, self._dir(name), f"{SHARD_CONFIG}: {one_line(exc)}")) from None

    # -- whose store -------------------------------------------------------------------------
    def workspace_id(self) -> str:
        """The id of the workspace this store belongs to ("" before one is recorded)."""
        path = self.root / WORKSPACE_FILE
        if not path.is_file():
            return ""
        try:
            return str(read_json(path).get("workspace") or "")
        except (OSError, ValueError) as exc:
            raise StoreError(f"vector store {self.root}: {WORKSPACE_FILE} is damaged ({one_line(exc)}); "
                             f"delete it and run `nonseq doctor`") from None

    def set_workspace_id(self, workspace: str) -> None:
        """Record the workspace this store belongs to."""
        write_json(self.root / WORKSPACE_FILE, {"workspace": workspace})


def damaged(name: str, folder: Path, reason: str) -> str:
    """The one line for a damaged collection: where, why, and the fix."""
    return (f"vector collection {name} ({folder}) is damaged: {reason}; run `nonseq store rebuild` "
            f"to rebuild it from the database")


def new_shard(folder: Path, dim: int, trigger: bool, meta: dict[str, Any], *, indexed: bool) -> Any:
    """Create a shard folder from scratch (leftovers replaced), with payload indexes and nonseq.json."""
    q = _q()
    shutil.rmtree(folder, ignore_errors=True)
    shard = q.EdgeShard.create(str(folder), shard_config(dim, trigger))
    if indexed:
        for key in INDEXED_KEYS:
            shard.update(q.UpdateOperation.create_field_index(key, q.PayloadSchemaType.Keyword))
    write_json(folder / META_FILE, meta)
    return shard


def free_bytes(folder: Path) -> int:
    """Free bytes on the disk holding `folder` (for the caller: the store's free-space probe)."""
    return shutil.disk_usage(folder).free


def ensure_free_space(folder: Path, needed: int) -> None:
    """A one-line StoreError unless the disk keeps MIN_FREE_BYTES free after `needed` more bytes."""
    try:
        free = free_bytes(folder)
    except OSError:
        return  # no probe on this system: the engine's own errors stand
    if free - needed < MIN_FREE_BYTES:
        raise StoreError(f"the disk holding the vector store {folder} is (nearly) full: {free / 2**20:,.0f} MB free, "
                         f"{(needed + MIN_FREE_BYTES) / 2**20:,.0f} MB needed; nothing was written. Free some "
                         "space, then run the command again")


def _batch_bytes(batch: list[RawPoint]) -> int:
    """A generous estimate of what a batch adds to the store's files (vectors, payloads, WAL, twice)."""
    size = 0
    for _, vectors, payload in batch:
        for vector in vectors.values():
            size += 8 * len(vector.indices if hasattr(vector, "indices") else vector)
        size += len(str(payload))
    return 2 * size


def write_batches(shard: Any, points: Iterable[RawPoint], size: int,
                  calling: Callable[[], contextlib.AbstractContextManager[None]], root: Path) -> int:
    """Upsert raw points into a shard, `size` a call, free space checked before each; returns how many."""
    q = _q()
    batch: list[RawPoint] = []
    done = 0

    def flush() -> None:
        """Write the batch once the disk has room for it."""
        ensure_free_space(root, _batch_bytes(batch))
        with calling():
            shard.update(q.UpdateOperation.upsert_points(
                [q.Point(pid, edge_vectors(vectors), payload) for pid, vectors, payload in batch]))

    for point in points:
        batch.append(point)
        if len(batch) >= size:
            flush()
            done, batch = done + len(batch), []
    if batch:
        flush()
        done += len(batch)
    return done


def _point(record: Any) -> StoredPoint:
    """A StoredPoint from an edge Record or ScoredPoint (ids as canonical UUID strings)."""
    vecs = record.vector if isinstance(record.vector, dict) else {}
    return StoredPoint(id=str(record.id), chunk=Chunk.from_payload(record.payload or {}),
                       score=float(getattr(record, "score", 0.0) or 0.0), vectors=dict(vecs))


def _complete(folder: Path) -> bool:
    """True when a rebuild copy was finished (its nonseq.json says so)."""
    try:
        return bool(read_json(folder / META_FILE).get("complete"))
    except (OSError, ValueError):
        return False


def _switch(base: Path, name: str) -> None:
    """Put a complete copy in place: live → .old, copy → live, .old removed; each step survives a kill."""
    live, copy, old = base / name, base / f"{REBUILD}{name}", base / f"{OLD}{name}"
    if live.exists():
        shutil.rmtree(old, ignore_errors=True)
        os.replace(live, old)
    os.replace(copy, live)
    shutil.rmtree(old, ignore_errors=True)


class EdgeStaging(Staging):
    """A collection rebuilt in edge/.rebuild.<name>; commit marks it complete and renames it in."""

    def __init__(self, store: EdgeStore, name: str, dim: int, model: str | None, trigger: bool) -> None:
        super().__init__(name)
        self.store = store
        self.folder = store.root / EDGE_DIR / f"{REBUILD}{name}"
        self.meta: dict[str, Any] = {"model": model, "dim": dim, "trigger": trigger}
        self.shard: Any = new_shard(self.folder, dim, trigger, self.meta, indexed=not name.startswith("persona_"))

    def write_points(self, points: Iterable[RawPoint]) -> int:
        """Add raw points to the copy; returns how many."""
        done = write_batches(self.shard, points, self.store.batch_size, lambda: self.store._calling(self.name),
                             self.store.root)
        self.written += done
        return done

    def point_ids(self) -> set[str]:
        """Every point id written to the copy so far."""
        q, offset = _q(), None
        ids: set[str] = set()
        while True:
            with self.store._calling(self.name):
                records, offset = self.shard.scroll(q.ScrollRequest(offset=offset, limit=4 * PAGE,
                                                                    with_payload=False, with_vector=False))
            ids.update(str(r.id) for r in records)
            if offset is None:
                return ids

    def mark_complete(self) -> None:
        """Flush and close the copy, then mark it complete in its nonseq.json."""
        with self.store._calling(self.name):
            self.shard.flush()
            self.shard.close()
        write_json(self.folder / META_FILE, {**self.meta, "complete": True})

    def switch_in(self) -> None:
        """Rename the copy into place (see _switch)."""
        self.store._close_shard(self.name)
        _switch(self.store.root / EDGE_DIR, self.name)
        self.store.generation += 1

    def abort(self) -> None:
        """Throw the copy away."""
        with contextlib.suppress(Exception):
            self.shard.close()
        shutil.rmtree(self.folder, ignore_errors=True)
