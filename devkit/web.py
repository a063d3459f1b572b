"""A local web for tests and benches: real article pages under several hosts on 127.0.0.0/8, hostile pages,
a JSON search API over the pages, and a real SearXNG using that API as its only engine.

Host names (news-a.test...) exist only in `LocalWeb.resolve`, the stub resolver handed to the
fetcher: nothing here ever asks a real DNS server (and tests/loopback.py's `loopback_only` fails
any test that tries to resolve a name or connect outside 127.0.0.0/8).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from nonseq.config import VECTOR_CACHE_ENV, FetchSettings

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures"
WEB_DIR = FIXTURES / "web"
DOCS_DIR = FIXTURES / "documents"
#: Real PDFs the local web serves (path on science-c.test → fixture file); not in the search index.
PDFS = {"/papers/fontconfig-user.pdf": DOCS_DIR / "fontconfig-user.pdf"}
#: Content hosts and the loopback address each one is served on.
HOSTS = {
    "news-a.test": "127.0.0.2",
    "news-b.test": "127.0.0.3",
    "science-c.test": "127.0.0.4",
    "tech-d.test": "127.0.0.5",
    "hostile.test": "127.0.0.6",
    "spam-e.test": "127.0.0.7",
}
#: Names the stub resolver maps to addresses nobody may connect to (never contacted).
PRIVATE_NAMES = {
    "intranet.test": ["10.0.0.1"],
    "router.test": ["192.168.1.1"],
    "meta-alias.test": ["169.254.169.254"],
    "rebind.test": ["127.0.0.2", "10.0.0.7"],
    "v6-private.test": ["fd12:3456::1"],
    "mapped.test": ["::ffff:10.0.0.1"],
    "public.test": ["93.184.216.34"],
}
#: Topics the local web covers (title, category), for night runs: the team test takes the first nine.
NIGHT_TOPICS = [
    ("Google Stadia game streaming launch", "software"),
    ("NASA commercial lunar lander program", "space"),
    ("Water plumes on Jupiter's moon Europa", "space"),
    ("Hibernating astronauts and smaller spacecraft", "space"),
    ("Feather duvet lung disease", "health"),
    ("Plague cases diagnosed in China", "health"),
    ("WeWork investigated by the New York attorney general", "business"),
    ("South Dakota meth anti-drug campaign", "policy"),
    ("Audi e-tron Sportback electric coupe", "hardware"),
    ("MacBook Pro with a scissor keyboard", "hardware"),
    ("US-China trade war tariff deal", "finance"),
    ("Sweden drops the Julian Assange investigation", "policy"),
]

ROBOTS = {
    "news-b.test": "User-agent: *\nAllow: /\n",
    "science-c.test": "User-agent: NonSequitur\nDisallow: /drafts/\n\nUser-agent: *\nDisallow:\n",
    "hostile.test": "User-agent: *\nDisallow: /private/\n",
}
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({
    "the", "a", "an", "and", "or", "of", "to", "in", "on", "for", "with", "is", "are", "was",
    "be", "by", "at", "as", "it", "its", "from", "that", "this", "what", "how", "why", "who",
})
PDF_BYTES = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
PNG_BYTES = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8


#: The local web's port when it is free (see _common_port).
PREFERRED_PORT = 48123


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def terms(text: str) -> list[str]:
    """Lower-case words of a text without stopwords (the search API's tokenizer)."""
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1]


@dataclass
class WebPage:
    """One fixture article as served by the local web."""

    id: str
    topic: str
    host: str
    path: str
    title: str
    text: str
    original_url: str
    url: str = ""

    @cached_property
    def gz(self) -> bytes:
        """The stored gzipped HTML."""
        return (WEB_DIR / "html" / f"{self.id}.html.gz").read_bytes()

    @cached_property
    def html(self) -> bytes:
        """The HTML bytes."""
        return gzip.decompress(self.gz)


@dataclass
class HostStats:
    """What one host saw: request paths, and the most /slow-page requests in flight at once."""

    requests: list[str] = field(default_factory=list)
    inflight: int = 0
    max_inflight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        """Forget what was seen."""
        with self.lock:
            self.requests.clear()
            self.max_inflight = self.inflight


