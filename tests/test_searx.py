"""The SearXNG client: a real SearXNG over the local search API, and servers that misbehave."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from nonseq.config import SearxngSettings
from nonseq.errors import BackendError
from nonseq.models import Topic
from nonseq.research.searx import SearxClient, normalize_url, topic_queries
from tests.web import LocalWeb, SearchApi, free_port

pytestmark = pytest.mark.usefixtures("loopback_only")

Starter = Callable[[Callable[..., None]], str]


def topic(title: str, focus: str = "", subs: list[str] | None = None) -> Topic:
    """A topic that is not stored anywhere."""
    return Topic(title=title, slug="t", category="science", focus=focus, sub_queries=subs or [])


@pytest.mark.parametrize(("url", "key"), [
    ("http://www.Example.com/a/?utm_source=x&utm_medium=y", "https://example.com/a"),
    ("https://example.com/a", "https://example.com/a"),
    ("https://example.com:443/a/#frag", "https://example.com/a"),
    ("https://example.com/?fbclid=1&gclid=2&b=2&a=1", "https://example.com?a=1&b=2"),
    ("https://example.com/", "https://example.com"),
    ("http://example.com:8080/x?mc_cid=3&id=7", "https://example.com:8080/x?id=7"),
    ("https://EXAMPLE.com./Path/", "https://example.com/Path"),
    ("https://www.com/x", "https://www.com/x"),
    ("https://[::1]:8443/x", "https://[::1]:8443/x"),
    ("mailto:someone@example.com", "mailto:someone@example.com"),
])
def test_normalize_url(url: str, key: str) -> None:
    """Scheme, www., default port, trailing slash, fragment and tracking parameters go."""
    assert normalize_url(url) == key


def test_topic_queries() -> None:
    """Title, title + focus, then sub-queries; blank and repeated ones dropped."""
    t = topic("  Google Stadia ", "launch problems", ["stadia 4K", "", "google stadia", "Stadia 4k"])
    assert topic_queries(t) == ["Google Stadia", "Google Stadia launch problems", "stadia 4K"]
    assert topic_queries(topic("x" * 500)) == ["x" * 200]


def test_search_real_searxng(searx_settings: SearxngSettings, search_api: SearchApi,
                             local_web: LocalWeb) -> None:
    """A query through SearXNG's json_engine: local pages, ranked, several result pages."""
    search_api.queries.clear()
    with SearxClient(searx_settings) as client:
        response = client.search("bubonic plague china", pages=2)
    urls = [r.url for r in response.results]
    plague = {p.url for p in local_web.topic_pages("plague")}
    assert plague <= set(urls)
    assert [r.position for r in response.results] == list(range(1, len(urls) + 1))
    first = response.results[0]
    assert first.engine == "localweb" and first.query == "bubonic plague china"
    assert first.title and first.snippet and first.score > 0
    assert response.unresponsive_engines == []
    assert {q.get("page") for q in search_api.queries} >= {"1", "2"}


def test_search_topic_merges_dedupes_and_caps(searx_settings: SearxngSettings,
                                              local_web: LocalWeb) -> None:
    """Several queries → one list without duplicate URLs, capped at max_results."""
    t = topic("Google Stadia", "launch reviews", ["Stadia 4K resolution", "WeWork investigation"])
    with SearxClient(searx_settings) as client:
        results = client.search_topic(t)
    keys = [normalize_url(r.url) for r in results]
    assert len(keys) == len(set(keys)) and len(results) > 5
    stadia = {p.url for p in local_web.topic_pages("stadia")}
    assert stadia <= {r.url for r in results}
    assert {r.query for r in results} >= {"Google Stadia", "WeWork investigation"}
    capped = searx_settings.model_copy(update={"max_results": 3})
    with SearxClient(capped) as client:
        assert len(client.search_topic(t)) == 3


def test_nothing_found(searx_settings: SearxngSettings) -> None:
    """A query with no hits gives an empty list (not an error) when every engine answered."""
    with SearxClient(searx_settings) as client:
        assert client.search_topic(topic("qqqzzzxxv nonexistentword")) == []


def test_check_for_doctor(searx_settings: SearxngSettings, ws: Any) -> None:
    """check() (and the doctor's searxng entry) says the URL answers JSON."""
    from nonseq.pipeline.doctor import CHECKS

    with SearxClient(searx_settings) as client:
        assert "answers JSON" in client.check()
    ws.settings.searxng = searx_settings
    assert searx_settings.url in CHECKS["searxng"](ws)


# --- misbehaving servers ------------------------------------------------------------------------


def fast(url: str, **changes: Any) -> SearxngSettings:
    """Client settings with quick retries."""
    values: dict[str, Any] = {"url": url, "timeout": 0.5, "retries": 2, "backoff": 0.01}
    values.update(changes)
    return SearxngSettings(**values)


