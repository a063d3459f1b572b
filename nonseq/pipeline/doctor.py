"""Health checks of the configured backends, each with a fix for what does not work.

One place for every check: `nonseq doctor` runs them all, a night run asks whether the LLM and
SearXNG answer before it touches a topic, and the menus' status line probes them quickly.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from nonseq.errors import NonseqError, StoreError, damaged_database
from nonseq.index.vector_store import VectorStore
from nonseq.workspace import Workspace

#: Seconds the status line's LLM probe may take.
PROBE_TIMEOUT = 1.0


@dataclass
class Check:
    """The result of one check: ok, ok with a warning (works, but degraded), or failed."""

    name: str
    ok: bool
    detail: str
    warn: bool = False

    @property
    def level(self) -> str:
        """ok, warn or fail."""
        return "fail" if not self.ok else ("warn" if self.warn else "ok")


class Degraded(str):
    """A check's detail when it works only in a degraded way (e.g. a fallback model): a warning."""

    __slots__ = ()


def check_db(ws: Workspace) -> str:
    """The database opens and is migrated; SQLite also passes its quick integrity check."""
    if not ws.team:
        problems = [row[0] for row in ws.db.execute("PRAGMA quick_check(3)")]
        if problems != ["ok"]:
            raise damaged_database(str(ws.db_path), "; ".join(problems))
    count = ws.db.execute("SELECT COUNT(*) FROM topics").fetchone()[0]
    return f"{ws.database} ({count} topic(s))"


def check_store(ws: Workspace) -> str:
    """The store opens and is this workspace's; each collection reads (a server: its vector setup); no point
    SQLite expects is missing."""
    from nonseq.pipeline.rebuild import check_readable, missing_points

    store = ws.store
    names = store.collections()
    points = 0
    for name in names:
        points += store.count(name)
        check_vectors(store, name)
        check_readable(store, name)
    gaps = missing_points(ws)
    if gaps:
        lacking = ", ".join(f"{name} {n}" for name, n in gaps.items())
        raise StoreError(f"{sum(gaps.values())} point(s) the database expects are missing ({lacking}): "
                         "run `nonseq store rebuild`")
    return f"{store.location} ({store.engine()}, {len(names)} collection(s), {points} point(s), none missing)"


def check_vectors(store: VectorStore, name: str) -> None:
    """A collection's vectors are what its metadata says (dense size, sparse, trigger)."""
    meta, config = store.metadata(name), store.vector_config(name)
    dense = config["dense"].get("dense")
    wanted = [("dense", (meta.get("dim"), "Cosine"))] + ([("trigger_dense", (meta.get("dim"), "Cosine"))]
                                                         if meta.get("trigger") else [])
    for vector, shape in wanted:
        if config["dense"].get(vector) != shape:
            raise StoreError(f"collection {name} on {store.location}: vector {vector!r} is "
                             f"{config['dense'].get(vector)}, expected {shape}; run `nonseq reembed {name}`")
    if "sparse" not in config["sparse"] or dense is None:
        raise StoreError(f"collection {name} on {store.location} lacks the dense or sparse vector; "
                         f"run `nonseq reembed {name}`")


def check_embedder(ws: Workspace) -> str:
    """The embedder loads and embeds offline."""
    start = time.perf_counter()
    vec = ws.embedder.embed_query("health check")
    ms = (time.perf_counter() - start) * 1000
    return f"{ws.embedder.name}, {len(vec)} dims ({ms:.0f} ms){_vector_cache(ws.embedder)}"


def _vector_cache(embedder: object) -> str:
    """The embedder's vector cache, as doctor says it ("" when it keeps none)."""
    disk = getattr(getattr(embedder, "memo", None), "disk", None)
    if disk is None:
        return ""
    size = len(disk)
    return f"; {disk.error}" if disk.error else f"; vector cache {disk.path} ({size:,} vector{'s' * (size != 1)})"


def check_sparse(ws: Workspace) -> str:
    """The BM25 encoder tokenizes and encodes."""
    terms = ws.sparse.tokenize("Checking the running encoders")
    return f"{ws.sparse.name}, {ws.settings.sparse.language} stemmer ({' '.join(terms)})"


def check_searxng(ws: Workspace) -> str:
    """SearXNG answers JSON at [searxng] url (and which engines are not answering)."""
    from nonseq.research.searx import SearxClient

    with SearxClient(ws.settings.searxng) as client:
        return client.check()


def check_reranker(ws: Workspace) -> str:
    """The reranker loads, or which fallback runs and how to fix that (a warning)."""
    from nonseq.index.rerankers import build_reranker, check_reranker, fell_back

    reranker = build_reranker(ws.settings.rerank, ws.embedder, ws.model_cache)
    detail = check_reranker(reranker)
    return Degraded(detail) if fell_back(ws.settings.rerank, reranker) else detail


def check_llm(ws: Workspace) -> str:
    """The configured LLM backend answers and has its model."""
    return ws.llm.check()


#: Every check `nonseq doctor` runs, in order.
CHECKS: dict[str, Callable[[Workspace], str]] = {
    "database": check_db, "qdrant": check_store, "embedder": check_embedder, "sparse": check_sparse,
    "searxng": check_searxng, "reranker": check_reranker, "llm": check_llm,
}


def _message(exc: Exception) -> str:
    """A failure as one line."""
    text = str(exc) if isinstance(exc, NonseqError) else f"{type(exc).__name__}: {exc}"
    return " ".join(text.split())


def run_one(ws: Workspace, name: str) -> Check:
    """Run one check; a failure is reported with its message, never raised."""
    try:
        detail = CHECKS[name](ws)
    except Exception as exc:  # noqa: BLE001 - doctor reports every failure
        return Check(name, False, _message(exc))
    return Check(name, True, str(detail), warn=isinstance(detail, Degraded))


def run_checks(ws: Workspace) -> list[Check]:
    """Run every check."""
    return [run_one(ws, name) for name in CHECKS]


def backends_down(ws: Workspace, need_search: bool) -> str:
    """Why nothing can run unattended (the LLM or SearXNG is down), or "" when they answer."""
    for name, label, needed in (("llm", "LLM", True), ("searxng", "SearXNG", need_search)):
        if needed:
            check = run_one(ws, name)
            if not check.ok:
                return f"{label} is not available: {check.detail}"
    return ""


def searxng_probe(ws: Workspace, timeout: float | None = None) -> str:
    """'up' or 'down' for [searxng] url within [searxng] probe_timeout (for a status line)."""
    from nonseq.llm.base import http_up

    searxng = ws.settings.searxng
    return "up" if http_up(searxng.url, timeout or searxng.probe_timeout) else "down"


def llm_probe(ws: Workspace, timeout: float = PROBE_TIMEOUT) -> str:
    """The LLM backend at a glance (a model file there, a server up), loading nothing."""
    return ws.llm.probe(timeout)
