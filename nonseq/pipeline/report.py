"""The morning after: the night run's Markdown report, and `night status` from another terminal."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq.db import to_seconds
from nonseq.lock import holder, is_locked

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

#: Grounding figures shown for each written article.
FIGURES = ("sources", "citations", "resolved", "added", "removed", "unsupported", "sentences")


def pending_facts(ws: Workspace) -> int | None:
    """Facts waiting for review (None without a knowledge base)."""
    try:
        from nonseq.knowledge import list_facts
    except ImportError:  # pragma: no cover - the knowledge base is not installed
        return None
    try:
        return len(list_facts(ws, status="pending"))
    except Exception:  # noqa: BLE001 - a report line must never end the night
        return None


def reports_dir(ws: Workspace) -> Path:
    """Where morning reports go: <articles>/reports."""
    return ws.articles_dir / "reports"


def _why_thin(entry: Any) -> str:
    """The gate's reasons for a THIN verdict, in one line."""
    verdict = entry.verdict
    reasons = (verdict.get("reasons") or [] if isinstance(verdict, dict) else verdict.reasons) if verdict else []
    return "; ".join(str(r) for r in reasons) or "research stayed thin"


def _path(entry: Any) -> str:
    """The path of the entry's article ("" without one); another worker's entry carries it as a dict."""
    article = entry.article
    if not article:
        return ""
    return str(article.get("path", "")) if isinstance(article, dict) else str(article.path)


def _figures(entry: Any) -> dict[str, Any]:
    """The report's figures of the entry's article (none without one)."""
    if not entry.article:
        return {}
    from nonseq.pipeline.stages import article_figures

    figures = entry.article if isinstance(entry.article, dict) else article_figures(entry.article)
    return {k: figures[k] for k in FIGURES if figures.get(k) is not None}


def _md(text: object) -> str:
    """One line of user text, safe inside a Markdown list (no control characters or newlines)."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in str(text)).split())


def night_of(ws: Workspace, run: int) -> list[dict[str, Any]]:
    """The runs of one night: every run whose time overlaps this one's, or overlaps a run that does (workers
    started side by side), oldest first; a run still going has no `finished_at`."""
    rows = ws.db.execute("SELECT id, worker, started_at, finished_at, summary FROM night_runs ORDER BY id").fetchall()
    runs = [{"run": int(r["id"]), "worker": r["worker"], "started_at": r["started_at"],
             "finished_at": r["finished_at"] or "", **json.loads(r["summary"] or "{}")} for r in rows]
    night = [r for r in runs if r["run"] == run]
    if not night:
        return []
    changed = True
    while changed:
        start = min(r["started_at"] for r in night)
        end = max(r["finished_at"] or "9999" for r in night)
        group = [r for r in runs if r["started_at"] <= end and (r["finished_at"] or "9999") >= start]
        changed = len(group) != len(night)
        night = group
    return night


def _worker_lines(runs: list[dict[str, Any]]) -> list[str]:
    """One line per worker of the night: its run, topics and outcomes."""
    lines = []
    for r in runs:
        counts = r.get("outcomes") or Counter(str(e.get("outcome", "")) if isinstance(e, dict) else e.outcome
                                              for e in r.get("entries") or [])
        outcomes = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"
        state = (f"finished {to_seconds(r['finished_at'])}" if r["finished_at"]
                 else "still running (or stopped without a word)")
        lines.append(f"- **{_md(r.get('worker') or 'worker')}**: run {r['run']}, {len(r.get('entries') or [])} "
                     f"topic(s) ({outcomes}); {state}")
    return lines


def render_report(summary: Any, night: list[dict[str, Any]] | None = None) -> str:
    """The morning report in Markdown: this run, plus every worker of the night in `night`."""
    from types import SimpleNamespace

    others = [r for r in (night or []) if r["run"] != summary.run]
    entries = [SimpleNamespace(**vars(e), worker=getattr(summary, "worker", "")) for e in summary.entries]
    blank = {"outcome": "", "seconds": 0, "error": "", "transient": False, "article": None, "verdict": None,
             "steps": []}
    for r in others:  # the other workers' entries, as their runs stored them (JSON)
        entries += [SimpleNamespace(**{**blank, **e, "worker": r.get("worker", "")}) for e in r.get("entries") or []]
    lines = [f"# Night run {summary.run}", "",
             f"- started {summary.started_at}, finished {to_seconds(summary.finished_at)} ({summary.seconds} s)",
             f"- topics: {summary.topics}; outcomes: "
             + (", ".join(f"{k} {v}" for k, v in sorted(summary.outcomes.items())) or "none"),
             f"- exit code {summary.exit_code}; log: {summary.log}"]
    if summary.stopped:
        lines.append(f"- stopped: {_md(summary.stopped)}")
    if others:
        mine = {"run": summary.run, "worker": getattr(summary, "worker", ""), "finished_at": summary.finished_at,
                "outcomes": summary.outcomes, "entries": summary.entries}
        lines += ["", f"## Workers ({len(others) + 1})", "",
                  *_worker_lines(sorted([mine, *others], key=lambda r: r["run"]))]
    sections: list[tuple[str, list[str]]] = []
    written = [e for e in entries if e.outcome == "written"]
    sections.append(("Written", [
        f"- **{_md(e.title)}** ({e.topic}, {_md(e.worker)}): {_path(e)} — "
        + ", ".join(f"{k} {v}" for k, v in _figures(e).items())
        for e in written]))
    sections.append(("Drafts (need a person)", [
        f"- **{_md(e.title)}** ({e.topic}, {_md(e.worker)}): {_path(e)}"
        for e in entries if e.outcome == "draft"]))
    sections.append(("Thin research (insufficient_research)", [
        f"- **{_md(e.title)}** ({e.topic}): {_md(_why_thin(e))}"
        for e in entries if e.outcome == "insufficient_research"]))
    sections.append(("Failed", [
        f"- **{_md(e.title)}** ({e.topic}, {_md(e.worker)}): {_md(e.error)}"
        + (" — retried next night" if e.transient else "")
        for e in entries if e.outcome == "failed"]))
    sections.append(("Handed over (another worker took the topic)", [
        f"- **{_md(e.title)}** ({e.topic}, {_md(e.worker)})" for e in entries if e.outcome == "handed_over"]))
    sections.append(("Not started", [f"- {slug}" for slug in summary.not_started]))
    for title, items in sections:
        if items:
            lines += ["", f"## {title}", "", *items]
    if summary.facts_pending is not None:
        lines += ["", "## Facts waiting for review", "",
                  f"{summary.facts_pending} fact(s) pending: `nonseq knowledge review`"]
    timing = [f"| {e.topic} | {_md(e.worker)} | {e.outcome} | {e.seconds} | "
              + ", ".join(f"{s['step']} {s['seconds']}" for s in e.steps) + " |" for e in entries]
    if timing:
        lines += ["", "## Time by topic (seconds)", "", "| topic | worker | outcome | total | steps |",
                  "|---|---|---|---|---|", *timing]
    return "\n".join(lines) + "\n"


def report_path(ws: Workspace, summary: Any) -> Path:
    """Where a run's report goes: articles/reports/night-<run>.md."""
    return reports_dir(ws) / f"night-{summary.run}.md"


