"""The Workspace: paths, SQLite, store and models, built once from the settings and handed to services."""

from __future__ import annotations

import contextlib
import sqlite3
from functools import cached_property
from pathlib import Path
from typing import Any

from nonseq.config import Settings
from nonseq.db import connect
from nonseq.errors import ConfigError


class Workspace:
    """Everything a service needs, opened lazily so that cheap commands stay cheap."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._closers: list[Any] = []

    # -- paths -------------------------------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        """The workspace folder (SQLite, embedded Qdrant, caches)."""
        return self.settings.data_dir

    @property
    def db_path(self) -> Path:
        """The SQLite database file."""
        return self.data_dir / "nonseq.db"

    @property
    def qdrant_path(self) -> Path:
        """The embedded Qdrant folder."""
        q = self.settings.qdrant
        return self.settings.resolve(q.path) if q.path else self.data_dir / "qdrant"

    @property
    def articles_dir(self) -> Path:
        """Where articles are written."""
        return self.settings.resolve(self.settings.paths.articles_dir)

    @property
    def personas_dir(self) -> Path:
        """Where persona voices live."""
        return self.settings.resolve(self.settings.paths.personas_dir)

    @property
    def categories(self) -> list[str]:
        """The configured topic categories."""
        return list(self.settings.categories.names)

    def paths(self) -> dict[str, str]:
        """Where everything lives, for `nonseq paths`."""
        q = self.settings.qdrant
        return {
            "config": str(self.settings.source) if self.settings.source else "(built-in defaults)",
            "data_dir": str(self.data_dir),
            "database": str(self.db_path),
            "qdrant": q.url if q.url else str(self.qdrant_path),
            "articles": str(self.articles_dir),
            "personas": str(self.personas_dir),
            "night_log": str(self.data_dir / self.settings.night.log_file),
        }

    def lock(self, action: str = ""):  # noqa: ANN201 - a context manager
        """Hold the workspace lock for a `with` block (see nonseq.lock); WorkspaceBusyError if taken."""
        from nonseq.lock import workspace_lock

        return workspace_lock(self.data_dir, action)

    # -- lazily opened parts -----------------------------------------------------------------
    @cached_property
    def db(self) -> sqlite3.Connection:
        """The SQLite connection (created and migrated on first use)."""
        try:
            conn = connect(self.db_path)
        except (OSError, sqlite3.Error) as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            raise ConfigError(f"[paths] data_dir {self.data_dir} cannot hold the workspace "
                              f"database: {reason}") from None
        self._closers.append(conn)
        return conn

    @cached_property
    def store(self):  # noqa: ANN201 - nonseq.index.store.VectorStore
        """The vector store (embedded on disk unless [qdrant] url is set)."""
        from nonseq.index.store import VectorStore

        q = self.settings.qdrant
        store = VectorStore(path=self.qdrant_path, url=q.url, api_key=q.api_key,
                            batch_size=q.batch_size, timeout=q.timeout)
        self._closers.append(store)
        return store

    @cached_property
    def embedder(self):  # noqa: ANN201 - nonseq.index.embed.Embedder
        """The dense embedder."""
        from nonseq.index.embed import build_embedder

        return build_embedder(self.settings.embedding)

    @cached_property
    def sparse(self):  # noqa: ANN201 - nonseq.index.sparse.SparseEncoder
        """The sparse BM25 encoder."""
        from nonseq.index.sparse import SparseEncoder

        return SparseEncoder(self.settings.sparse)

    @cached_property
    def reranker(self):  # noqa: ANN201 - nonseq.retrieval.rerank.Reranker
        """The reranker (falls back, marked offline, when its model cannot be loaded)."""
        from nonseq.retrieval.rerank import build_reranker

        reranker = build_reranker(self.settings.rerank, self.embedder, warn=False)
        self._warn_reranker_offline(reranker)
        return reranker

    def _warn_reranker_offline(self, reranker: Any) -> None:
        """Warn about a fallback reranker once per workspace until [rerank] changes (doctor: always)."""
        from nonseq.retrieval.rerank import fell_back, warn_once

        marker = self.data_dir / "reranker-offline.json"
        if not fell_back(self.settings.rerank, reranker):
            with contextlib.suppress(OSError):
                marker.unlink(missing_ok=True)
            return
        key = self.settings.rerank.model_dump_json()
        if marker.is_file() and marker.read_text(encoding="utf-8") == key:
            return
        warn_once(f"{reranker.note} (said once for this workspace; `nonseq doctor` repeats it)")
        with contextlib.suppress(OSError):
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(key, encoding="utf-8")

    @cached_property
    def domains(self):  # noqa: ANN201 - nonseq.research.domains.DomainRegistry
        """The trusted/blocked domain registry (shipped lists plus the workspace's overrides)."""
        from nonseq.research.domains import load_default

        return load_default(user_dir=self.data_dir)

    def close(self) -> None:
        """Close everything that was opened, newest first."""
        while self._closers:
            self._closers.pop().close()
        for name in ("db", "store"):
            self.__dict__.pop(name, None)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