def answer(status: int, data: Any = None, calls: list[dict[str, str]] | None = None) -> Callable:
    """A route answering every request with status and JSON data."""
    def route(handler: Any, path: str, query: dict[str, str]) -> None:
        if calls is not None:
            calls.append(query)
        body = json.dumps(data).encode() if data is not None else b"{}"
        handler.send(status, body, "application/json")
    return route


def test_json_disabled_403(http_server: Starter) -> None:
    """403: says to add json to search.formats, no retries."""
    calls: list[dict[str, str]] = []
    url = http_server(answer(403, calls=calls))
    with pytest.raises(BackendError, match=r"add `json` to `search.formats`"):
        SearxClient(fast(url)).search("x")
    assert len(calls) == 1


def test_rate_limited_429_retries_then_fails(http_server: Starter) -> None:
    """429: retried with backoff, then a clear message about the limiter."""
    calls: list[dict[str, str]] = []
    url = http_server(answer(429, calls=calls))
    with pytest.raises(BackendError, match=r"limiter.*after 3 attempt") as err:
        SearxClient(fast(url)).search("x")
    assert len(calls) == 3 and "\n" not in str(err.value)


def test_server_error_then_success(http_server: Starter) -> None:
    """A 502 followed by a good answer is retried transparently."""
    calls: list[dict[str, str]] = []

    def route(handler: Any, path: str, query: dict[str, str]) -> None:
        calls.append(query)
        if len(calls) == 1:
            handler.send(502, b"bad gateway", "text/plain")
            return
        data = {"results": [{"url": "https://a.test/x", "title": "X", "content": "c",
                             "engine": "e", "score": 1.0}], "unresponsive_engines": []}
        handler.send(200, json.dumps(data).encode(), "application/json")

    result = SearxClient(fast(http_server(route))).search("x", pages=1)
    assert [r.url for r in result.results] == ["https://a.test/x"] and len(calls) == 2


def test_timeout_retries_then_fails(http_server: Starter) -> None:
    """A server slower than the timeout: retried, then 'did not answer'."""
    calls: list[str] = []

    def route(handler: Any, path: str, query: dict[str, str]) -> None:
        calls.append(path)
        handler.server.stopping.wait(600)  # never answers in time: only the client's timeout ends a call

    with pytest.raises(BackendError, match=r"did not answer within 0.3s \(after 2 attempt"):
        SearxClient(fast(http_server(route), timeout=0.3, retries=1)).search("x")
    assert calls == ["/search", "/search"]  # one retry, each ended by the timeout


def test_connection_refused() -> None:
    """Nothing listening: says how to start one."""
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(BackendError, match=r"no SearXNG at .*start one with `nonseq searxng start`"):
        SearxClient(fast(url)).search("x")


def test_unresponsive_engines(http_server: Starter) -> None:
    """Silent engines are reported; with no results at all search_topic says so."""
    data = {"results": [{"url": "https://a.test/1?utm_source=z", "title": "one"},
                        {"url": "https://a.test/1", "title": "dup"}, {"title": "no url"}],
            "unresponsive_engines": [["google", "CAPTCHA"], ["brave", "timeout"]]}
    client = SearxClient(fast(http_server(answer(200, data))))
    response = client.search("x", pages=1)
    assert response.unresponsive_engines == [("google", "CAPTCHA"), ("brave", "timeout")]
    assert [r.title for r in client.search_topic(topic("x"))] == ["one"]
    assert client.unresponsive == {"google": "CAPTCHA", "brave": "timeout"}
    empty = SearxClient(fast(http_server(answer(200, {"results": [], "unresponsive_engines":
                                                      [["google", "too many requests"]]}))))
    with pytest.raises(BackendError, match=r"found nothing .* google \(too many requests\)"):
        empty.search_topic(topic("x"))


@pytest.mark.parametrize(("status", "data", "needle"), [
    (200, ["not", "a", "dict"], "without a results list"),
    (404, {}, "answered HTTP 404"),
])
def test_not_a_searxng(http_server: Starter, status: int, data: Any, needle: str) -> None:
    """Other servers give a one-line error."""
    with pytest.raises(BackendError, match=needle):
        SearxClient(fast(http_server(answer(status, data)))).search("x")


def test_html_instead_of_json(http_server: Starter) -> None:
    """An HTML answer is not mistaken for results."""
    def route(handler: Any, path: str, query: dict[str, str]) -> None:
        handler.send(200, b"<html>hi</html>")

    with pytest.raises(BackendError, match="did not answer JSON"):
        SearxClient(fast(http_server(route))).search("x")
