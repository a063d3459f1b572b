"""The fetcher against the local web: real pages, hostile pages, limits, robots and blocklists."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from nonseq import queue
from nonseq.errors import UsageError
from nonseq.models import Outcome
from nonseq.research.domains import DomainRegistry
from nonseq.research.fetch import PDF_TYPE, FetchedPage, Fetcher, binary_kind, decode_body, fetch_urls, page_title
from tests.web import LocalWeb

pytestmark = pytest.mark.usefixtures("loopback_only")


@pytest.fixture
def registry(tmp_path: Path) -> DomainRegistry:
    """A registry that trusts news-a.test and blocks spam-e.test (user entries only)."""
    reg = DomainRegistry()
    reg.add_trusted("news-a.test", "press", 0.8, ["science"], tmp_path / "domains")
    reg.add_blocked("spam-e.test", "test spam farm", tmp_path / "domains")
    return reg


def fetch(web: LocalWeb, registry: DomainRegistry, urls: list[str], **changes: Any) -> list[FetchedPage]:
    """Fetch URLs from the local web with its stub resolver."""
    return Fetcher(web.fetch_settings(**changes), registry, web.resolve).fetch_all(urls)


def one(web: LocalWeb, registry: DomainRegistry, url: str, **changes: Any) -> FetchedPage:
    """Fetch a single URL."""
    (page,) = fetch(web, registry, [url], **changes)
    return page


def test_real_pages_are_fetched_and_decoded(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """Every fixture article arrives (gzip-encoded on the wire), decoded, titled, with provenance."""
    pages = fetch(local_web, registry, [p.url for p in local_web.pages])
    by_url = {p.source.url: p for p in pages}
    assert len(by_url) == len(local_web.pages) > 25
    for web_page in local_web.pages:
        page = by_url[web_page.url]
        src = page.source
        assert src.outcome is Outcome.FETCHED, (src.url, src.reason)
        assert src.status == 200 and src.final_url == web_page.url
        assert src.domain == web_page.host and src.bytes == len(web_page.html)
        assert page.content_type == "text/html" and page.text
        assert src.title == web_page.title
        assert page.text == web_page.html.decode("utf-8")  # the fixture pages are UTF-8
        words = [w for w in re.findall(r"\w{4,}", web_page.text.split("\n")[0])[:8]]
        assert words and all(w in page.text for w in words), web_page.url
        assert src.trust_boost == (0.8 if web_page.host == "news-a.test" else 0.0)


def test_stream_yields_pages_as_they_complete(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """A slow page does not hold back a fast one."""
    slow = local_web.url("news-b.test", "/slow-page?ms=800")
    fast = local_web.pages[0].url

    async def run() -> list[str]:
        fetcher = Fetcher(local_web.fetch_settings(), registry, local_web.resolve)
        return [page.source.url async for page in fetcher.stream([slow, fast])]

    assert asyncio.run(run()) == [fast, slow]


def test_a_slow_consumer_holds_at_most_concurrency_pages(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """Pages fetched but not yet taken count against [fetch] concurrency: memory stays bounded."""
    urls = [local_web.url("news-b.test", f"/slow-page?ms=1&n={n}") for n in range(12)]

    async def run() -> tuple[int, int]:
        fetcher = Fetcher(local_web.fetch_settings(concurrency=3, per_domain=3), registry, local_web.resolve)
        stream = fetcher.stream(urls)
        await anext(stream)  # take one page, then stop taking
        stats = local_web.stats["news-b.test"]
        settled, seen = 0, -1
        while settled < 10:  # wait until no new request has started for a while
            await asyncio.sleep(0.05)
            settled, seen = (settled + 1, seen) if len(stats.requests) == seen else (0, len(stats.requests))
        started_while_waiting = len(stats.requests)
        rest = [page async for page in stream]
        return started_while_waiting, len(rest)

    local_web.reset_stats()
    started, rest = asyncio.run(run())
    assert started <= 1 + 3, f"{started} pages requested while the consumer held one"
    assert rest == 11


HOSTILE = [
    ("/huge", Outcome.TOO_LARGE, "cut"),
    ("/huge-declared", Outcome.TOO_LARGE, "Content-Length"),
    ("/slow?s=30", Outcome.TIMEOUT, "within"),
    ("/slow-body?s=30", Outcome.TIMEOUT, "within"),
    ("/binary", Outcome.WRONG_TYPE, "PNG image served as text/html"),
    ("/binary-noise", Outcome.WRONG_TYPE, "binary data"),
    ("/loop-a", Outcome.REDIRECTS, "loop"),
    ("/chain/9", Outcome.REDIRECTS, "more than 5 redirects"),
    ("/to-private", Outcome.REFUSED, "private address 10.0.0.1"),
    ("/to-metadata", Outcome.REFUSED, "cloud metadata address 169.254.169.254"),
    ("/to-metadata-decimal", Outcome.REFUSED, "cloud metadata address 169.254.169.254"),
    ("/to-intranet", Outcome.REFUSED, "intranet.test resolves to private address 10.0.0.1"),
    ("/to-blocked", Outcome.BLOCKED, "redirected to blocked domain spam-e.test: test spam farm"),
    ("/to-file", Outcome.REFUSED, "only http and https"),
    ("/status/404", Outcome.HTTP_ERROR, "HTTP 404"),
    ("/status/500", Outcome.HTTP_ERROR, "HTTP 500"),
    ("/empty", Outcome.EMPTY, "empty body"),
    ("/data.json", Outcome.WRONG_TYPE, "application/json"),
    ("/private/secret.html", Outcome.ROBOTS, "robots.txt"),
]


@pytest.mark.parametrize(("path", "outcome", "reason"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_pages(local_web: LocalWeb, registry: DomainRegistry, path: str, outcome: Outcome,
                       reason: str) -> None:
    """Each hostile page ends in its outcome with a reason, quickly and without text."""
    page = one(local_web, registry, local_web.hostile(path), timeout=0.6, max_bytes=1_000_000)
    src = page.source
    assert src.outcome is outcome, (src.outcome, src.reason)
    assert reason in src.reason
    assert page.text is None and src.domain
    if outcome is Outcome.HTTP_ERROR:
        assert src.status == int(path.rsplit("/", 1)[1])


@pytest.mark.parametrize("path", ["/doc.pdf", "/pdf-as-html"])
def test_pdfs_are_fetched_as_bytes_for_the_document_reader(local_web: LocalWeb, registry: DomainRegistry,
                                                           path: str) -> None:
    """A PDF, by its type or by its first bytes, keeps its raw body (never decoded as text)."""
    page = one(local_web, registry, local_web.hostile(path))
    assert page.source.outcome is Outcome.FETCHED, page.source.reason
    assert page.content_type == PDF_TYPE and page.text is None
    assert page.body.startswith(b"%PDF-") and page.source.bytes == len(page.body)


def test_pdfs_have_their_own_size_limit(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """[research] max_document_bytes, not [fetch] max_bytes, bounds a PDF; a page keeps its limit."""
    url = local_web.url("science-c.test", "/papers/fontconfig-user.pdf")
    settings = local_web.fetch_settings(max_bytes=50_000)
    small = Fetcher(settings, registry, local_web.resolve).fetch_all([url])[0]
    assert small.source.outcome is Outcome.TOO_LARGE, "a document limit defaults to the page limit"
    roomy = Fetcher(settings, registry, local_web.resolve, max_document_bytes=1_000_000).fetch_all([url])[0]
    assert roomy.source.outcome is Outcome.FETCHED and roomy.body[:5] == b"%PDF-"
    page = Fetcher(settings, registry, local_web.resolve, max_document_bytes=1_000_000).fetch_all(
        [local_web.hostile("/huge")])[0]
    assert page.source.outcome is Outcome.TOO_LARGE


def test_redirect_refusals_happen_before_any_connection(local_web: LocalWeb,
                                                        registry: DomainRegistry) -> None:
    """A redirect to a private address is refused with the target as final URL, never contacted."""
    page = one(local_web, registry, local_web.hostile("/to-private"))
    assert page.source.final_url == "http://10.0.0.1/admin"
    assert local_web.hostile("/to-private") == page.source.url


@pytest.mark.parametrize(("path", "needle"), [
    ("/bad-charset", "Café crème"), ("/meta-charset", "Café crème brûlée"),
    ("/header-charset", "Café crème brûlée"),
])
def test_charsets(local_web: LocalWeb, registry: DomainRegistry, path: str, needle: str) -> None:
    """Header charset, meta charset and an invalid charset (replacement, never a crash)."""
    page = one(local_web, registry, local_web.hostile(path))
    assert page.source.outcome is Outcome.FETCHED
    assert page.text is not None and needle in page.text
    if path == "/bad-charset":
        assert "ÿþ€" in page.text  # the unknown charset's bytes 0xFF 0xFE 0x80, read as windows-1252


def test_other_types(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """Plain text is kept as text/plain; an untyped HTML body is sniffed as HTML."""
    plain, untyped = (one(local_web, registry, local_web.hostile(p)) for p in ("/plain.txt", "/no-type"))
    assert plain.source.outcome is Outcome.FETCHED and plain.content_type == "text/plain"
    assert plain.text == "Just plain text.\n"
    assert untyped.content_type == "text/html" and untyped.source.title == "untyped"


def test_redirects_followed_hop_by_hop(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """A cross-host redirect lands on the article (final URL, its domain and boost)."""
    page = one(local_web, registry, local_web.hostile("/to-article"))
    target = local_web.pages[0]
    assert page.source.outcome is Outcome.FETCHED
    assert page.source.final_url == target.url and page.source.domain == target.host
    chain = one(local_web, registry, local_web.hostile("/chain/3"))
    assert chain.source.outcome is Outcome.FETCHED
    assert chain.source.final_url.endswith("/chain/0")
    none = one(local_web, registry, local_web.hostile("/chain/1"), max_redirects=0)
    assert none.source.outcome is Outcome.REDIRECTS


def test_robots(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """robots.txt: per-agent rules, fetched once per host, and switchable off."""
    local_web.reset_stats()
    drafts = local_web.url("science-c.test", "/drafts/x.html")
    urls = [drafts, *(p.url for p in local_web.pages if p.host == "science-c.test")]
    pages = {p.source.url: p.source for p in fetch(local_web, registry, urls)}
    assert pages[drafts].outcome is Outcome.ROBOTS
    assert sum(o.outcome is Outcome.FETCHED for o in pages.values()) == len(urls) - 1
    assert local_web.stats["science-c.test"].requests.count("/robots.txt") == 1
    assert "/drafts/x.html" not in local_web.stats["science-c.test"].requests
    ignored = one(local_web, registry, drafts, respect_robots=False)
    assert ignored.source.outcome is Outcome.HTTP_ERROR and ignored.source.status == 404


def test_blocked_domains_are_never_contacted(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """A blocked domain (and its subdomains) is refused before resolving or connecting."""
    local_web.reset_stats()
    resolved: list[str] = []

    def resolver(host: str) -> list[str]:
        resolved.append(host)
        return local_web.resolve(host)

    urls = [local_web.url("spam-e.test", "/"), "http://sub.spam-e.test/x"]
    pages = Fetcher(local_web.fetch_settings(), registry, resolver).fetch_all(urls)
    assert {p.source.outcome for p in pages} == {Outcome.BLOCKED}
    assert all("test spam farm" in p.source.reason for p in pages)
    assert resolved == [] and local_web.stats["spam-e.test"].requests == []


def test_per_domain_and_global_limits(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """At most per_domain requests in flight per host, and at most concurrency overall."""
    local_web.reset_stats()
    urls = [local_web.url("news-a.test", f"/slow-page?ms=250&n={i}") for i in range(8)]
    pages = fetch(local_web, registry, urls, per_domain=2, concurrency=8)
    assert all(p.source.outcome is Outcome.FETCHED for p in pages)
    assert local_web.stats["news-a.test"].max_inflight == 2
    local_web.reset_stats()
    hosts = ["news-a.test", "news-b.test", "science-c.test", "tech-d.test"]
    urls = [local_web.url(h, f"/slow-page?ms=200&n={i}") for i in range(3) for h in hosts]
    fetch(local_web, registry, urls, per_domain=3, concurrency=3, respect_robots=False)
    assert local_web.total.max_inflight == 3


def test_waiting_for_a_limit_does_not_count_as_timeout(local_web: LocalWeb,
                                                       registry: DomainRegistry) -> None:
    """Queued pages get their full timeout once they start."""
    local_web.reset_stats()
    urls = [local_web.url("tech-d.test", f"/slow-page?ms=250&n={i}") for i in range(6)]
    pages = fetch(local_web, registry, urls, per_domain=1, timeout=0.9)
    # One at a time, each held 0.25 s by the server: the last one waited 1.25 s, past its 0.9 s timeout.
    assert local_web.stats["tech-d.test"].max_inflight == 1
    assert [p.source.outcome for p in pages] == [Outcome.FETCHED] * 6


def test_duplicates_and_fetch_urls(local_web: LocalWeb, registry: DomainRegistry, ws: Any) -> None:
    """A repeated URL is reported once as duplicate; fetch_urls' sources go straight to SQLite."""
    url = local_web.pages[1].url
    pages = fetch_urls([url, url], local_web.fetch_settings(), registry, local_web.resolve, "t")
    assert sorted(p.source.outcome for p in pages) == [Outcome.DUPLICATE, Outcome.FETCHED]
    assert {p.source.topic_slug for p in pages} == {"t"}
    topic = queue.insert_topic(ws.db, "Stadia", "software", ws.categories)
    assert queue.record_sources(ws.db, topic, [p.source for p in pages]) == 2
    stored = queue.list_sources(ws.db, topic)
    assert {s.outcome for s in stored} == {Outcome.FETCHED}  # same URL: the row is replaced


