"""The SSRF guard: which hosts and addresses the fetcher may connect to, in every spelling."""

from __future__ import annotations

import asyncio
import inspect
import ipaddress
import re
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpcore
import httpx

from nonseq.cache import tls_context

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

#: A resolver maps a host name to its IP addresses (sync or async); tests stub it.
Resolver = Callable[[str], Iterable[str]] | Callable[[str], Awaitable[Iterable[str]]]

#: Cloud metadata endpoints: refused even when private addresses are allowed.
METADATA_HOSTS = frozenset({
    "metadata.google.internal", "metadata.goog", "metadata", "instance-data",
    "instance-data.ec2.internal", "metadata.azure.internal",
})
METADATA_IPS = frozenset({
    ipaddress.ip_address("169.254.169.254"),   # AWS, GCP, Azure, OpenStack, DigitalOcean
    ipaddress.ip_address("169.254.170.2"),     # AWS ECS task metadata
    ipaddress.ip_address("fd00:ec2::254"),     # AWS IMDS over IPv6
    ipaddress.ip_address("100.100.100.200"),   # Alibaba Cloud
    ipaddress.ip_address("192.0.0.192"),       # Oracle Cloud
})
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class GuardRefusal(Exception):
    """The guard refused a host or address; the message says why in one line."""


class ResolveError(Exception):
    """A host name could not be resolved."""


_NUMERIC_PART = re.compile(r"^(0x[0-9a-f]*|[0-9]+)$", re.IGNORECASE)


def _ipv4_part(text: str) -> int:
    """One dotted IPv4 part in WHATWG/inet_aton syntax (0x.. hex, 0.. octal, decimal)."""
    if text[:2].lower() == "0x":
        return int(text[2:] or "0", 16)
    if len(text) > 1 and text[0] == "0":
        return int(text[1:], 8)
    return int(text, 10)


def parse_ipv4_loose(host: str) -> ipaddress.IPv4Address | None:
    """An IPv4 address from any spelling inet_aton accepts (2130706433, 0177.0.0.1, 127.1, 0x7f.1)."""
    parts = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if not host or not all(_NUMERIC_PART.match(p) for p in parts):
        return None  # a name (at least one part is not a number)
    try:
        numbers = [_ipv4_part(p) for p in parts]
    except ValueError:
        raise GuardRefusal(f"invalid IPv4 address {host!r}") from None
    *head, last = numbers
    if len(parts) > 4 or any(n > 255 for n in head) or last >= 256 ** (5 - len(parts)):
        raise GuardRefusal(f"invalid IPv4 address {host!r}")
    value = 0
    for n in head:
        value = value * 256 + n
    return ipaddress.IPv4Address(value * 256 ** (5 - len(parts)) + last)


def parse_ip(host: str) -> IPAddress | None:
    """The IP address a host literally spells (brackets, zone ids and loose IPv4 allowed), else None."""
    text = host.strip().strip("[]").lower()
    if ":" in text:
        try:
            return ipaddress.IPv6Address(text.split("%", 1)[0])
        except ValueError:
            raise GuardRefusal(f"invalid IPv6 address {host!r}") from None
    return parse_ipv4_loose(text)


def embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address hidden in an IPv6 one (mapped, compatible, 6to4, Teredo, NAT64), if any."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped:
        return ip.ipv4_mapped
    if ip.sixtofour:
        return ip.sixtofour
    if ip.teredo:
        return ip.teredo[1]
    if ip in _NAT64 or (int(ip) >> 32 == 0 and int(ip) > 1):  # NAT64 or IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def address_problem(ip: IPAddress) -> str | None:
    """Why an address is not a public unicast one (None when it is)."""
    inner = embedded_ipv4(ip)
    if inner is not None:
        problem = address_problem(inner)
        return f"{problem} (embedded in {ip})" if problem else None
    if ip in METADATA_IPS:
        return f"cloud metadata address {ip}"
    checks = (
        ("loopback", ip.is_loopback), ("unspecified", ip.is_unspecified),
        ("link-local", ip.is_link_local), ("multicast", ip.is_multicast),
        ("private", ip.is_private), ("reserved", ip.is_reserved),
    )
    for name, hit in checks:
        if hit:
            return f"{name} address {ip}"
    if not ip.is_global:
        return f"non-public address {ip}"
    return None


