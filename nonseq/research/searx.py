"""The SearXNG client: topic queries over the JSON API, results merged and de-duplicated."""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from nonseq.cache import tls_context
from nonseq.config import SearxngSettings
from nonseq.errors import BackendError
from nonseq.models import Topic

log = logging.getLogger(__name__)

#: Query parameters that only track the visitor; dropped when normalising URLs.
TRACKING_PARAMS = frozenset({
    "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid",
    "igshid", "mc_cid", "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id",
    "oly_enc_id", "vero_id", "wickedid", "rb_clickid", "s_cid", "cmpid", "ref_src", "spm",
})
TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_")
MAX_QUERY_CHARS = 200
#: Largest search answer once decoded, unless the caller passes [fetch] max_bytes (a page's limit).
MAX_ANSWER_BYTES = 5_000_000
#: Deepest nesting of arrays and objects accepted in an answer (SearXNG's own is 4 deep).
MAX_JSON_DEPTH = 64
_JSON_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+(?:"|\Z)', re.DOTALL)  # possessive: linear
_NOT_BRACKET = re.compile(rb"[^\[\]{}]")
START_HINT = "start one with `nonseq searxng start`"


@dataclass
class SearchResult:
    """One search hit."""

    url: str
    title: str
    snippet: str
    engine: str
    score: float
    position: int
    query: str


@dataclass
class SearchResponse:
    """The results of one query (all pages) and the engines that did not answer."""

    results: list[SearchResult] = field(default_factory=list)
    unresponsive_engines: list[tuple[str, str]] = field(default_factory=list)


def json_depth(body: bytes) -> int:
    """How deep arrays and objects nest in a JSON text (strings skipped), in linear time."""
    import numpy as np

    brackets = _NOT_BRACKET.sub(b"", _JSON_STRING.sub(b"", body))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


class _Retry(Exception):
    """A failure worth another try (429, 5xx, timeout); carries the final message."""


def _is_tracking(name: str) -> bool:
    """True for tracking query parameters (utm_*, fbclid, gclid...)."""
    lowered = name.lower()
    return lowered in TRACKING_PARAMS or lowered.startswith(TRACKING_PREFIXES)


def normalize_url(url: str) -> str:
    """A de-duplication key: https, lower-case host without www./default port, no trailing
    slash, fragment or tracking parameters, remaining parameters sorted."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return text
    host = parts.hostname.lower().rstrip(".")
    if host.startswith("www.") and "." in host[4:]:
        host = host[4:]
    if ":" in host:
        host = f"[{host}]"
    if port and port not in (80, 443):
        host = f"{host}:{port}"
    path = parts.path.rstrip("/")
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                   if not _is_tracking(k))
    return urlunsplit(("https", host, path, urlencode(query), ""))


def topic_queries(topic: Topic) -> list[str]:
    """The search queries of a topic: its title, title + focus, then each sub-query."""
    title = " ".join(topic.title.split())
    focus = " ".join(topic.focus.split())
    candidates = [title]
    if focus:
        candidates.append(f"{title} {focus}")
    candidates.extend(" ".join(q.split()) for q in topic.sub_queries)
    queries: list[str] = []
    seen: set[str] = set()
    for query in candidates:
        query = query[:MAX_QUERY_CHARS].strip()
        if query and query.lower() not in seen:
            seen.add(query.lower())
            queries.append(query)
    return queries


def _interleave(lists: list[list[SearchResult]]) -> list[SearchResult]:
    """Round-robin over the queries' result lists: every query's 1st hit, then 2nd..."""
    merged: list[SearchResult] = []
    for rank in range(max((len(r) for r in lists), default=0)):
        merged.extend(r[rank] for r in lists if rank < len(r))
    return merged


class SearxClient:
    """A sync client of a SearXNG instance's JSON API."""

    def __init__(self, settings: SearxngSettings, transport: httpx.BaseTransport | None = None,
                 max_bytes: int = MAX_ANSWER_BYTES):
        from nonseq.research.fetch import ACCEPT_ENCODING

        self.settings = settings
        self.base = settings.url.rstrip("/")
        self.max_bytes = max_bytes
        self.unresponsive: dict[str, str] = {}
        self._http = httpx.Client(base_url=self.base, timeout=settings.timeout,
                                  transport=transport, trust_env=False, verify=tls_context(),
                                  headers={"Accept": "application/json", "Accept-Encoding": ACCEPT_ENCODING,
                                           "User-Agent": "NonSequitur search client"})

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def __enter__(self) -> SearxClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- one request ---------------------------------------------------------------------------
    def _get_once(self, params: dict[str, Any]) -> dict[str, Any]:
        """One GET /search within `timeout` seconds in all, its body bounded like a page's;
        raise _Retry for retryable failures, BackendError for the rest."""
        from nonseq.research.fetch import BodyRefused, BodyTimedOut, read_bounded

        deadline = time.monotonic() + self.settings.timeout
        try:
            with self._http.stream("GET", "/search", params=params) as response:
                body = read_bounded(response.iter_raw(), response.headers.get("content-encoding", ""),
                                    self.max_bytes, deadline)
        except BodyTimedOut:
            raise _Retry(f"SearXNG at {self.base} did not answer within {self.settings.timeout:g}s") from None
        except BodyRefused as exc:
            raise BackendError(f"SearXNG at {self.base}: answer refused ({exc})") from None
        except httpx.ConnectError:
            raise BackendError(f"no SearXNG at {self.base}; {START_HINT}") from None
        except httpx.TimeoutException:
            raise _Retry(f"SearXNG at {self.base} did not answer within "
                         f"{self.settings.timeout:g}s") from None
        except httpx.HTTPError as exc:
            raise BackendError(f"SearXNG at {self.base}: {type(exc).__name__}: {exc}") from None
        return self._decode(response.status_code, body)

    def _decode(self, status: int, body: bytes) -> dict[str, Any]:
        """The JSON body of a search answer, or the error it stands for."""
        if status == 403:
            raise BackendError(f"SearXNG at {self.base} refused the JSON format (HTTP 403): add "
                               "`json` to `search.formats` in its settings.yml and restart it")
        if status == 429:
            raise _Retry(f"SearXNG at {self.base} is rate-limiting (HTTP 429): turn its limiter "
                         "off (`server.limiter: false` in settings.yml)")
        if status >= 500:
            raise _Retry(f"SearXNG at {self.base} failed (HTTP {status})")
        if status != 200:
            raise BackendError(f"SearXNG at {self.base} answered HTTP {status} "
                               f"(is {self.base} a SearXNG?)")
        if json_depth(body) > MAX_JSON_DEPTH:
            raise BackendError(f"SearXNG at {self.base} answered JSON nested deeper than "
                               f"{MAX_JSON_DEPTH} levels (refused)")
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            raise BackendError(f"SearXNG at {self.base} did not answer JSON (is it a SearXNG? "
                               "is `json` in `search.formats`?)") from None
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise BackendError(f"SearXNG at {self.base} answered JSON without a results list")
        return data

    def _get(self, params: dict[str, Any], retries: int | None = None) -> dict[str, Any]:
        """GET /search with retries and exponential backoff on 429, 5xx and timeouts."""
        attempts = (self.settings.retries if retries is None else retries) + 1
        retrying = Retrying(
            stop=stop_after_attempt(attempts),
            wait=wait_exponential(multiplier=self.settings.backoff, max=30),
            retry=retry_if_exception_type(_Retry), reraise=True,
        )
        try:
            return retrying(self._get_once, params)
        except _Retry as exc:
            raise BackendError(f"{exc} (after {attempts} attempt(s))") from None

    # -- searches ------------------------------------------------------------------------------
    def search(self, query: str, pages: int | None = None) -> SearchResponse:
        """Search one query over several result pages; stops early at an empty page."""
        response = SearchResponse()
        position = 0
        for pageno in range(1, (pages or self.settings.pages) + 1):
            data = self._get({"q": query, "format": "json", "pageno": pageno,
                              "categories": self.settings.categories,
                              "language": self.settings.language})
            for pair in data.get("unresponsive_engines") or []:
                name, reason = (list(pair) + ["", ""])[:2]
                if (str(name), str(reason)) not in response.unresponsive_engines:
                    response.unresponsive_engines.append((str(name), str(reason)))
            hits = [r for r in data["results"] if isinstance(r, dict) and r.get("url")]
            for hit in hits:
                position += 1
                response.results.append(SearchResult(
                    url=str(hit["url"]), title=str(hit.get("title") or ""),
                    snippet=str(hit.get("content") or ""), engine=str(hit.get("engine") or ""),
                    score=float(hit.get("score") or 0.0), position=position, query=query))
            if not hits:
                break
        for name, reason in response.unresponsive_engines:
            self.unresponsive[name] = reason
        return response

    def search_topic(self, topic: Topic) -> list[SearchResult]:
        """Search every query of a topic; merge, de-duplicate by normalised URL, cap."""
        per_query: list[list[SearchResult]] = []
        for query in topic_queries(topic):
            per_query.append(self.search(query).results)
        merged: list[SearchResult] = []
        seen: set[str] = set()
        for result in _interleave(per_query):
            key = normalize_url(result.url)
            if key in seen or not key.startswith("https://"):
                continue
            seen.add(key)
            merged.append(result)
        if self.unresponsive:
            engines = ", ".join(f"{n} ({r})" if r else n for n, r in self.unresponsive.items())
            if not merged:
                raise BackendError(f"SearXNG found nothing for {topic.slug!r} and these engines "
                                   f"did not answer: {engines} (suspended engines recover after "
                                   "a while; see the SearXNG log)")
            log.warning("SearXNG engines did not answer: %s", engines)
        return merged[: self.settings.max_results]

    def check(self) -> str:
        """One quick search for `nonseq doctor`: the URL, JSON on, results and silent engines."""
        data = self._get({"q": "nonsequitur health check", "format": "json", "pageno": 1}, 0)
        silent = [str(p[0]) for p in data.get("unresponsive_engines") or [] if p]
        detail = f"{self.base} answers JSON ({len(data['results'])} result(s))"
        return detail + (f"; not answering: {', '.join(silent)}" if silent else "")
