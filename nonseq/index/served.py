"""A reranker served over HTTP: text-embeddings-inference's /rerank or the Cohere-style /v1/rerank.

tei:    POST {url}/rerank     {"query", "texts", "truncate"}        -> [{"index", "score"}, ...]
cohere: POST {url}/v1/rerank  {"model", "query", "documents", "top_n"} -> {"results": [{"index",
        "relevance_score"}, ...]}  (Cohere, Jina, llama.cpp's server, Infinity)

Scores come back in [0,1] like the cross-encoder's (a logit answer goes through a sigmoid). The API
key travels only in the Authorization header and is never part of a message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from nonseq.errors import BackendError

if TYPE_CHECKING:
    import httpx

    from nonseq.config import RerankSettings

#: The route of each API under the base URL.
ROUTES = {"tei": "/rerank", "cohere": "/v1/rerank"}
#: Seconds before the first retry (doubles each retry).
BACKOFF = 0.5
#: Characters kept per token of [rerank] max_length before a passage is sent.
CHARS_PER_TOKEN = 8
#: HTTP statuses worth another try.
TRANSIENT = frozenset({408, 429, 500, 502, 503, 504})


def base_url(url: str) -> str:
    """The server's base URL: scheme added, trailing slash (and a pasted route) dropped."""
    url = url.strip().rstrip("/")
    url = url if "://" in url else f"http://{url}"
    for route in ROUTES.values():
        url = url.removesuffix(route)
    return url


def how_to_reach(settings: RerankSettings) -> str:
    """What to do when the served reranker does not answer."""
    return (f"start the rerank server at {base_url(settings.url)} (for example text-embeddings-inference "
            f"--model-id {settings.model}) or fix [rerank] url and api")


class _Transient(Exception):
    """A failure worth retrying (connection, timeout, 429, 5xx); its message is the one-line error."""


def _error_text(resp: httpx.Response) -> str:
    """The server's error message from its JSON body (TEI: error, Cohere: message, others: detail)."""
    try:
        body = json.loads(resp.content)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return " ".join(resp.text.split())[:200]
    if isinstance(body, dict):
        body = next((body[k] for k in ("error", "message", "detail") if k in body), body)
    if isinstance(body, dict):
        body = body.get("message", body)
    return " ".join(str(body).split())[:200]


def unit_scores(raw: Sequence[float], mode: str) -> np.ndarray:
    """Server scores to [0,1]: kept (probability), a sigmoid (logit), or auto (a logit if any is outside)."""
    arr = np.asarray(raw, dtype=np.float64)
    if mode == "logit" or (mode == "auto" and arr.size and (arr.min() < 0.0 or arr.max() > 1.0)):
        return 1.0 / (1.0 + np.exp(-np.clip(arr, -500, 500)))
    return np.clip(arr, 0.0, 1.0)