def write_report(ws: Workspace, summary: Any) -> Path:
    """Write the run's report (with the night's other workers) atomically; its path."""
    path = report_path(ws, summary)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(f".md.{os.getpid()}.tmp")
    temp.write_text(render_report(summary, night_of(ws, summary.run)), encoding="utf-8")
    os.replace(temp, path)
    return path


def _alive(pid: Any) -> bool:
    """True when a process with this id exists."""
    try:
        os.kill(int(pid), 0)
    except (OSError, ValueError, TypeError):
        return False
    return True


def _worker_alive(ws: Workspace, run: int) -> bool:
    """True while the run's worker holds a topic whose lease has not run out (team mode)."""
    from nonseq import claims

    row = ws.db.execute("SELECT worker FROM night_runs WHERE id=?", (run,)).fetchone()
    if row is None or not row[0]:
        return False
    held = ws.db.execute("SELECT MAX(lease_until) FROM topics WHERE claimed_by=?", (row[0],)).fetchone()
    return bool(held and held[0] and float(held[0]) > claims.clock(ws.db))


def _tail_events(log: Path, run: int) -> list[dict[str, Any]]:
    """The log lines of one run (the log can be long: read from the end)."""
    try:
        with log.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 2_000_000))
            raw = fh.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return []
    events = []
    for line in raw:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("run") == run:
            events.append(record)
    return events


def night_status(ws: Workspace) -> dict[str, Any]:
    """The current or last night run, from SQLite and the log (never opens the vector store)."""
    row = ws.db.execute("SELECT id, started_at, finished_at, summary FROM night_runs "
                        "ORDER BY id DESC LIMIT 1").fetchone()
    if row is None:
        return {"state": "none"}
    run = int(row["id"])
    summary = json.loads(row["summary"] or "{}")
    events = _tail_events(ws.data_dir / ws.settings.night.log_file, run)
    start = next((e for e in events if e.get("event") == "start"), {})
    status: dict[str, Any] = {"run": run, "started_at": row["started_at"],
                              "finished_at": row["finished_at"]}
    if row["finished_at"]:
        status.update(state="finished", exit_code=summary.get("exit_code"),
                      outcomes=summary.get("outcomes", {}), report=summary.get("report", ""),
                      seconds=summary.get("seconds"), stopped=summary.get("stopped", ""))
        return status
    info = holder(ws.data_dir)
    running = is_locked(ws.data_dir) and info.get("action") == "night" and _alive(info.get("pid"))
    if ws.team:  # a worker on any machine: running while it holds a live lease
        running = _worker_alive(ws, run)
    done = [e for e in events if e.get("event") == "topic"]
    outcomes: dict[str, int] = {}
    for e in done:
        outcomes[e.get("outcome", "?")] = outcomes.get(e.get("outcome", "?"), 0) + 1
    status.update(state="running" if running else "interrupted", planned=start.get("topics", []),
                  done=len(done), outcomes=outcomes)
    steps = [e for e in events if e.get("event") in ("step_start", "step_end", "topic_start")]
    if running and steps:
        last = steps[-1]
        status.update(topic=last.get("topic"), step=last.get("step", "starting"), since=last.get("at"))
    return status
