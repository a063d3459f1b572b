"""URLs as they may be stored and shown: never with the user:password@ of their authority."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def strip_credentials(url: str) -> str:
    """The URL without `user:password@` (the rest unchanged); a URL that does not parse is returned as it is."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