def test_fetch_all_refuses_to_run_inside_a_loop(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """fetch_all is the sync convenience; inside a loop it says to use stream()."""
    fetcher = Fetcher(local_web.fetch_settings(), registry, local_web.resolve)

    async def inside() -> None:
        fetcher.fetch_all([local_web.pages[0].url])

    with pytest.raises(UsageError, match="stream"):
        asyncio.run(inside())


def test_abandoned_stream_closes_cleanly(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """Breaking out of stream() cancels the rest and closes the client."""
    fetcher = Fetcher(local_web.fetch_settings(timeout=3600), registry, local_web.resolve)
    slow = [local_web.url("news-b.test", f"/slow-page?ms=600000&n={i}") for i in range(3)]

    async def run() -> None:
        stream = fetcher.stream([local_web.pages[0].url, *slow])
        async for _page in stream:
            break
        await stream.aclose()
        await fetcher.aclose()

    # The slow pages answer after 10 minutes: waiting for any of them trips this hang guard.
    asyncio.run(asyncio.wait_for(run(), timeout=120))


def test_body_helpers() -> None:
    """decode_body, binary_kind and page_title on their own."""
    assert decode_body("é".encode("utf-8-sig"))[0] == "é"
    assert decode_body("é".encode("cp1252"))[1] == "cp1252"
    assert decode_body(b"caf\xe9", "x-bogus")[0] == "caf\u00e9"
    assert decode_body(b"\xff\xfe\x00", "utf-8")[0].startswith("\ufffd")
    assert binary_kind(b"%PDF-1.7") == "PDF document" and binary_kind(b"<html>") is None
    assert page_title("<title>\n A &amp; B </title>") == "A & B"