async def default_resolve(host: str) -> list[str]:
    """The host's addresses from the system resolver (getaddrinfo)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ResolveError(f"cannot resolve {host}: {exc}") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass
class Guard:
    """Decides whether a host may be connected to and to which checked address."""

    allow_private: bool = False
    allow_hosts: tuple[str, ...] = ()
    resolver: Resolver | None = None
    #: Fixed addresses for host names (like /etc/hosts), looked up before any resolver.
    hosts: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._names: set[str] = set()
        self._networks: list[IPNetwork] = []
        self._hosts = {name.strip().lower().rstrip("."): addr.strip() for name, addr in self.hosts.items()}
        for entry in self.allow_hosts:
            text = entry.strip().lower().strip("[]")
            try:
                self._networks.append(ipaddress.ip_network(text, strict=False))
            except ValueError:
                self._names.add(text.rstrip("."))

    def _allowed_ip(self, ip: IPAddress) -> bool:
        """True when allow_hosts lists this address (or a network holding it)."""
        inner = embedded_ipv4(ip)
        return any(ip in net or (inner is not None and inner in net) for net in self._networks)

    def check_address(self, ip: IPAddress, host: str, allowed_name: bool = False) -> None:
        """Raise GuardRefusal when the guard forbids connecting to ip (reached through host)."""
        if self._allowed_ip(ip):
            return
        problem = address_problem(ip)
        if problem is None:
            return
        # metadata addresses pass only when listed by address, never by name or allow_private
        if (allowed_name or self.allow_private) and not problem.startswith("cloud metadata"):
            return
        via = "" if host.strip("[]") == str(ip) else f"{host} resolves to "
        raise GuardRefusal(f"{via}{problem} refused (SSRF guard; allow it with fetch.allow_hosts)")

    async def _resolve(self, host: str) -> list[str]:
        """Resolve with the fixed hosts map, then the injected resolver, else the system's."""
        fixed = self._hosts.get(host)
        if fixed is not None:
            return [fixed]
        if self.resolver is None:
            return await default_resolve(host)
        try:
            result = self.resolver(host)
            if inspect.isawaitable(result):
                result = await result
            return [str(a) for a in result]
        except ResolveError:
            raise
        except (OSError, LookupError, ValueError) as exc:
            raise ResolveError(f"cannot resolve {host}: {exc}") from None

    async def pin(self, host: str) -> str:
        """Check a host (name or literal) and return the one address to connect to."""
        name = host.strip().lower().rstrip(".")
        allowed_name = name in self._names
        if name in METADATA_HOSTS and not allowed_name:
            raise GuardRefusal(f"cloud metadata host {name} refused (SSRF guard)")
        literal = parse_ip(name)
        if literal is not None:
            self.check_address(literal, host, allowed_name)
            return str(literal)
        addresses = await self._resolve(name)
        if not addresses:
            raise ResolveError(f"cannot resolve {host}: no addresses")
        checked: list[IPAddress] = []
        for text in addresses:
            try:
                ip = ipaddress.ip_address(text.split("%", 1)[0])
            except ValueError:
                raise ResolveError(f"resolver gave {text!r} for {host}") from None
            self.check_address(ip, host, allowed_name)  # every address, not just the first
            checked.append(ip)
        return str(checked[0])


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Opens sockets only to addresses the guard checked: host name → pinned IP, else refuse."""

    def __init__(self, pins: dict[str, str], inner: httpcore.AsyncNetworkBackend | None = None):
        self.pins = pins
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self, host: str, port: int, timeout: float | None = None,
        local_address: str | None = None, socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Connect to the checked address of host (never to a name resolved again)."""
        address = self.pins.get(host.lower())
        if address is None:
            raise httpcore.ConnectError(f"{host} was not checked by the SSRF guard")
        return await self.inner.connect_tcp(address, port, timeout, local_address, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Unix sockets are never used by the fetcher."""
        raise httpcore.ConnectError("unix sockets are not allowed")

    async def sleep(self, seconds: float) -> None:
        """Sleep with the inner backend."""
        await self.inner.sleep(seconds)


def pin_key(url: httpx.URL) -> str:
    """The host as httpcore passes it to connect_tcp (ASCII/IDNA, no brackets, lower-case)."""
    return url.raw_host.decode("ascii").lower()


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with its socket connect pinned to guard-checked addresses, no proxies."""

    def __init__(
        self, pins: dict[str, str], *, max_connections: int = 100,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        ssl_context = ssl_context or tls_context()
        super().__init__(verify=ssl_context, trust_env=False)  # a pool of its own, replaced below
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context,
            max_connections=max_connections,
            max_keepalive_connections=max(1, max_connections // 2),
            keepalive_expiry=5.0,
            network_backend=PinnedBackend(pins, network_backend),
        )