def load_pages() -> list[WebPage]:
    """The fixture pages with their article text (ground truth)."""
    manifest = json.loads((WEB_DIR / "pages.json").read_text(encoding="utf-8"))
    truth = json.loads((WEB_DIR / "ground-truth.json").read_text(encoding="utf-8"))
    return [WebPage(id=p["id"], topic=p["topic"], host=p["host"], path=p["path"],
                    title=p["title"], text=truth[p["id"]]["articleBody"],
                    original_url=p["original_url"]) for p in manifest["pages"]]


# --- HTTP plumbing ------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    """A threading server that knows which site it is and can stop sleeping handlers."""

    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, address: tuple[str, int], handler: type, site: Any) -> None:
        self.site = site
        self.stopping = threading.Event()
        super().__init__(address, handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a fetch cancelled, a timeout) is not an error; anything else is."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """Dispatches to the site's route(handler, path, query)."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet."""

    def do_GET(self) -> None:  # noqa: N802
        """Route one GET."""
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.server.site.route(self, parts.path, query)

    def send(self, status: int, body: bytes = b"", ctype: str | None = "text/html; charset=utf-8",
             headers: dict[str, str] | None = None) -> None:
        """Send a complete answer."""
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str, status: int = 302) -> None:
        """Send a redirect."""
        self.send(status, b"", None, {"Location": location})


def start_server(site: Any, host: str = "127.0.0.1", port: int = 0) -> _Server:
    """Serve a site (an object with route()) on host:port in a daemon thread."""
    server = _Server((host, port), _Handler, site)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True,
                     name=f"web-{host}").start()
    return server


def stop_server(server: _Server) -> None:
    """Stop a server started by start_server."""
    server.stopping.set()
    server.shutdown()
    server.server_close()


class FuncSite:
    """A one-function site: route(handler, path, query) for ad-hoc servers in tests."""

    def __init__(self, func: Callable[[_Handler, str, dict[str, str]], None]) -> None:
        self.route = func
        self.calls: list[str] = []


# --- the local web ------------------------------------------------------------------------------


