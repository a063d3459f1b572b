"""The loopback guard: any name lookup or connect that would leave 127.0.0.0/8 fails the test.

Nothing is sent: the check runs before socket.getaddrinfo, connect and connect_ex. conftest.py
applies tests/loopback.py's `loopback_only` to every test; devkit/child.py applies `guard_loopback` in a child.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from typing import Any


def guard_loopback(patch: Callable[[Any, str, Any], None]) -> None:
    """Make any name lookup or connect that would leave 127.0.0.0/8 fail (nothing is sent).

    `patch(obj, name, value)` sets an attribute: monkeypatch.setattr in tests, setattr in a child.
    """
    real_getaddrinfo = socket.getaddrinfo
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def loopback(host: Any) -> bool:
        text = host.decode() if isinstance(host, bytes) else str(host)
        if text == "localhost":
            return True
        try:
            return ipaddress.ip_address(text.split("%")[0]).is_loopback
        except ValueError:
            return False

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and not loopback(host):
            raise AssertionError(f"test tried to resolve {host!r} (only loopback is allowed)")
        return real_getaddrinfo(host, *args, **kwargs)

    def check(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not loopback(address[0]):
            raise AssertionError(f"test tried to connect to {address!r} (only loopback)")

    def connect(self: socket.socket, address: Any) -> None:
        check(self, address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        check(self, address)
        return real_connect_ex(self, address)

    patch(socket, "getaddrinfo", getaddrinfo)
    patch(socket.socket, "connect", connect)
    patch(socket.socket, "connect_ex", connect_ex)
