"""Looking after the vector store: what collections hold, and re-embedding them with the current embedder."""

from __future__ import annotations

from typing import Any

from nonseq.db import transaction
from nonseq.errors import NotFoundError
from nonseq.events import Kind, Progress, Step, emit
from nonseq.index.vector_store import Staging
from nonseq.models import TRIGGER_KEY, Chunk
from nonseq.workspace import Workspace

#: Points re-embedded per batch.
REEMBED_BATCH = 256


def collections_overview(ws: Workspace) -> list[dict[str, Any]]:
    """Each collection with its point count and the embedding model it was built with."""
    store = ws.store
    return [{"name": n, "points": store.count(n), **store.metadata(n)} for n in store.collections()]


def reembed_collection(ws: Workspace, collection: str, progress: Progress | None = None) -> int:
    """Rebuild a collection with the current embedder from its stored payloads; returns the count.

    Copy-then-swap: the new vectors go into a copy beside the collection, which is switched in only
    when complete. A broken embedder fails before anything is written; a failure or a kill leaves
    the old collection as it was, and running it again does the whole job.
    """
    total = ws.store.count(collection)
    if not total:
        return 0
    embedder = ws.embedder
    embedder.embed(["a check that the embedder answers"])
    trigger = bool(ws.store.metadata(collection).get("trigger"))
    with ws.store.rebuild(collection, embedder.dim, embedder.name, trigger) as staging:
        batch: list[Chunk] = []
        for point in ws.store.iter_points(collection):
            batch.append(point.chunk)
            if len(batch) >= REEMBED_BATCH:
                _reembed_batch(ws, staging, batch, trigger)
                batch = []
                emit(progress, Step.REEMBED, Kind.UPDATE, collection, done=staging.written, total=total)
        if batch:
            _reembed_batch(ws, staging, batch, trigger)
        emit(progress, Step.REEMBED, Kind.UPDATE, collection, done=staging.written, total=total)
    return staging.written


def _reembed_batch(ws: Workspace, staging: Staging, chunks: list[Chunk], trigger: bool) -> None:
    """Embed one batch into the copy; a knowledge fact's new vector is kept in SQLite too."""
    dense, sparse = ws.indexer.encode([c.embedding_text() for c in chunks])
    triggers = ws.embedder.embed([str(c.extra.get(TRIGGER_KEY, c.text)) for c in chunks]) if trigger else None
    staging.upsert(chunks, dense, sparse, triggers)
    facts = [(int(c.extra["fact_id"]), vector) for c, vector in zip(chunks, dense, strict=True)
             if isinstance(c.extra.get("fact_id"), int)]
    if facts:
        from nonseq.knowledge import records

        with transaction(ws.db):
            for fact_id, vector in facts:
                records.set_vector(ws.db, fact_id, vector, ws.embedder.name)


def reembed(ws: Workspace, names: list[str], *, every: bool = False,
            progress: Progress | None = None) -> list[tuple[str, int]]:
    """Re-embed the named collections (or every one); (name, points) for each."""
    existing = ws.store.collections()
    names = existing if every else names
    if not names:
        raise NotFoundError("name a collection (see `nonseq collections`) or pass --all")
    for name in names:
        if name not in existing:
            raise NotFoundError(f"no collection {name!r} (see `nonseq collections`)")
    return [(name, reembed_collection(ws, name, progress)) for name in names]
