"""Indexing: embed chunks (dense + sparse, and triggers for personas) and write them to a collection."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from nonseq.models import Chunk, SourceKind
from nonseq.workspace import Workspace

#: Payload key under which persona chunks keep the trigger text their trigger_dense vector embeds.
TRIGGER_KEY = "trigger"


#: Longest title kept in a provenance header (cut at a word, with an ellipsis).
HEADER_TITLE_CHARS = 90


def provenance_header(domain: str, title: str, published: str) -> str:
    """The short header embedded with each research chunk: [domain › title › date] (empty parts left out)."""
    if len(title) > HEADER_TITLE_CHARS:
        title = title[:HEADER_TITLE_CHARS].rsplit(" ", 1)[0] + "…"
    parts = [p for p in (domain, title, (published or "")[:10]) if p]
    return f"[{' › '.join(parts)}]" if parts else ""


def embed_text(chunk: Chunk) -> str:
    """The text that is embedded for a chunk: research chunks carry their provenance header."""
    if chunk.source_kind is SourceKind.RESEARCH:
        header = provenance_header(chunk.domain, chunk.title, chunk.published)
        return f"{header}\n{chunk.text}" if header else chunk.text
    return chunk.text


def index_chunks(
    ws: Workspace,
    collection: str,
    chunks: Sequence[Chunk],
    *,
    embed_texts: Sequence[str] | None = None,
    triggers: Sequence[str] | None = None,
) -> int:
    """Embed and upsert chunks (by default embedding `embed_text(chunk)`); returns the count."""
    if not chunks:
        return 0
    texts = list(embed_texts) if embed_texts is not None else [embed_text(c) for c in chunks]
    if len(texts) != len(chunks):
        raise ValueError("embed_texts must match chunks one to one")
    embedder = ws.embedder
    ws.store.ensure(collection, embedder.dim, embedder.name, trigger=triggers is not None)
    dense, sparse = encode(ws, texts)
    trigger_vectors = embedder.embed(list(triggers)) if triggers is not None else None
    return ws.store.upsert(collection, chunks, dense, sparse, trigger_vectors)


def encode(ws: Workspace, texts: Sequence[str]) -> tuple[Any, list[Any]]:
    """Dense (unit rows) and sparse BM25 vectors of texts."""
    return ws.embedder.embed(list(texts)), ws.sparse.encode(list(texts))


def reembed_collection(ws: Workspace, collection: str,
                       progress: Callable[[int, int], None] | None = None) -> int:
    """Rebuild a collection with the current embedder from its stored payloads; returns the count."""
    points = ws.store.scroll_all(collection)
    if not points:
        return 0
    meta = ws.store.metadata(collection)
    chunks = [p.chunk for p in points]
    triggers = [c.extra.get(TRIGGER_KEY, c.text) for c in chunks] if meta.get("trigger") else None
    ws.store.drop(collection)
    done = 0
    batch = 256
    for start in range(0, len(chunks), batch):
        part = chunks[start:start + batch]
        done += index_chunks(ws, collection, part,
                             triggers=triggers[start:start + batch] if triggers else None)
        if progress:
            progress(done, len(chunks))
    return done