class HttpReranker:
    """Scores pairs on a rerank server, in batches, with timeouts and retries; falls back when it stops."""

    backend = "http"

    def __init__(self, settings: RerankSettings,
                 fallback: Callable[[BackendError], Any] | None = None,
                 warn: Callable[[str], None] | None = None) -> None:
        """Remember the server; nothing is sent until probe() or score()."""
        self.settings = settings
        self.url = base_url(settings.url)
        self.endpoint = self.url + ROUTES[settings.api]
        self.where = f"{self.endpoint} ({settings.api} API)"
        self.name = f"http:{settings.model}"
        self.offline, self.note = False, ""
        self._fallback_for, self._warn = fallback, warn
        self._fallback: Any = None

    # -- the wire ----------------------------------------------------------------------------
    def _body(self, query: str, texts: list[str]) -> dict[str, Any]:
        """The request body of the configured API."""
        if self.settings.api == "tei":
            return {"query": query, "texts": texts, "truncate": True}
        return {"model": self.settings.model, "query": query, "documents": texts, "top_n": len(texts)}

    def _parse(self, data: Any, n: int) -> list[float]:
        """One score per text, in the order sent, from the API's answer (BackendError if malformed)."""
        if self.settings.api == "tei":
            rows, key = data, "score"
        else:
            rows, key = data.get("results") if isinstance(data, dict) else None, "relevance_score"
        scores: list[float | None] = [None] * n
        try:
            for row in rows:
                index, value = row["index"], row[key]
                if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < n:
                    raise ValueError(index)
                scores[index] = float(value)
        except (TypeError, KeyError, ValueError):
            raise BackendError(f"rerank server at {self.endpoint} answered no {self.settings.api} "
                               f"rerank list (set [rerank] api to the server's format)") from None
        missing = sum(s is None for s in scores)
        if missing:
            raise BackendError(f"rerank server at {self.endpoint} scored {n - missing} of {n} texts")
        return [float(s) for s in scores if s is not None]

    def _post_once(self, client: httpx.Client, body: dict[str, Any]) -> Any:
        """One POST: the parsed JSON, _Transient for what a retry may fix, BackendError otherwise."""
        import httpx

        try:
            resp = client.post(self.endpoint, json=body)
        except httpx.TimeoutException:
            raise _Transient(f"rerank server at {self.endpoint} did not answer within "
                             f"{self.settings.timeout:g}s (raise [rerank] timeout)") from None
        except httpx.HTTPError as exc:
            raise _Transient(f"no rerank server at {self.url} ({type(exc).__name__})") from None
        if resp.status_code in TRANSIENT:
            raise _Transient(f"rerank server at {self.endpoint} answered HTTP {resp.status_code}: "
                             f"{_error_text(resp)}")
        if resp.status_code in (401, 403):
            raise BackendError(f"rerank server at {self.endpoint} refused the request (HTTP "
                               f"{resp.status_code}); set NONSEQ_RERANK__API_KEY")
        if resp.status_code == 404:
            raise BackendError(f"no {ROUTES[self.settings.api]} at {self.url} (HTTP 404); set [rerank] "
                               "api to the server's format (tei or cohere)")
        if resp.status_code == 413:
            raise BackendError(f"rerank server at {self.endpoint} refused {self.settings.batch_size} "
                               "texts at once (HTTP 413); lower [rerank] batch_size")
        if resp.status_code >= 400:
            raise BackendError(f"rerank server at {self.endpoint} answered HTTP {resp.status_code}: "
                               f"{_error_text(resp)}")
        try:
            return resp.json()
        except ValueError:
            raise BackendError(f"rerank server at {self.endpoint} did not answer JSON") from None

    def _post(self, client: httpx.Client, body: dict[str, Any]) -> Any:
        """POST with retries and exponential backoff on transient failures."""
        from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

        attempts = self.settings.retries + 1
        retrying = Retrying(stop=stop_after_attempt(attempts), reraise=True,
                            wait=wait_exponential(multiplier=BACKOFF, max=10),
                            retry=retry_if_exception_type(_Transient))
        try:
            return retrying(self._post_once, client, body)
        except _Transient as exc:
            raise BackendError(f"{exc} (after {attempts} attempt(s))") from None

    def _client(self) -> httpx.Client:
        """A client with the timeout and, if set, the bearer key."""
        import httpx

        headers = {"Authorization": f"Bearer {self.settings.api_key}"} if self.settings.api_key else {}
        timeout = self.settings.timeout
        return httpx.Client(timeout=httpx.Timeout(timeout, connect=min(5.0, timeout)), headers=headers)

    def raw_scores(self, query: str, passages: Sequence[str]) -> list[float]:
        """The server's scores of every passage, [rerank] batch_size texts per request."""
        limit = max(64, self.settings.max_length * CHARS_PER_TOKEN)
        texts = [p[:limit] for p in passages]
        size = self.settings.batch_size
        out: list[float] = []
        with self._client() as client:
            for start in range(0, len(texts), size):
                batch = texts[start:start + size]
                out.extend(self._parse(self._post(client, self._body(query, batch)), len(batch)))
        return out

    # -- the Reranker interface ---------------------------------------------------------------
    def probe(self) -> None:
        """Ask the server once (BackendError when it does not answer well)."""
        self.raw_scores("health check", ["a passage about health checks"])

    def score(self, query: str, passages: Sequence[str], vectors: Any = None) -> np.ndarray:
        """One score in [0,1] per passage; the fallback's once the server has stopped answering."""
        if not passages:
            return np.zeros(0)
        if self._fallback is None:
            try:
                return unit_scores(self.raw_scores(query, passages), self.settings.scores)
            except BackendError as exc:
                if self._fallback_for is None:
                    raise
                self._switch(exc)
        if self._fallback.backend == "none":
            raise BackendError(self.note)
        return np.asarray(self._fallback.score(query, passages, vectors), dtype=np.float64)

    def _switch(self, exc: BackendError) -> None:
        """Take on the fallback's identity for the rest of this workspace's life, and say so once."""
        assert self._fallback_for is not None
        self._fallback = self._fallback_for(exc)
        self.name, self.backend = self._fallback.name, self._fallback.backend
        self.offline, self.note = True, self._fallback.note
        if self._warn is not None:
            self._warn(self.note)
