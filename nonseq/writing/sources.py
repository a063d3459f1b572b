"""Numbered sources ([n] -> title, url) and the source text each number stands for."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from nonseq.models import page_label


@dataclass
class SourceRef:
    """A numbered source: [n] → title (with the document pages its facts come from), url."""

    n: int
    title: str
    url: str
    domain: str = ""
    pages: list[int] = field(default_factory=list)

    @property
    def label(self) -> str:
        """How it is cited: the title, then its pages ("Annual report 2025, p. 14")."""
        pages = page_label(self.pages)
        return f"{self.title}, {pages}" if pages else self.title

    @property
    def location(self) -> str:
        """Where it is: a local file's path, else its URL."""
        return file_path(self.url) or self.url

    def to_dict(self) -> dict[str, Any]:
        """A JSON/YAML-ready dict (pages and a local file's path only when there are any)."""
        data: dict[str, Any] = {"n": self.n, "title": self.title, "url": self.url}
        if self.pages:
            data["pages"] = list(self.pages)
        if file_path(self.url):
            data["path"] = file_path(self.url)
        return data


def file_path(url: str) -> str:
    """The filesystem path of a file:// URL ("" for any other URL)."""
    if not url.startswith("file://"):
        return ""
    return unquote(urlsplit(url).path)


@dataclass
class FactChunk:
    """A research chunk cited under source number n (what the grounding check compares with)."""

    n: int
    text: str
    url: str
    title: str
    group: str
    rank: int
    point_id: str = ""
