"""Looking after the vector store: what collections hold, and rebuilding them with the current embedder."""

from __future__ import annotations

from typing import Any

from nonseq.errors import NotFoundError
from nonseq.events import Kind, Progress, Step, emit
from nonseq.models import TRIGGER_KEY
from nonseq.workspace import Workspace

#: Points re-embedded per batch.
REEMBED_BATCH = 256


def collections_overview(ws: Workspace) -> list[dict[str, Any]]:
    """Each collection with its point count and the embedding model it was built with."""
    store = ws.store
    return [{"name": n, "points": store.count(n), **store.metadata(n)} for n in store.collections()]


def reembed_collection(ws: Workspace, collection: str, progress: Progress | None = None) -> int:
    """Rebuild a collection with the current embedder from its stored payloads; returns the count."""
    points = ws.store.scroll_all(collection)
    if not points:
        return 0
    meta = ws.store.metadata(collection)
    chunks = [p.chunk for p in points]
    triggers = [c.extra.get(TRIGGER_KEY, c.text) for c in chunks] if meta.get("trigger") else None
    ws.store.drop(collection)
    done = 0
    for start in range(0, len(chunks), REEMBED_BATCH):
        part = chunks[start:start + REEMBED_BATCH]
        done += ws.indexer.index(collection, part,
                                 triggers=triggers[start:start + REEMBED_BATCH] if triggers else None)
        emit(progress, Step.REEMBED, Kind.UPDATE, collection, done=done, total=len(chunks))
    return done


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
