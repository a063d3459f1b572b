"""The main menu's one-line status: topics per stage, facts to review, SearXNG and the LLM.

The two reachability probes run in background threads with ≤ 1 s timeouts, so the menu appears
at once; a probe that has not answered yet is shown as "…" and the line is redrawn when it has.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from pathlib import Path
from typing import Any

PROBE_TIMEOUT = 1.0


def _http_up(url: str) -> bool:
    """True when something answers HTTP at url within the probe timeout."""
    import httpx

    try:
        httpx.get(url, timeout=PROBE_TIMEOUT, follow_redirects=False)
    except httpx.HTTPError:
        return False
    return True


def searxng_state(settings: Any) -> str:
    """'up' or 'down' for [searxng] url."""
    return "up" if _http_up(settings.searxng.url) else "down"


def llm_state(settings: Any) -> str:
    """For the in-process model whether its file exists; for a server whether it answers."""
    llm = settings.llm
    if llm.backend == "llamacpp":
        if llm.model_path:
            path = Path(llm.model_path).expanduser()
        else:
            from nonseq.llm.llamacpp import bundled_model_path

            try:
                path = bundled_model_path()
            except Exception:  # noqa: BLE001 - a missing bundle is what the status reports
                return "llamacpp: model file missing"
        return f"llamacpp: {path.name}" if path.is_file() else f"llamacpp: {path.name} missing"
    if llm.backend == "mlx":
        return f"mlx: {llm.model or 'default model'}"
    if llm.backend == "ollama":
        from nonseq.llm.ollama_backend import DEFAULT_URL, _host

        url = _host(llm.url or os.environ.get("OLLAMA_HOST") or DEFAULT_URL)
        return f"ollama {'up' if _http_up(url + '/api/tags') else 'down'}"
    from nonseq.llm.openai_compat import DEFAULT_URL as OPENAI_URL
    from nonseq.llm.openai_compat import _base_url

    url = _base_url(llm.url or OPENAI_URL)
    return f"openai {'up' if _http_up(url + '/models') else 'down'}"


class Probes:
    """SearXNG, LLM and pending-facts checks started in the background; read them with `.get(name)`."""

    def __init__(self, settings: Any) -> None:
        self.results: dict[str, str] = {}
        self.threads = [threading.Thread(target=self._run, args=(name, func, settings), daemon=True)
                        for name, func in (("searxng", searxng_state), ("llm", llm_state),
                                           ("facts", pending_facts))]
        for thread in self.threads:
            thread.start()

    def _run(self, name: str, func: Any, settings: Any) -> None:
        """Run one probe; any failure is shown, never raised."""
        try:
            self.results[name] = func(settings)
        except Exception as exc:  # noqa: BLE001 - a status probe must never break the menu
            self.results[name] = f"? ({type(exc).__name__})"

    def get(self, name: str) -> str:
        """The probe's answer so far ('…' while it runs)."""
        return self.results.get(name, "…")


def queue_counts(ws: Any) -> str:
    """'2 queued, 1 written' (or 'empty') from SQLite."""
    from nonseq import queue

    counts = Counter(str(t.stage) for t in queue.list_topics(ws.db))
    return ", ".join(f"{n} {stage}" for stage, n in counts.items()) or "empty"


def pending_facts(settings: Any) -> str:
    """How many facts wait for review (its own short-lived workspace: this runs in a thread)."""
    from nonseq.knowledge import review_queue
    from nonseq.workspace import Workspace

    with Workspace(settings) as ws:
        return str(len(review_queue(ws)))


def status_fragments(topics: str, probes: Probes) -> list[tuple[str, str]]:
    """The status line as prompt_toolkit fragments: topics per stage, then the probes so far."""
    searx, llm = probes.get("searxng"), probes.get("llm")
    searx_style = "fg:ansigreen" if searx == "up" else ("" if searx == "…" else "fg:ansired")
    llm_style = "fg:ansired" if ("missing" in llm or "down" in llm) else ("" if llm == "…" else "fg:ansigreen")
    return [("", f"queue: {topics} │ facts to review: {probes.get('facts')} │ SearXNG "),
            (searx_style, searx), ("", " │ LLM "), (llm_style, llm), ("", "\n")]
