"""Indexing: embed chunks (dense + sparse, and triggers for personas) and write them to a collection."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nonseq.models import Chunk

if TYPE_CHECKING:
    from nonseq.index.embed import Embedder
    from nonseq.index.sparse import SparseEncoder
    from nonseq.index.vector_store import VectorStore


class Indexer:
    """Turns chunks into points: dense and sparse vectors of each chunk's embedding text, upserted."""

    def __init__(self, store: VectorStore, embedder: Embedder, sparse: SparseEncoder) -> None:
        self.store = store
        self.embedder = embedder
        self.sparse = sparse

    def encode(self, texts: Sequence[str]) -> tuple[Any, list[Any]]:
        """Dense (unit rows) and sparse BM25 vectors of texts."""
        return self.embedder.embed(list(texts)), self.sparse.encode(list(texts))

    def ensure(self, collection: str, *, trigger: bool = False) -> None:
        """Create the collection for this embedder if it does not exist (refuse another model's)."""
        self.store.ensure(collection, self.embedder.dim, self.embedder.name, trigger=trigger)

    def index(self, collection: str, chunks: Sequence[Chunk], *, embed_texts: Sequence[str] | None = None,
              triggers: Sequence[str] | None = None) -> int:
        """Embed and upsert chunks (by default embedding `chunk.embedding_text()`); returns the count."""
        if not chunks:
            return 0
        texts = list(embed_texts) if embed_texts is not None else [c.embedding_text() for c in chunks]
        if len(texts) != len(chunks):
            raise ValueError("embed_texts must match chunks one to one")
        self.ensure(collection, trigger=triggers is not None)
        dense, sparse = self.encode(texts)
        trigger_vectors = self.embedder.embed(list(triggers)) if triggers is not None else None
        return self.store.upsert(collection, list(chunks), dense, sparse, trigger_vectors)
