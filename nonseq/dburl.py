"""Database URLs: which database, and how to show one without its password."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def is_postgres(url: str) -> bool:
    """True for a postgresql:// (or postgres://) URL."""
    return url.startswith(("postgresql://", "postgres://"))


def hide_password(url: str) -> str:
    """A database URL with any password in it shown as ***."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
    except ValueError:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))