class LocalWeb:
    """The sites: fixture articles on four hosts, hostile pages on hostile.test, spam on spam-e."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.base = {host: f"http://{host}:{port}" for host in HOSTS}
        self.pages = load_pages()
        self.stats = {host: HostStats() for host in HOSTS}
        self.total = HostStats()
        for page in self.pages:
            page.url = self.base[page.host] + page.path
        self._by_path = {(p.host, p.path): p for p in self.pages}
        self.servers: list[_Server] = []

    # -- helpers for tests ---------------------------------------------------------------------
    def url(self, host: str, path: str) -> str:
        """The URL of a path on a host of the local web."""
        return self.base[host] + path

    def hostile(self, path: str) -> str:
        """The URL of a hostile page."""
        return self.url("hostile.test", path)

    def resolve(self, host: str) -> list[str]:
        """The stub resolver: local names → loopback, private names → never-contacted addresses."""
        name = host.lower().rstrip(".")
        if name in HOSTS:
            return [HOSTS[name]]
        if name in PRIVATE_NAMES:
            return list(PRIVATE_NAMES[name])
        raise LookupError(f"{host} is not a name of the local web (no real DNS in tests)")

    def fetch_settings(self, **changes: Any) -> FetchSettings:
        """Fetch settings for the local web: loopback allowed, short timeouts."""
        values: dict[str, Any] = {"allow_hosts": ["127.0.0.0/8"], "timeout": 3.0,
                                  "max_bytes": 2_000_000, "concurrency": 8, "per_domain": 2}
        values.update(changes)
        return FetchSettings(**values)

    def topic_pages(self, topic: str) -> list[WebPage]:
        """The pages of one fixture topic."""
        return [p for p in self.pages if p.topic == topic]

    def reset_stats(self) -> None:
        """Forget every host's requests."""
        for stats in [*self.stats.values(), self.total]:
            stats.reset()

    # -- serving -------------------------------------------------------------------------------
    def host_of(self, handler: _Handler) -> str:
        """Which host a request reached (by the address it was sent to)."""
        ip = handler.server.server_address[0]
        return next(name for name, addr in HOSTS.items() if addr == ip)

    def route(self, handler: _Handler, path: str, query: dict[str, str]) -> None:
        """Serve one request, counting it and the requests in flight on its host."""
        host = self.host_of(handler)
        for stats in (self.stats[host], self.total):
            with stats.lock:
                stats.requests.append(path)
        self._serve(handler, host, path, query)

    def _busy(self, host: str, seconds: float, stop: threading.Event) -> None:
        """Sleep while counted as in flight (counted only while the client surely waits)."""
        both = (self.stats[host], self.total)
        for stats in both:
            with stats.lock:
                stats.inflight += 1
                stats.max_inflight = max(stats.max_inflight, stats.inflight)
        try:
            stop.wait(seconds)
        finally:
            for stats in both:
                with stats.lock:
                    stats.inflight -= 1

    def _serve(self, handler: _Handler, host: str, path: str, query: dict[str, str]) -> None:
        """The routes shared by every host, then the hostile ones."""
        if path == "/robots.txt":
            text = ROBOTS.get(host)
            if text is None:
                handler.send(404, b"not found", "text/plain")
            else:
                handler.send(200, text.encode(), "text/plain")
            return
        page = self._by_path.get((host, path))
        if page is not None:
            self._send_page(handler, page)
        elif host == "science-c.test" and path in PDFS:
            handler.send(200, PDFS[path].read_bytes(), "application/pdf")
        elif path == "/slow-page":
            self._busy(host, int(query.get("ms", "200")) / 1000, handler.server.stopping)
            handler.send(200, f"<html><title>slow {query.get('n', '')}</title></html>".encode())
        elif path == "/":
            links = "".join(f'<li><a href="{p.path}">{p.title}</a></li>'
                            for p in self.pages if p.host == host)
            handler.send(200, f"<html><title>{host}</title><ul>{links}</ul></html>".encode())
        elif host == "hostile.test":
            hostile_route(self, handler, path, query)
        else:
            handler.send(404, b"<html><title>404</title></html>")

    @staticmethod
    def _send_page(handler: _Handler, page: WebPage) -> None:
        """An article, gzip-encoded when the client accepts it (as real servers do)."""
        if "gzip" in handler.headers.get("Accept-Encoding", ""):
            handler.send(200, page.gz, headers={"Content-Encoding": "gzip"})
        else:
            handler.send(200, page.html)

    def start(self) -> None:
        """Serve every host on its own loopback address, all on self.port."""
        for ip in HOSTS.values():
            self.servers.append(start_server(self, ip, self.port))

    def stop(self) -> None:
        """Stop every server."""
        for server in self.servers:
            stop_server(server)


def _stream(handler: _Handler, chunk: bytes, limit: int, declared: int | None) -> None:
    """Send chunk repeatedly (up to limit bytes) until the client goes away."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html; charset=utf-8")
    if declared is None:
        handler.send_header("Transfer-Encoding", "chunked")
    else:
        handler.send_header("Content-Length", str(declared))
    handler.end_headers()
    sent = 0
    while sent < limit and not handler.server.stopping.is_set():
        if declared is None:
            handler.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        else:
            handler.wfile.write(chunk)
        sent += len(chunk)
    if declared is None:
        handler.wfile.write(b"0\r\n\r\n")


def _drip(handler: _Handler, seconds: float) -> None:
    """Headers at once, then one byte every 0.1 s for `seconds` (a slow-loris body)."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Content-Length", "100000")
    handler.end_headers()
    end = time.monotonic() + seconds
    while time.monotonic() < end and not handler.server.stopping.wait(0.1):
        handler.wfile.write(b"x")
        handler.wfile.flush()


def _late(handler: _Handler, seconds: float) -> None:
    """Answer only after `seconds` (past the fetch timeout)."""
    handler.server.stopping.wait(seconds)
    handler.send(200, b"<html>late</html>")


