"""Indexing: embed chunks (dense + sparse, and triggers for personas) and write them to a collection."""

from __future__ import annotations

from collections.abc import Sequence

from nonseq.models import Chunk
from nonseq.workspace import Workspace


def index_chunks(
    ws: Workspace,
    collection: str,
    chunks: Sequence[Chunk],
    *,
    embed_texts: Sequence[str] | None = None,
    triggers: Sequence[str] | None = None,
) -> int:
    """Embed and upsert chunks (embed_texts may add a provenance header); returns the count."""
    if not chunks:
        return 0
    texts = list(embed_texts) if embed_texts is not None else [c.text for c in chunks]
    if len(texts) != len(chunks):
        raise ValueError("embed_texts must match chunks one to one")
    embedder = ws.embedder
    ws.store.ensure(collection, embedder.dim, embedder.name, trigger=triggers is not None)
    dense = embedder.embed(texts)
    sparse = ws.sparse.encode(texts)
    trigger_vectors = embedder.embed(list(triggers)) if triggers is not None else None
    return ws.store.upsert(collection, chunks, dense, sparse, trigger_vectors)
