"""The Workspace: paths, SQLite, store, models and the LLM, built once from the settings and handed to services."""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from nonseq.config import Settings
from nonseq.db import claim_store, expected_points, is_fresh, open_database, store_claimed, workspace_id
from nonseq.errors import ConfigError, StoreError
from nonseq.events import Kind, Progress, Step, emit

if TYPE_CHECKING:
    from nonseq.cache import ModelCache
    from nonseq.index.embed import Embedder
    from nonseq.index.indexing import Indexer
    from nonseq.index.rerankers import Reranker
    from nonseq.index.sparse import SparseEncoder
    from nonseq.index.vector_store import VectorStore
    from nonseq.llm.base import LLM
    from nonseq.research.domains import DomainRegistry
    from nonseq.research.fetch import Fetcher

T = TypeVar("T")


class Closable(Protocol):
    """Something the workspace closes when it is closed."""

    def close(self) -> None:
        """Release what it holds."""


def _warn(message: str) -> None:
    """Print a warning line on stderr."""
    print(f"warning: {message}", file=sys.stderr)


class Workspace:
    """Everything a service needs, opened lazily so that cheap commands stay cheap.

    Parts that are costly to build per call (the support checker, the context-pack cache) are kept
    with `memo`, so they live and die with the workspace. Loaded models come from a ModelCache shared
    by the process's workspaces unless one is given.
    """

    def __init__(self, settings: Settings, *, model_cache: ModelCache | None = None,
                 llm: LLM | None = None, warn: Callable[[str], None] = _warn) -> None:
        self.settings = settings
        self._closers: list[Closable] = []
        self._memo: dict[str, Any] = {}
        self._model_cache = model_cache
        self._llm = llm
        self._llm_given = llm is not None
        self.warn = warn

    # -- paths -------------------------------------------------------------------------------
    @property
    def data_dir(self) -> Path:
        """The workspace folder (SQLite, embedded Qdrant, caches)."""
        return self.settings.data_dir

    @property
    def db_path(self) -> Path:
        """The SQLite database file ([database] url sqlite:///path, or <data_dir>/nonseq.db)."""
        url = self.settings.database.url
        if url.startswith("sqlite:///"):
            return self.settings.resolve(url[len("sqlite:///"):])
        return self.data_dir / "nonseq.db"

    @property
    def team(self) -> bool:
        """True when the state is on a PostgreSQL server (several workers and editors share it)."""
        from nonseq.dburl import is_postgres

        return is_postgres(self.settings.database.url)

    @property
    def database(self) -> str:
        """Where the state is: the SQLite file, or the server's URL without its password."""
        from nonseq.dburl import hide_password

        return hide_password(self.settings.database.url) if self.team else str(self.db_path)

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
    def night_log(self) -> Path:
        """The JSON-lines log of night runs."""
        return self.data_dir / self.settings.night.log_file

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
            "database": self.database,
            "qdrant": q.url if q.url else str(self.qdrant_path),
            "articles": str(self.articles_dir),
            "personas": str(self.personas_dir),
            "night_log": str(self.night_log),
            "vector_cache": self.vector_cache,
        }

    @property
    def vector_cache(self) -> str:
        """The file where the bundled embedder keeps its vectors, shared by every workspace ("(none)" if none)."""
        file = self.settings.embedding.cache_file
        return str(file) if file else "(none)"

    def lock(self, action: str = "") -> AbstractContextManager[None]:
        """Hold the workspace lock for a `with` block (see nonseq.lock); WorkspaceBusyError if taken."""
        from nonseq.lock import workspace_lock

        return workspace_lock(self.data_dir, action)

    def memo(self, key: str, build: Callable[[], T]) -> T:
        """A per-workspace object built once on first use (dropped when the workspace closes)."""
        if key not in self._memo:
            self._memo[key] = build()
        value: T = self._memo[key]
        return value

    # -- lazily opened parts -----------------------------------------------------------------
    @cached_property
    def db(self) -> sqlite3.Connection:
        """The state database's connection (created and migrated on first use; PostgreSQL in team mode)."""
        if self.team and not self.settings.qdrant.url:
            raise ConfigError("[database] url is a shared PostgreSQL database but [qdrant] url is empty: an "
                              "embedded vector store would split the vectors between machines; set [qdrant] url "
                              "to a Qdrant server")
        try:
            conn = open_database(self.settings.database.url, self.db_path)
        except (OSError, sqlite3.Error) as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            raise ConfigError(f"[paths] data_dir {self.data_dir} cannot hold the workspace "
                              f"database: {reason}") from None
        self._closers.append(conn)
        return conn

    @cached_property
    def raw_store(self) -> VectorStore:
        """The vector store as it is on disk or on the server, before `store` checks whose it is."""
        return self._open_store(None)

    def open_store(self, progress: Progress | None = None) -> VectorStore:
        """Open the store now (`raw_store`), reporting the move of an old local-mode store to progress."""
        if "raw_store" not in self.__dict__:
            self.__dict__["raw_store"] = self._open_store(progress)
        return self.raw_store

    def _open_store(self, progress: Progress | None) -> VectorStore:
        """Open the configured store."""
        from nonseq.index.store_engines import open_store

        def moved(collection: str, done: int, total: int) -> None:
            """Say a collection's migration progress."""
            emit(progress, Step.MIGRATE, Kind.UPDATE, collection, done=done, total=total)

        q = self.settings.qdrant
        store = open_store(path=self.qdrant_path, url=q.url, api_key=q.api_key, batch_size=q.batch_size,
                           timeout=q.timeout, warn=self.warn, progress=moved if progress else None)
        self._closers.append(store)
        return store

    @cached_property
    def store(self) -> VectorStore:
        """The vector store (qdrant-edge on disk unless [qdrant] url is set), checked to be this workspace's."""
        store = self.raw_store
        belongs(self, store)
        return store

    @property
    def model_cache(self) -> ModelCache:
        """Where loaded models are kept (the process-wide cache unless the workspace has its own)."""
        if self._model_cache is None:
            from nonseq.cache import SHARED

            self._model_cache = SHARED
        return self._model_cache

    @property
    def llm(self) -> LLM:
        """The language model every stage uses: the injected one, else built once from [llm] (loads nothing yet)."""
        if self._llm is None:
            from nonseq.llm import build_llm

            self._llm = build_llm(self.settings.llm)
        return self._llm

    def llm_with(self, **changes: Any) -> LLM:
        """The language model with some [llm] settings changed (the injected model as it is)."""
        if self._llm_given:
            return self.llm
        from nonseq.llm import build_llm

        return build_llm(self.settings.llm.model_copy(update=changes))

    @cached_property
    def embedder(self) -> Embedder:
        """The dense embedder."""
        from nonseq.index.embed import build_embedder

        return build_embedder(self.settings.embedding, self.model_cache)

    @cached_property
    def sparse(self) -> SparseEncoder:
        """The sparse BM25 encoder (loaded once per model cache for the same settings, like the embedder)."""
        from nonseq.index.sparse import SparseEncoder

        settings = self.settings.sparse
        return self.model_cache.get("sparse", settings.model_dump_json(), lambda: SparseEncoder(settings))

    @cached_property
    def indexer(self) -> Indexer:
        """Embeds chunks and writes them to the store."""
        from nonseq.index.indexing import Indexer

        return Indexer(self.store, self.embedder, self.sparse)

    @cached_property
    def reranker(self) -> Reranker:
        """The reranker (falls back, marked offline, when its model cannot be loaded)."""
        from nonseq.index.rerankers import build_reranker

        reranker = build_reranker(self.settings.rerank, self.embedder, self.model_cache, warn=self.warn)
        self._warn_reranker_offline(reranker)
        return reranker

    def _warn_reranker_offline(self, reranker: Reranker) -> None:
        """Warn about a fallback reranker once per workspace until [rerank] changes (doctor: always)."""
        from nonseq.index.rerankers import fell_back

        marker = self.data_dir / "reranker-offline.json"
        if not fell_back(self.settings.rerank, reranker):
            with contextlib.suppress(OSError):
                marker.unlink(missing_ok=True)
            return
        key = self.settings.rerank.model_dump_json(exclude={"api_key"})
        served = self.settings.rerank.backend == "http"  # a server that is down: said every time
        if not served and marker.is_file() and marker.read_text(encoding="utf-8") == key:
            return
        if served:
            self.warn(reranker.note)
            return
        self.warn(f"{reranker.note} (said once for this workspace; `nonseq doctor` repeats it)")
        with contextlib.suppress(OSError):
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(key, encoding="utf-8")

    @cached_property
    def domains(self) -> DomainRegistry:
        """The trusted/blocked domain registry (shipped lists plus the workspace's overrides)."""
        from nonseq.research.domains import load_default

        return load_default(user_dir=self.data_dir)

    def fetcher(self) -> Fetcher:
        """A new fetcher: [fetch] settings (its `hosts` map included) and the domain registry."""
        from nonseq.research.fetch import Fetcher

        return Fetcher(self.settings.fetch, self.domains,
                       max_document_bytes=self.settings.research.max_document_bytes)

    def close(self) -> None:
        """Close everything that was opened, newest first."""
        while self._closers:
            self._closers.pop().close()
        for name in ("db", "raw_store", "store", "indexer"):
            self.__dict__.pop(name, None)
        self._memo.clear()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def belongs(ws: Workspace, store: VectorStore, *, repairing: bool = False) -> None:
    """Refuse a store and a database of different workspaces (one line naming the mismatch and the fix).

    A store without a workspace id is new, lost, or from before ids: it is claimed unless it holds
    research or knowledge beside a new database (that database is not the store's), or it is empty
    while the database had a store and has points for it (the store was lost: `nonseq store rebuild`,
    which claims it `repairing`).
    """
    mine, theirs = workspace_id(ws.db), store.workspace_id()
    if theirs == mine:
        return
    where = f"the vector store {store.location}"
    if theirs:
        if is_fresh(ws.db):
            raise StoreError(f"the database {ws.database} is new or empty, but {where} belongs to another "
                             f"workspace: restore that workspace's {ws.db_path.name}, or move the store away "
                             "to start afresh")
        raise StoreError(f"the database {ws.database} and {where} belong to different workspaces: point "
                         "[qdrant] path (or url) at this database's store")
    if holds_research_or_knowledge(store):
        if is_fresh(ws.db):
            raise StoreError(f"the database {ws.database} is new or empty, but {where} holds research or "
                             f"knowledge: restore its {ws.db_path.name}, or move the store away to start afresh")
    elif store_claimed(ws.db) and not repairing:
        facts, chunks = expected_points(ws.db)
        if facts or chunks:
            raise StoreError(f"{where} is missing or empty, but the database {ws.database} has {facts} promoted "
                             f"fact(s) and {chunks} research chunk(s): run `nonseq store rebuild`")
    store.set_workspace_id(mine)
    claim_store(ws.db)


def holds_research_or_knowledge(store: VectorStore) -> bool:
    """True when a research or knowledge collection holds a point, or is damaged (personas come from files)."""
    for name in store.collections():
        if name.startswith("persona_"):
            continue
        try:
            if store.count(name):
                return True
        except StoreError:
            return True
    return False