def hostile_route(web: LocalWeb, handler: _Handler, path: str, query: dict[str, str]) -> None:
    """The hostile pages of hostile.test."""
    port = web.port
    body = ("<html><head><title>Caf\u00e9 cr\u00e8me</title></head>"
            "<body>Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e</body></html>")
    simple: dict[str, Callable[[], None]] = {
        "/huge": lambda: _stream(handler, b"<p>" + b"x" * 65533, 200_000_000, None),
        "/huge-declared": lambda: _stream(handler, b"y" * 65536, 200_000_000, 10**9),
        "/slow": lambda: _late(handler, float(query.get("s", "5"))),
        "/slow-body": lambda: _drip(handler, float(query.get("s", "5"))),
        "/binary": lambda: handler.send(200, PNG_BYTES, "text/html"),
        "/binary-noise": lambda: handler.send(200, bytes(range(256)) * 64, "text/html"),
        "/bad-charset": lambda: handler.send(200, body.encode("latin-1") + b"\xff\xfe\x80",
                                             "text/html; charset=x-no-such-charset"),
        "/meta-charset": lambda: handler.send(
            200, body.replace("<head>", '<head><meta charset="windows-1252">').encode("cp1252"),
            "text/html"),
        "/header-charset": lambda: handler.send(200, body.encode("iso-8859-15"),
                                                "text/html; charset=ISO-8859-15"),
        "/loop-a": lambda: handler.redirect("/loop-b"),
        "/loop-b": lambda: handler.redirect("/loop-a"),
        "/to-private": lambda: handler.redirect("http://10.0.0.1/admin"),
        "/to-metadata": lambda: handler.redirect("http://169.254.169.254/latest/meta-data/"),
        "/to-metadata-decimal": lambda: handler.redirect("http://2852039166/latest/meta-data/"),
        "/to-intranet": lambda: handler.redirect(f"http://intranet.test:{port}/"),
        "/to-blocked": lambda: handler.redirect(web.url("spam-e.test", "/")),
        "/to-file": lambda: handler.redirect("file:///etc/passwd"),
        "/to-article": lambda: handler.redirect(web.pages[0].url, 301),
        "/empty": lambda: handler.send(200, b""),
        "/doc.pdf": lambda: handler.send(200, PDF_BYTES, "application/pdf"),
        "/pdf-as-html": lambda: handler.send(200, PDF_BYTES, "text/html"),
        "/plain.txt": lambda: handler.send(200, b"Just plain text.\n", "text/plain; charset=utf-8"),
        "/data.json": lambda: handler.send(200, b'{"a": 1}', "application/json"),
        "/no-type": lambda: handler.send(200, b"<!doctype html><html><title>untyped</title></html>",
                                         None),
        "/private/secret.html": lambda: handler.send(200, b"<html>secret</html>"),
    }
    if path in simple:
        simple[path]()
    elif path.startswith("/status/"):
        code = int(path.rsplit("/", 1)[1])
        handler.send(code, f"<html><title>{code}</title></html>".encode())
    elif path.startswith("/chain/"):
        hops = int(path.rsplit("/", 1)[1])
        if hops <= 0:
            handler.send(200, b"<html><title>end of chain</title><p>arrived</p></html>")
        else:
            handler.redirect(f"/chain/{hops - 1}")
    else:
        handler.send(404, b"<html><title>404</title></html>")


def _common_port(ips: list[str], avoid: frozenset[int] = frozenset()) -> int:
    """A port free on every one of the addresses: PREFERRED_PORT when it is, so that page URLs
    (which reach the LLM's prompt) and so greedy generations are the same from run to run."""
    for attempt in range(51):
        if attempt == 0 and PREFERRED_PORT not in avoid:
            port = PREFERRED_PORT
        else:
            with socket.socket() as probe:
                probe.bind((ips[0], 0))
                port = int(probe.getsockname()[1])
            if port in avoid:
                continue
        free = True
        for ip in ips:
            with socket.socket() as other:
                try:
                    other.bind((ip, port))
                except OSError:
                    free = False
                    break
        if free:
            return port
    raise RuntimeError("no common free port on the loopback addresses")


