"""Checks the tests and the benches share: one error line, a consistent workspace after a kill."""

from __future__ import annotations

import random
from typing import Any

import yaml


def one_error_line(result: Any, needle: str = "", *, warnings: bool = False) -> str:
    """stderr is one line, `error: ...` naming needle, with no traceback anywhere; returns that line.

    With warnings=True, `warning:` lines may come before it.
    """
    lines = result.stderr.splitlines()
    if warnings:
        lines = [ln for ln in lines if not ln.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and result.stderr.endswith("\n"), repr(result.stderr)
    assert needle in lines[0], lines[0]
    output = (result.stdout or "") + (result.stderr or "")
    assert "Traceback" not in output, output
    return lines[0]


def kill_points(seed: int, count: int) -> list[str]:
    """Kill points across research, indexing, generation and writing, chosen by a seeded RNG."""
    rng = random.Random(seed)
    ranges = {"fetch": (1, 6), "index": (1, 3), "token": (1, 80), "article": (1, 1)}
    names = rng.sample(sorted(ranges), count) if count < len(ranges) else list(ranges)
    order = ["fetch", "index", "token", "article"]
    return [f"{n}:{rng.randint(*ranges[n])}" for n in sorted(names, key=order.index)]


def check_consistent(ws: Any) -> None:
    """No duplicate points, no half-written article (ws: an open nonseq Workspace)."""
    for name in ws.store.collections():
        points = ws.store.scroll_all(name)
        keys = [(p.chunk.topic_slug, p.chunk.url, p.chunk.text) for p in points]
        assert len(keys) == len(set(keys)), f"duplicate points in {name}"
    for path in ws.articles_dir.glob("*.md"):
        if path.name.endswith(".prompt.md"):
            continue
        text = path.read_text(encoding="utf-8")
        assert text.startswith("---\n"), path
        meta = yaml.safe_load(text.split("---\n", 2)[1])
        complete = "## Sources" in text or meta.get("status") == "draft"
        assert meta.get("slug") and complete, f"half-written article {path}"
