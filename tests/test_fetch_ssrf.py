"""The SSRF guard: every spelling of a forbidden address is refused before any connection.

Nothing here sends a packet outside 127.0.0.0/8: names go through stub resolvers, and the network
backend records connects (forbidden targets must never reach it).
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from typing import Any

import httpcore
import pytest

from nonseq.config import FetchSettings
from nonseq.models import Outcome
from nonseq.research.domains import DomainRegistry
from nonseq.research.fetch import Fetcher
from nonseq.research.ssrf import Guard, GuardRefusal, PinnedTransport, address_problem, parse_ip
from nonseq.text.urls import strip_credentials
from tests.web import HOSTS, LocalWeb

pytestmark = pytest.mark.usefixtures("loopback_only")


class RecordingBackend(httpcore.AsyncNetworkBackend):
    """Records every connect; connects for real only to loopback (anything else fails the test)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None, socket_options: Any = None) -> Any:
        """Record, then connect only to loopback."""
        self.calls.append((host, port))
        assert ipaddress.ip_address(host).is_loopback, f"connect to {host} attempted"
        return await self.inner.connect_tcp(host, port, timeout, local_address, socket_options)

    async def sleep(self, seconds: float) -> None:
        """Sleep."""
        await self.inner.sleep(seconds)


class StubResolver:
    """A resolver from a dict; records every lookup."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.calls: list[str] = []

    def __call__(self, host: str) -> list[str]:
        """The stub answer."""
        self.calls.append(host)
        if host not in self.table:
            raise LookupError(f"unknown stub name {host}")
        return self.table[host]


STUB = {
    "intranet.test": ["10.0.0.1"], "router.test": ["192.168.1.1"],
    "meta-alias.test": ["169.254.169.254"], "rebind.test": ["93.184.216.34", "10.0.0.7"],
    "v6-private.test": ["fd12:3456::1"], "mapped.test": ["::ffff:10.0.0.1"],
    "cgnat.test": ["100.64.1.1"], "loop6.test": ["::1"], "zero.test": ["0.0.0.0"],
}
FORBIDDEN = [
    "http://127.0.0.1/", "http://127.1/", "http://127.0.1/", "http://2130706433/",
    "http://0177.0.0.1/", "http://0x7f.0.0.1/", "http://0x7f000001/", "http://0x7f.1/",
    "http://017700000001/", "http://127.0.0.1./", "http://[::1]/", "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/", "http://[0:0:0:0:0:ffff:7f00:1]/", "http://[::127.0.0.1]/",
    "http://[64:ff9b::7f00:1]/", "http://[2002:7f00:1::]/", "http://0.0.0.0/", "http://0/",
    "http://[::]/", "http://10.0.0.1/", "http://012.0.0.1/", "http://172.16.5.4/",
    "http://192.168.0.1/", "http://169.254.169.254/latest/meta-data/", "http://2852039166/",
    "http://0xa9fea9fe/", "http://[::ffff:169.254.169.254]/", "http://[fd00:ec2::254]/",
    "http://metadata.google.internal/computeMetadata/v1/", "http://METADATA.google.internal./",
    "http://100.100.100.200/", "http://224.0.0.1/", "http://[ff02::1]/", "http://[fe80::1]/",
    "http://[fc00::1]/", "http://240.0.0.1/", "http://255.255.255.255/", "http://100.64.0.1/",
    "http://192.0.2.1/", "http://198.18.0.1/", "https://intranet.test/", "http://router.test:8080/",
    "http://meta-alias.test/", "http://rebind.test/", "http://v6-private.test/",
    "http://mapped.test/", "http://cgnat.test/", "http://loop6.test/", "http://zero.test/",
    "http://user:pass@10.0.0.1/", "http://93.184.216.34@10.0.0.1/",
]


@pytest.fixture
def registry() -> DomainRegistry:
    """An empty registry."""
    return DomainRegistry()


def run(urls: list[str], settings: FetchSettings, registry: DomainRegistry,
        resolver: Any) -> tuple[list[Any], RecordingBackend]:
    """Fetch with a recording network backend; return the sources (in input order) and backend."""
    backend = RecordingBackend()
    pages = Fetcher(settings, registry, resolver, network_backend=backend).fetch_all(urls)
    by_url = {p.source.url: p.source for p in pages}  # a source's URL never keeps a user:password@
    return [by_url[strip_credentials(url)] for url in urls], backend


@pytest.mark.parametrize("url", FORBIDDEN)
def test_forbidden_targets_are_refused_without_connecting(url: str, registry: DomainRegistry) -> None:
    """Each spelling is refused by the guard; no socket is ever opened."""
    resolver = StubResolver(STUB)
    (source,), backend = run([url], FetchSettings(), registry, resolver)
    assert source.outcome is Outcome.REFUSED, (url, source.outcome, source.reason)
    assert "SSRF guard" in source.reason
    assert backend.calls == []


def test_guard_after_a_redirect(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """Allowed first hop on loopback; the private or metadata target after it is never contacted."""
    settings = local_web.fetch_settings(allow_hosts=["hostile.test"])
    urls = [local_web.hostile(p) for p in ("/to-private", "/to-metadata", "/to-metadata-decimal",
                                           "/to-intranet")]
    sources, backend = run(urls, settings, registry, local_web.resolve)
    assert {s.outcome for s in sources} == {Outcome.REFUSED}
    assert {host for host, _ in backend.calls} == {"127.0.0.6"}  # only hostile.test itself


def test_connects_to_the_checked_address(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """DNS rebinding: the second answer (private) is never used; the checked IP is pinned."""
    answers = iter([["127.0.0.3"], ["10.9.9.9"]])
    calls: list[str] = []

    def rebinding(host: str) -> list[str]:
        calls.append(host)
        return next(answers)

    page = local_web.topic_pages("plague")[2]
    assert page.host == "news-b.test"
    urls = [page.url, local_web.url("news-b.test", "/robots.txt?again")]
    sources, backend = run(urls, local_web.fetch_settings(), registry, rebinding)
    assert calls == ["news-b.test"]
    assert {host for host, _ in backend.calls} == {"127.0.0.3"}
    assert [s.outcome for s in sources] == [Outcome.FETCHED, Outcome.FETCHED]  # both, from the pinned IP


def test_allow_private_and_allow_hosts(local_web: LocalWeb, registry: DomainRegistry) -> None:
    """allow_private opens loopback (not metadata); allow_hosts accepts names, IPs and CIDRs."""
    page = local_web.pages[0]
    ip = HOSTS[page.host]
    ip_url = page.url.replace(page.host, ip)
    open_all = FetchSettings(allow_private=True)
    (ok, meta), _ = run([ip_url, "http://169.254.169.254/"], open_all, registry, local_web.resolve)
    assert ok.outcome is Outcome.FETCHED and meta.outcome is Outcome.REFUSED
    by_name = FetchSettings(allow_hosts=[page.host])
    other = next(p for p in local_web.pages if p.host != page.host)
    (yes, no), _ = run([page.url, other.url], by_name, registry, local_web.resolve)
    assert yes.outcome is Outcome.FETCHED and no.outcome is Outcome.REFUSED
    by_ip = FetchSettings(allow_hosts=[ip])
    (again,), _ = run([ip_url], by_ip, registry, local_web.resolve)
    assert again.outcome is Outcome.FETCHED


def test_public_addresses_pass_the_guard_without_connecting() -> None:
    """The guard lets public addresses through (checked without any network)."""
    import asyncio

    guard = Guard(resolver=StubResolver({"public.test": ["93.184.216.34", "2606:2800:220:1::1"]}))
    assert asyncio.run(guard.pin("public.test")) == "93.184.216.34"
    assert asyncio.run(guard.pin("8.8.8.8")) == "8.8.8.8"


@pytest.mark.parametrize(("spelling", "address"), [
    ("2130706433", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"), ("127.1", "127.0.0.1"),
    ("0x7f.1", "127.0.0.1"), ("0x7F000001", "127.0.0.1"), ("[::ffff:127.0.0.1]", "::ffff:7f00:1"),
    ("10.1", "10.0.0.1"), ("example.com", None), ("1.2.3.com", None),
])
def test_parse_ip_spellings(spelling: str, address: str | None) -> None:
    """Loose IPv4 and IPv6 literal parsing."""
    parsed = parse_ip(spelling)
    assert (str(parsed) if parsed else None) == address


def test_invalid_literals_and_problems() -> None:
    """Out-of-range literals are refused; embedded IPv4 addresses are checked."""
    for bad in ("256.0.0.1", "1.2.3.4.5", "08.0.0.1", "[::zz]"):
        with pytest.raises(GuardRefusal):
            parse_ip(bad)
    assert "loopback" in (address_problem(ipaddress.ip_address("::ffff:127.0.0.1")) or "")
    assert address_problem(ipaddress.ip_address("93.184.216.34")) is None


def test_loopback_only_fixture_blocks_real_lookups() -> None:
    """The safety net itself: resolving a real name fails before any packet is sent."""
    with pytest.raises(AssertionError, match="only loopback"):
        socket.getaddrinfo("example.com", 80)
    with pytest.raises(AssertionError), socket.socket() as sock:
        sock.connect(("192.0.2.1", 80))


def test_allow_hosts_entries() -> None:
    """allow_hosts takes names (any case, trailing dot), CIDRs and bracketed IPv6 addresses."""
    import asyncio

    guard = Guard(allow_hosts=("Intranet.TEST.", "10.5.0.0/16", "[fd00::1]"),
                  resolver=StubResolver(STUB))
    assert asyncio.run(guard.pin("intranet.test")) == "10.0.0.1"
    assert asyncio.run(guard.pin("10.5.5.5")) == "10.5.5.5"
    assert asyncio.run(guard.pin("[fd00::1]")) == "fd00::1"
    for refused in ("router.test", "10.6.0.1", "169.254.169.254"):
        with pytest.raises(GuardRefusal):
            asyncio.run(guard.pin(refused))


def test_https_uses_the_name_for_sni_and_certificate(registry: DomainRegistry) -> None:
    """HTTPS to a pinned IP: SNI and certificate check use the host name, not the address."""
    import ssl
    import threading

    import trustme

    from tests.web import FuncSite, _Handler, _Server, free_port, stop_server

    ca = trustme.CA()
    cert = ca.issue_cert("secure.test")
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    cert.configure_cert(server_ctx)
    seen_sni: list[str | None] = []
    server_ctx.sni_callback = lambda sock, name, ctx: seen_sni.append(name)

    def route(handler: Any, path: str, query: dict[str, str]) -> None:
        host = handler.headers.get("Host", "")
        handler.send(200, f"<html><title>{host}</title></html>".encode())

    port = free_port("127.0.0.8")
    server = _Server(("127.0.0.8", port), _Handler, FuncSite(route))
    server.socket = server_ctx.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    resolver = StubResolver({"secure.test": ["127.0.0.8"], "other.test": ["127.0.0.8"]})
    settings = FetchSettings(allow_hosts=["127.0.0.0/8"], respect_robots=False, timeout=5)
    backend = RecordingBackend()
    fetcher = Fetcher(settings, registry, resolver, network_backend=backend, ssl_context=client_ctx)
    try:
        good, bad = (fetcher.fetch_all([f"https://{name}:{port}/"])[0].source
                     for name in ("secure.test", "other.test"))
    finally:
        stop_server(server)
    assert good.outcome is Outcome.FETCHED and good.title == f"secure.test:{port}"
    assert bad.outcome is Outcome.ERROR and "CERTIFICATE_VERIFY_FAILED" in bad.reason
    assert seen_sni[:2] == ["secure.test", "other.test"]
    assert {host for host, _ in backend.calls} == {"127.0.0.8"}


def test_metadata_needs_an_explicit_address() -> None:
    """A name in allow_hosts does not open a metadata address; the address itself does."""
    import asyncio

    by_name = Guard(allow_hosts=("meta-alias.test",), resolver=StubResolver(STUB))
    with pytest.raises(GuardRefusal, match="cloud metadata"):
        asyncio.run(by_name.pin("meta-alias.test"))
    by_ip = Guard(allow_hosts=("169.254.169.254",), resolver=StubResolver(STUB))
    assert asyncio.run(by_ip.pin("meta-alias.test")) == "169.254.169.254"


def test_every_pinned_transport_shares_the_process_tls_context() -> None:
    """Reading certifi's CA bundle takes tens of ms: made once per process, not once per fetch run."""
    from nonseq.cache import tls_context

    one, two = PinnedTransport({}), PinnedTransport({})
    assert one._pool._ssl_context is two._pool._ssl_context is tls_context()
    assert tls_context().verify_mode == ssl.CERT_REQUIRED and tls_context().check_hostname