def started_local_web(ips: list[str]) -> LocalWeb:
    """The local web, started on a port free on every address. Another process (the other xdist
    worker) may take the port between the check and the bind: then it starts on the next one."""
    taken: set[int] = set()
    for _ in range(20):
        web = LocalWeb(_common_port(ips, frozenset(taken)))
        try:
            web.start()
            return web
        except OSError:
            web.stop()
            taken.add(web.port)
    raise RuntimeError("the local web found no port free on every loopback address")


# --- the search API and SearXNG -----------------------------------------------------------------


class SearchApi:
    """`/api/search?q=&page=&per_page=`: the pages ranked by query-term overlap (title counts x2)."""

    def __init__(self, web: LocalWeb) -> None:
        self.web = web
        self.queries: list[dict[str, str]] = []
        self.index = [(p, set(terms(p.title)), set(terms(p.text))) for p in web.pages]
        self.url = ""

    def rank(self, query: str) -> list[WebPage]:
        """Pages with at least one query term, best first."""
        wanted = set(terms(query))
        scored = []
        for page, title, text in self.index:
            score = sum(2 * (t in title) + (t in text) for t in wanted)
            if score:
                scored.append((-score, page.id, page))
        return [page for *_, page in sorted(scored)]

    def route(self, handler: _Handler, path: str, query: dict[str, str]) -> None:
        """Answer a search."""
        if path != "/api/search":
            handler.send(404, b"{}", "application/json")
            return
        self.queries.append(query)
        page_no = max(1, int(query.get("page", "1") or 1))
        size = int(query.get("per_page", "5"))
        hits = self.rank(query.get("q", ""))[(page_no - 1) * size: page_no * size]
        results = [{"url": p.url, "title": p.title, "content": " ".join(p.text.split())[:240]}
                   for p in hits]
        body = json.dumps({"query": query.get("q", ""), "page": page_no, "results": results})
        handler.send(200, body.encode(), "application/json")


# -- a workspace wired to the local web (used by the research, gate and write tests) ----------
def hosts_table() -> str:
    """The local web's names as a TOML inline table for [fetch] hosts (no DNS, ever)."""
    return "{" + ", ".join(f'"{name}" = "{addr}"' for name, addr in HOSTS.items()) + "}"


#: The page timeout of a test workspace: loopback pages answer in milliseconds, but two busy cores
#: (the other test worker, this run's own extraction and embedding) once stretched a fetch past 2 s.
TEST_FETCH_TIMEOUT = 10.0


#: config.toml lines for a bench that times the models: no vector cache, so every text is embedded by the
#: model, as on a first run, whatever earlier runs kept under ~/.cache ([embedding] vector_cache). A
#: NONSEQ_EMBEDDING__VECTOR_CACHE variable still wins (the test suite's smoke runs share its cache).
UNCACHED = '\n[embedding]\nvector_cache = ""\n'


def vector_cache_from_env() -> dict[str, str]:
    """`[embedding] vector_cache` from NONSEQ_EMBEDDING__VECTOR_CACHE where it is set (the test suite's file),
    for a bench that builds its settings without the environment; else nothing (the default)."""
    return {"vector_cache": os.environ[VECTOR_CACHE_ENV]} if VECTOR_CACHE_ENV in os.environ else {}


def write_config(folder: Path, searxng_url: str, fetch_timeout: float = TEST_FETCH_TIMEOUT,
                 **research_values: Any) -> None:
    """config.toml for the local web: SearXNG fixture, its names pinned to loopback."""
    extra = "".join(f"{k} = {json.dumps(v)}\n" for k, v in research_values.items())
    (folder / "config.toml").write_text(
        f'[searxng]\nurl = "{searxng_url}"\nretries = 0\ntimeout = 20\n\n'
        f'[fetch]\nallow_hosts = ["127.0.0.0/8"]\nhosts = {hosts_table()}\ntimeout = {fetch_timeout:g}\n\n'
        f"[research]\nmax_pages = 8\n{extra}",
        encoding="utf-8",
    )


