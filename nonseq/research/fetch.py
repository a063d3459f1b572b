"""Fetching pages: async httpx, concurrency limits, size/type/charset checks, robots, SSRF guard."""

from __future__ import annotations

import asyncio
import codecs
import html
import re
import ssl
import time
import zlib
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from email.message import Message
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

from nonseq.config import FetchSettings
from nonseq.errors import UsageError
from nonseq.models import Outcome, Source
from nonseq.research.domains import DomainRegistry, normalize_host
from nonseq.research.robots import RobotsCache, origin_of
from nonseq.research.ssrf import Guard, GuardRefusal, PinnedTransport, ResolveError, Resolver, pin_key
from nonseq.text.files import binary_kind, bom_codec
from nonseq.text.urls import strip_credentials

TEXT_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
#: The one binary type fetched: its bytes go to the document reader (nonseq.research.documents).
PDF_TYPE = "application/pdf"
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
ROBOTS_MAX_BYTES = 512_000
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.I)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.I | re.S)
_HTML_START = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)", re.I | re.S)


@dataclass
class FetchedPage:
    """A fetch outcome (always a Source) and, when fetched, the decoded body (a PDF's raw bytes)."""

    source: Source
    text: str | None = None
    content_type: str = ""
    body: bytes = b""


@dataclass
class _Answer:
    """What one request chain produced, before it becomes a FetchedPage."""

    outcome: Outcome
    reason: str = ""
    status: int | None = None
    final_url: str = ""
    body: bytes = b""
    content_type: str = ""
    charset: str = ""
    redirects: list[str] = field(default_factory=list)


class _Stop(Exception):
    """Ends a request chain with an outcome."""

    def __init__(self, outcome: Outcome, reason: str, status: int | None = None) -> None:
        super().__init__(reason)
        self.outcome, self.reason, self.status = outcome, reason, status


# --- bounded decoding ---------------------------------------------------------------------------

#: Largest piece a decoder hands on at once (a stacked gzip bomb never expands in one go).
DECODE_STEP = 64 * 1024
ACCEPT_ENCODING = "gzip, deflate"


class _Inflater:
    """One gzip or deflate layer, inflated in pieces of at most DECODE_STEP bytes."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.obj: zlib._Decompress | None = None

    def _new(self, head: bytes) -> zlib._Decompress:
        """A decompressor for gzip, zlib-wrapped deflate or raw deflate (guessed from the head)."""
        if self.coding != "deflate":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        zlib_wrapped = len(head) >= 2 and head[0] & 0x0F == 8 and (head[0] << 8 | head[1]) % 31 == 0
        return zlib.decompressobj(zlib.MAX_WBITS if zlib_wrapped else -zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Inflate `data`, yielding bounded pieces (gzip members may follow one another)."""
        while data or self.obj is not None:
            if self.obj is None:
                self.obj = self._new(data)
            elif self.obj.eof:
                data = self.obj.unused_data + data
                self.obj = None
                if not data.startswith(b"\x1f\x8b"):  # trailing bytes after the last member
                    return
                continue
            out = self.obj.decompress(data, DECODE_STEP)
            data = self.obj.unconsumed_tail
            if out:
                yield out
            if not data and len(out) < DECODE_STEP:
                return


class BodyDecoder:
    """Undoes a Content-Encoding chain (e.g. "gzip, gzip") step by step with an output bound."""

    def __init__(self, header: str, limit: int) -> None:
        codings = [c.strip().lower() for c in header.split(",") if c.strip()]
        self.layers: list[_Inflater] = []
        for coding in reversed(codings):
            if coding in ("gzip", "x-gzip", "deflate"):
                self.layers.append(_Inflater("deflate" if coding == "deflate" else "gzip"))
            elif coding != "identity":
                raise _Stop(Outcome.WRONG_TYPE, f"unsupported Content-Encoding {coding!r}")
        self.limit = limit
        self.produced = [0] * (len(self.layers) + 1)

    def feed(self, raw: bytes) -> Iterator[bytes]:
        """Decoded pieces of a raw network chunk; _Stop(TOO_LARGE) past the limit at any layer."""
        try:
            yield from self._through(0, raw)
        except zlib.error as exc:
            raise _Stop(Outcome.ERROR, f"corrupt compressed body: {exc}") from None

    def _through(self, layer: int, data: bytes) -> Iterator[bytes]:
        """Push `data` through layers[layer:], counting every layer's output against the limit."""
        self.produced[layer] += len(data)
        if self.produced[layer] > self.limit:
            raise _Stop(Outcome.TOO_LARGE, f"body larger than {self.limit} bytes once decoded (cut)")
        if layer == len(self.layers):
            if data:
                yield data
            return
        for piece in self.layers[layer].feed(data):
            yield from self._through(layer + 1, piece)


