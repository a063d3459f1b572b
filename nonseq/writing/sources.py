"""Numbered sources ([n] -> title, url) and the source text each number stands for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class SourceRef:
    """A numbered source: [n] → title, url."""

    n: int
    title: str
    url: str
    domain: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON/YAML-ready dict."""
        return {"n": self.n, "title": self.title, "url": self.url}


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
