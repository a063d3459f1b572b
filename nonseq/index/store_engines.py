"""Opening the workspace's vector store: the engine behind the one interface of nonseq.index.vector_store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from nonseq.index.vector_store import VectorStore


def open_store(*, path: Path, url: str = "", api_key: str = "", batch_size: int = 128,
               timeout: float = 30.0, warn: Callable[[str], None] | None = None,
               progress: Callable[[str, int, int], None] | None = None) -> VectorStore:
    """The store of a workspace: a Qdrant server when `url` is set, else qdrant-edge in `path`.

    An old qdrant-client local-mode store in `path` is moved into qdrant-edge on the way (`warn` says
    so once; `progress(collection, done, total)` follows it).
    """
    if url:
        from nonseq.index.server import ServerStore

        return ServerStore(url=url, api_key=api_key, batch_size=batch_size, timeout=timeout)
    from nonseq.index.edge import EdgeStore

    return EdgeStore(path=path, batch_size=batch_size, warn=warn, progress=progress)