class BodyRefused(Exception):
    """A body refused by read_bounded: over the decoded-size limit, or corrupt."""


class BodyTimedOut(BodyRefused):
    """A body still arriving at read_bounded's deadline."""


def read_bounded(raw_chunks: Iterable[bytes], encoding: str, limit: int, deadline: float) -> bytes:
    """A body decoded from raw network chunks with the page limits: at most `limit` bytes at every
    layer (a gzip bomb stops at the limit), and nothing after `deadline` (time.monotonic())."""
    pieces: list[bytes] = []
    try:
        decoder = BodyDecoder(encoding, limit)  # an unknown coding is refused too
        for raw in raw_chunks:
            if time.monotonic() > deadline:
                raise BodyTimedOut("no complete answer in time")
            pieces.extend(decoder.feed(raw))
    except _Stop as stop:
        raise BodyRefused(stop.reason) from None
    return b"".join(pieces)


# --- body checks --------------------------------------------------------------------------------


def _media_type(header: str) -> tuple[str, str]:
    """(media type, charset) of a Content-Type header, lower-case; empty when absent."""
    if not header:
        return "", ""
    msg = Message()
    msg["content-type"] = header
    charset = msg.get_param("charset")
    return msg.get_content_type().lower(), str(charset).strip().lower() if charset else ""


def _codec(name: str) -> str | None:
    """The Python codec for a charset label, None when unknown."""
    try:
        return codecs.lookup(name.strip().strip("\"'")).name if name else None
    except LookupError:
        return None


def decode_body(body: bytes, charset: str = "", is_html: bool = True) -> tuple[str, str]:
    """Decode a body: BOM, then the header charset, <meta charset>, UTF-8, else windows-1252."""
    bom = bom_codec(body)
    if bom:
        return body.decode(bom, errors="replace"), bom
    meta = _META_CHARSET.search(body[:4096]) if is_html else None
    for label in (charset, meta.group(1).decode("ascii", "ignore") if meta else ""):
        codec = _codec(label)
        if codec:
            return body.decode(codec, errors="replace"), codec
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return body.decode("cp1252", errors="replace"), "cp1252"


def page_title(text: str) -> str:
    """The <title> of an HTML text, collapsed to one line (empty when none)."""
    match = _TITLE.search(text[:200_000])
    return " ".join(html.unescape(match.group(1)).split())[:300] if match else ""


def _is_pdf(media: str, head: bytes, url: str) -> bool:
    """True for a PDF: by its type, its first bytes, or an untyped body at a .pdf URL."""
    return media == PDF_TYPE or head.startswith(b"%PDF-") or (
        media in ("", "application/octet-stream") and urlsplit(url).path.lower().endswith(".pdf"))


def _check_type(media: str, head: bytes, url: str) -> str:
    """The media type to keep (PDF_TYPE for PDFs), or raise _Stop(WRONG_TYPE) for binaries and other types."""
    if _is_pdf(media, head, url):
        return PDF_TYPE
    if media and media not in TEXT_TYPES:
        raise _Stop(Outcome.WRONG_TYPE, f"content type {media} is not HTML or plain text")
    kind = binary_kind(head)
    if kind:
        raise _Stop(Outcome.WRONG_TYPE, f"{kind} served as {media or 'an untyped body'}")
    if not media:
        return "text/html" if _HTML_START.match(head) else "text/plain"
    return media


def _parse(url: str) -> tuple[str, str, httpx.URL | None, str]:
    """(scheme, host as connect_tcp will see it, httpx URL or None, problem) of a URL."""
    try:
        split = urlsplit(url)
        host = (split.hostname or "").lower()
    except ValueError as exc:
        return "", "", None, f"invalid URL: {exc}"
    try:
        parsed = httpx.URL(url)
        return split.scheme.lower(), pin_key(parsed), parsed, ""
    except (httpx.InvalidURL, UnicodeError) as exc:
        return split.scheme.lower(), host, None, f"invalid URL: {exc}"


