"""The main menu's one-line status: topics per stage, facts to review, SearXNG and the LLM.

The two reachability probes run in background threads with short timeouts (1 s; SearXNG's is
[searxng] probe_timeout), so the menu appears at once; a probe that has not answered yet is shown
as "…" and the line is redrawn when it has.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nonseq.workspace import Workspace


def _probe(name: str, settings: Any) -> str:
    """One probe in its own short-lived workspace (this runs in a thread)."""
    from nonseq.pipeline import doctor
    from nonseq.workspace import Workspace

    with Workspace(settings) as ws:
        if name == "searxng":
            return doctor.searxng_probe(ws)
        if name == "llm":
            return doctor.llm_probe(ws)
        from nonseq.knowledge import review_queue

        return str(len(review_queue(ws)))


class Probes:
    """SearXNG, LLM and pending-facts checks started in the background; read them with `.get(name)`."""

    def __init__(self, settings: Any) -> None:
        self.results: dict[str, str] = {}
        self.threads = [threading.Thread(target=self._run, args=(name, settings), daemon=True)
                        for name in ("searxng", "llm", "facts")]
        for thread in self.threads:
            thread.start()

    def _run(self, name: str, settings: Any) -> None:
        """Run one probe; any failure is shown, never raised."""
        try:
            self.results[name] = _probe(name, settings)
        except Exception as exc:  # noqa: BLE001 - a status probe must never break the menu
            self.results[name] = f"? ({type(exc).__name__})"

    def get(self, name: str) -> str:
        """The probe's answer so far ('…' while it runs)."""
        return self.results.get(name, "…")


def queue_counts(ws: Workspace) -> str:
    """'2 queued, 1 written' (or 'empty') from SQLite."""
    from nonseq import queue

    counts = Counter(str(t.stage) for t in queue.list_topics(ws.db))
    return ", ".join(f"{n} {stage}" for stage, n in counts.items()) or "empty"


def status_fragments(topics: str, probes: Probes) -> list[tuple[str, str]]:
    """The status line as prompt_toolkit fragments: topics per stage, then the probes so far."""
    searx, llm = probes.get("searxng"), probes.get("llm")
    searx_style = "fg:ansigreen" if searx == "up" else ("" if searx == "…" else "fg:ansired")
    llm_style = "fg:ansired" if ("missing" in llm or "down" in llm) else ("" if llm == "…" else "fg:ansigreen")
    return [("", f"queue: {topics} │ facts to review: {probes.get('facts')} │ SearXNG "),
            (searx_style, searx), ("", " │ LLM "), (llm_style, llm), ("", "\n")]
