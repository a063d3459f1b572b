"""Health checks of the configured backends, each with a fix for what does not work."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from nonseq.errors import NonseqError
from nonseq.workspace import Workspace


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


def _check_db(ws: Workspace) -> str:
    """SQLite opens and is migrated."""
    count = ws.db.execute("SELECT COUNT(*) FROM topics").fetchone()[0]
    return f"{ws.db_path} ({count} topic(s))"


def _check_store(ws: Workspace) -> str:
    """Qdrant answers."""
    names = ws.store.collections()
    return f"{ws.store.location} ({len(names)} collection(s))"


def _check_embedder(ws: Workspace) -> str:
    """The embedder loads and embeds offline."""
    start = time.perf_counter()
    vec = ws.embedder.embed_query("health check")
    ms = (time.perf_counter() - start) * 1000
    return f"{ws.embedder.name}, {len(vec)} dims ({ms:.0f} ms)"


def _check_sparse(ws: Workspace) -> str:
    """The BM25 encoder tokenizes and encodes."""
    terms = ws.sparse.tokenize("Checking the running encoders")
    return f"{ws.sparse.name}, {ws.settings.sparse.language} stemmer ({' '.join(terms)})"


#: Extra checks registered by later stages (SearXNG, LLM, reranker): name → function.
EXTRA_CHECKS: dict[str, Callable[[Workspace], str]] = {}


def run_checks(ws: Workspace) -> list[Check]:
    """Run every check; a failure is reported with its message, never raised."""
    checks: dict[str, Callable[[Workspace], str]] = {
        "database": _check_db,
        "qdrant": _check_store,
        "embedder": _check_embedder,
        "sparse": _check_sparse,
        **EXTRA_CHECKS,
    }
    results = []
    for name, func in checks.items():
        try:
            detail = func(ws)
            results.append(Check(name, True, str(detail), warn=isinstance(detail, Degraded)))
        except NonseqError as exc:
            results.append(Check(name, False, str(exc)))
        except Exception as exc:  # noqa: BLE001 - doctor reports every failure
            results.append(Check(name, False, f"{type(exc).__name__}: {exc}"))
    return results


def _check_searxng(ws: Workspace) -> str:
    """SearXNG answers JSON at [searxng] url (and which engines are not answering)."""
    from nonseq.research.searx import SearxClient

    with SearxClient(ws.settings.searxng) as client:
        return client.check()


EXTRA_CHECKS["searxng"] = _check_searxng


def _check_reranker(ws: Workspace) -> str:
    """The reranker loads, or which fallback runs and how to fix that (a warning)."""
    from nonseq.retrieval.rerank import build_reranker, check_reranker, fell_back

    detail = check_reranker(ws)
    settings = ws.settings.rerank
    if fell_back(settings, build_reranker(settings, ws.embedder, warn=False)):
        return Degraded(detail)
    return detail


EXTRA_CHECKS["reranker"] = _check_reranker


def _check_llm(ws: Workspace) -> str:
    """The configured LLM backend answers and has its model."""
    from nonseq.llm import build_llm

    return build_llm(ws.settings.llm).check()


EXTRA_CHECKS["llm"] = _check_llm