# --- the fetcher --------------------------------------------------------------------------------


class Fetcher:
    """Fetches URLs politely and safely; every outcome becomes a models.Source."""

    def __init__(
        self, settings: FetchSettings, registry: DomainRegistry, resolver: Resolver | None = None,
        *, network_backend: httpcore.AsyncNetworkBackend | None = None,
        ssl_context: ssl.SSLContext | None = None, max_document_bytes: int | None = None,
    ) -> None:
        self.settings = settings
        #: The size limit of a PDF body ([research] max_document_bytes; pages have [fetch] max_bytes).
        self.max_document_bytes = max_document_bytes or settings.max_bytes
        self.ssl_context = ssl_context
        self.registry = registry
        self.guard = Guard(settings.allow_private, tuple(settings.allow_hosts), resolver, dict(settings.hosts))
        self.network_backend = network_backend
        self.robots = RobotsCache(settings.user_agent, self._fetch_robots)
        self._pins: dict[str, str] = {}
        self._client: httpx.AsyncClient | None = None
        self._global = asyncio.Semaphore(settings.concurrency)
        self._per_domain: dict[str, asyncio.Semaphore] = {}

    # -- public API ----------------------------------------------------------------------------
    async def stream(self, urls: Iterable[str]) -> AsyncIterator[FetchedPage]:
        """Fetch URLs concurrently and yield each page as soon as it is done (duplicates first)."""
        todo: list[str] = []
        seen: set[str] = set()
        for url in urls:
            if url in seen:
                yield self._page(url, _Answer(Outcome.DUPLICATE, "listed twice"), 0.0)
                continue
            seen.add(url)
            todo.append(url)
        self._global = asyncio.Semaphore(self.settings.concurrency)
        self._per_domain = {}
        self._pins = {}
        transport = PinnedTransport(self._pins, max_connections=self.settings.concurrency * 2,
                                    network_backend=self.network_backend,
                                    ssl_context=self.ssl_context)
        async with httpx.AsyncClient(
            transport=transport, follow_redirects=False, trust_env=False,
            headers=self._headers(), timeout=httpx.Timeout(self.settings.timeout),
        ) as client:
            self._client = client
            # A fetched page holds its slot until the consumer takes it: at most `concurrency`
            # pages are in flight or waiting, however slowly they are consumed (bounded memory).
            window = asyncio.Semaphore(self.settings.concurrency)
            tasks = [asyncio.create_task(self._fetch_in(window, url)) for url in todo]
            try:
                for done in asyncio.as_completed(tasks):
                    page = await done
                    yield page
                    window.release()
            finally:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                self._client = None

    def fetch_all(self, urls: Iterable[str]) -> list[FetchedPage]:
        """Fetch URLs and return every page (in completion order); not for use inside a loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._collect(list(urls)))
        raise UsageError("fetch_all() cannot run inside an event loop: use `async for` on stream()")

    async def aclose(self) -> None:
        """Close the HTTP client of a stream that was abandoned half-way (harmless otherwise)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def _collect(self, urls: list[str]) -> list[FetchedPage]:
        """All pages of stream() in a list."""
        return [page async for page in self.stream(urls)]

    # -- one URL -------------------------------------------------------------------------------
    def _headers(self) -> dict[str, str]:
        """Headers sent with every request."""
        return {"User-Agent": self.settings.user_agent,
                "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,application/pdf;q=0.8,*/*;q=0.1",
                "Accept-Language": "en;q=0.9,*;q=0.5", "Accept-Encoding": ACCEPT_ENCODING}

    async def _fetch_in(self, window: asyncio.Semaphore, url: str) -> FetchedPage:
        """Fetch one URL once the window has room (stream() gives the room back when the page is taken)."""
        await window.acquire()
        return await self._fetch_one(url)

    async def _fetch_one(self, url: str) -> FetchedPage:
        """Fetch one URL under the global limit; never raises (except cancellation)."""
        async with self._global:
            started = time.monotonic()
            try:
                answer = await self._follow(url, self.settings.max_bytes, page=True)
            except Exception as exc:  # noqa: BLE001 - every failure becomes an outcome
                answer = _Answer(Outcome.ERROR, f"{type(exc).__name__}: {exc}"[:300])
            return self._page(url, answer, time.monotonic() - started)

    def _page(self, url: str, answer: _Answer, seconds: float) -> FetchedPage:
        """Turn an answer into a FetchedPage with its Source."""
        url, final = strip_credentials(url), strip_credentials(answer.final_url or url)
        text: str | None = None
        title = ""
        if answer.outcome is Outcome.FETCHED and answer.content_type != PDF_TYPE:
            is_html = answer.content_type != "text/plain"
            text, _ = decode_body(answer.body, answer.charset, is_html)
            title = page_title(text) if is_html else ""
        source = Source(
            url=url, final_url=final, domain=normalize_host(final) or normalize_host(url),
            outcome=answer.outcome,
            status=answer.status, reason=answer.reason, bytes=len(answer.body),
            seconds=round(seconds, 3), title=title, trust_boost=self.registry.boost(final),
        )
        body = answer.body if answer.content_type == PDF_TYPE else b""
        return FetchedPage(source, text, answer.content_type, body)

    async def _follow(self, url: str, max_bytes: int, page: bool) -> _Answer:
        """Follow a redirect chain hop by hop, checking every hop; the answer of the last one."""
        current, seen = url, {url}
        hops: list[str] = []
        budget = self.settings.timeout  # request time only: waiting for a limit is not counted
        while True:
            try:
                next_url, spent = await self._hop(current, max_bytes, page, budget, bool(hops))
            except _Stop as stop:
                return _Answer(stop.outcome, stop.reason, stop.status, current, redirects=hops)
            except _Done as done:
                done.answer.final_url, done.answer.redirects = current, hops
                return done.answer
            budget -= spent
            hops.append(current)
            if next_url in seen:
                return _Answer(Outcome.REDIRECTS, f"redirect loop back to {next_url}",
                               final_url=current, redirects=hops)
            if len(hops) > self.settings.max_redirects:
                return _Answer(Outcome.REDIRECTS, f"more than {self.settings.max_redirects} "
                               "redirects", final_url=current, redirects=hops)
            seen.add(next_url)
            current = next_url

    async def _check(self, url: str, page: bool, redirected: bool) -> httpx.URL:
        """Scheme, blocklist, SSRF guard and robots checks of one hop; raise _Stop to refuse."""
        scheme, host, parsed, problem = _parse(url)
        if problem and not host:
            raise _Stop(Outcome.ERROR, problem[:300])
        if scheme not in ("http", "https") or not host:
            raise _Stop(Outcome.REFUSED, f"only http and https URLs are fetched (not {scheme or url!r})")
        info = self.registry.lookup(url)
        if info.blocked:
            via = "redirected to " if redirected else ""
            raise _Stop(Outcome.BLOCKED, f"{via}blocked domain {info.domain}: {info.reason}")
        if host not in self._pins:
            try:
                self._pins[host] = await self.guard.pin(host)
            except GuardRefusal as exc:
                raise _Stop(Outcome.REFUSED, str(exc)) from None
            except ResolveError as exc:
                raise _Stop(Outcome.ERROR, str(exc)) from None
        if parsed is None:  # the guard had its say first: 0177.0.0.1 is refused, not "invalid"
            raise _Stop(Outcome.ERROR, problem[:300])
        if page and self.settings.respect_robots and not await self.robots.allowed(url):
            raise _Stop(Outcome.ROBOTS, f"disallowed by {origin_of(url)}/robots.txt")
        return parsed

    def _domain_limit(self, url: str) -> asyncio.Semaphore:
        """The semaphore limiting requests in flight to one domain."""
        key = normalize_host(url)
        if key not in self._per_domain:
            self._per_domain[key] = asyncio.Semaphore(self.settings.per_domain)
        return self._per_domain[key]

    async def _hop(self, url: str, max_bytes: int, page: bool, budget: float,
                   redirected: bool) -> tuple[str, float]:
        """One checked request: (redirect target, seconds spent), or raise _Done/_Stop."""
        parsed = await self._check(url, page, redirected)
        async with self._domain_limit(url):
            started = time.monotonic()
            if budget <= 0:
                raise _Stop(Outcome.TIMEOUT, f"no answer within {self.settings.timeout:g}s")
            try:
                async with asyncio.timeout(budget):
                    target = await self._request(parsed, max_bytes, page)
            except TimeoutError:
                raise _Stop(Outcome.TIMEOUT,
                            f"no complete answer within {self.settings.timeout:g}s") from None
            except httpx.TimeoutException:
                raise _Stop(Outcome.TIMEOUT, "timed out") from None
            except httpx.HTTPError as exc:
                reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                raise _Stop(Outcome.ERROR, reason[:300]) from None
            return target, time.monotonic() - started

    async def _request(self, url: httpx.URL, max_bytes: int, page: bool) -> str:
        """Send one GET, read what is allowed of the body; return a redirect target or raise."""
        assert self._client is not None
        request = self._client.build_request("GET", url)
        response = await self._client.send(request, stream=True)
        try:
            status = response.status_code
            location = response.headers.get("location")
            if status in REDIRECT_CODES and location:
                return urljoin(str(url), location.strip())
            if not 200 <= status < 300:
                raise _Stop(Outcome.HTTP_ERROR, f"HTTP {status} {response.reason_phrase}".strip(),
                            status)
            answer = await self._read(response, max_bytes, page)
            answer.status = status
            raise _Done(answer)
        finally:
            await response.aclose()

    async def _read(self, response: httpx.Response, max_bytes: int, page: bool) -> _Answer:
        """Stream the body up to max_bytes; pages are type-checked and refused when too large."""
        media, charset = _media_type(response.headers.get("content-type", ""))
        declared = response.headers.get("content-length", "")
        if page and media and media not in TEXT_TYPES:
            media = _check_type(media, b"", str(response.url))  # refused on the header alone
        if page and _is_pdf(media, b"", str(response.url)):
            max_bytes = max(max_bytes, self.max_document_bytes)
        if page and declared.isdigit() and int(declared) > max_bytes:
            raise _Stop(Outcome.TOO_LARGE, f"Content-Length {declared} > {max_bytes} bytes",
                        response.status_code)
        chunks: list[bytes] = []
        try:
            media = await self._collect_body(response, media, max_bytes, page, chunks)
        except _Stop as stop:
            if stop.outcome is Outcome.TOO_LARGE:
                stop.status = response.status_code
            if page or stop.outcome is not Outcome.TOO_LARGE:
                raise
            chunks = [b"".join(chunks)[:max_bytes]]  # robots.txt: keep the first part
        body = b"".join(chunks)
        if not body:
            if page:
                _check_type(media, b"", str(response.url))
            return _Answer(Outcome.EMPTY, "empty body", content_type=media)
        return _Answer(Outcome.FETCHED, body=body, content_type=media, charset=charset)

    async def _collect_body(self, response: httpx.Response, media: str, max_bytes: int, page: bool,
                            chunks: list[bytes]) -> str:
        """Append the decoded body to `chunks` (decoding raw bytes ourselves, bounded); the media type."""
        decoder = BodyDecoder(response.headers.get("content-encoding", ""), max_bytes)
        async for raw in response.aiter_raw():
            for piece in decoder.feed(raw):
                if page and not chunks:
                    media = _check_type(media, piece[:2048], str(response.url))
                    if media == PDF_TYPE:  # sniffed: a PDF gets the document limit
                        decoder.limit = max(max_bytes, self.max_document_bytes)
                chunks.append(piece)
        return media

    async def _fetch_robots(self, robots_url: str) -> tuple[int | None, str]:
        """GET robots.txt through the same checks (without robots itself); (status, text)."""
        answer = await self._follow(robots_url, ROBOTS_MAX_BYTES, page=False)
        if answer.outcome in (Outcome.FETCHED, Outcome.EMPTY):
            return answer.status or 200, answer.body.decode("utf-8", errors="replace")
        if answer.outcome is Outcome.HTTP_ERROR:
            return answer.status, ""
        return None, ""


class _Done(Exception):
    """Ends a request chain with a complete answer."""

    def __init__(self, answer: _Answer) -> None:
        super().__init__(answer.outcome)
        self.answer = answer


def fetch_urls(
    urls: Iterable[str], settings: FetchSettings, registry: DomainRegistry,
    resolver: Resolver | None = None, topic_slug: str = "",
) -> list[FetchedPage]:
    """Fetch URLs (sync); each page's Source carries topic_slug, ready for queue.record_sources."""
    pages = Fetcher(settings, registry, resolver).fetch_all(urls)
    for page in pages:
        page.source.topic_slug = topic_slug
    return pages
