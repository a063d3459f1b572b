"""robots.txt: fetched once per origin, parsed with urllib.robotparser, cached."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

#: Fetches an origin's robots.txt: returns (HTTP status or None when unreachable, body text).
RobotsFetch = Callable[[str], Awaitable[tuple[int | None, str]]]


def origin_of(url: str) -> str:
    """scheme://host[:port] of a URL (lower-case)."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower().rsplit('@', 1)[-1]}"


def parser_for(status: int | None, text: str) -> RobotFileParser:
    """A parser for a robots.txt answer, following RFC 9309 and urllib's conventions."""
    parser = RobotFileParser()
    if status is None:
        parser.allow_all = True  # type: ignore[attr-defined]  # unreachable: the fetch reports it
    elif status in (401, 403) or status >= 500:
        parser.disallow_all = True  # type: ignore[attr-defined]  # forbidden or server error
    elif status >= 400:
        parser.allow_all = True  # type: ignore[attr-defined]  # no robots.txt (404, other 4xx)
    else:
        parser.parse(text.splitlines())
    return parser


class RobotsCache:
    """Answers "may this user agent fetch this URL?", fetching robots.txt once per origin."""

    def __init__(self, user_agent: str, fetch: RobotsFetch) -> None:
        self.user_agent = user_agent
        self._fetch = fetch
        self._parsers: dict[str, RobotFileParser] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def use(self, fetch: RobotsFetch) -> None:
        """Fetch later robots.txt files with another function (a new client); keep the cache."""
        self._fetch = fetch
        self._locks.clear()

    async def _parser(self, origin: str) -> RobotFileParser:
        """The cached parser of an origin, fetched on first use (one fetch even when concurrent)."""
        parser = self._parsers.get(origin)
        if parser is not None:
            return parser
        lock = self._locks.setdefault(origin, asyncio.Lock())
        async with lock:
            parser = self._parsers.get(origin)
            if parser is None:
                status, text = await self._fetch(f"{origin}/robots.txt")
                parser = self._parsers[origin] = parser_for(status, text)
        return parser

    async def allowed(self, url: str) -> bool:
        """True when robots.txt of the URL's origin lets our user agent fetch it."""
        parser = await self._parser(origin_of(url))
        return parser.can_fetch(self.user_agent, url)
