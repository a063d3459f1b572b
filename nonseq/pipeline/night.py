"""Unattended night runs: every runnable topic in priority order, never asking, logged as JSON lines.

For each topic: research → gate → Uber Research on THIN → insufficient_research or write, then
fact extraction when `[knowledge] extract` names "night". One topic may take `[night]
topic_timeout` seconds; past it the topic fails ("time limit") and is retried next night, like
every topic that failed on a transient error, up to `[night] retries` times. The caller holds the
workspace lock (one night run per workspace).
"""

from __future__ import annotations

import json
import math
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq import claims, queue
from nonseq.db import now, transaction
from nonseq.errors import DatabaseDownError, NonseqError, UsageError, is_transient
from nonseq.events import Event, Kind, Progress, Step, emit
from nonseq.models import Article, GateVerdict, Stage, Topic
from nonseq.pipeline.stages import Drive, Pace, TopicTimeout, advance, article_figures

if TYPE_CHECKING:
    from nonseq.knowledge.extract import ExtractReport
    from nonseq.workspace import Workspace

__all__ = ["NightOptions", "NightSummary", "TopicEntry", "TopicTimeout", "parse_until", "plan", "run_night",
           "time_limit"]

#: Stages a night run picks up (interrupted ones resume where they stopped).
RUNNABLE = (Stage.QUEUED, Stage.RESEARCHING, Stage.RESEARCHED, Stage.GATED, Stage.THIN, Stage.WRITING)
#: Stages that still need a web search (and so SearXNG).
NEEDS_SEARCH = (Stage.QUEUED, Stage.RESEARCHING, Stage.FAILED)
#: Exit codes of `nonseq night`.
EXIT_OK, EXIT_SOME_FAILED, EXIT_NOTHING_RAN = 0, 4, 5
#: Outcomes that are not failures.
GOOD = ("written", "draft", "insufficient_research", "deleted")


class LeaseLost(BaseException):  # noqa: N818 - ends the topic like TopicTimeout, but nothing is recorded
    """Another worker holds the topic now (this worker's lease ran out): leave it to that worker."""


@dataclass
class NightOptions:
    """What limits one night run."""

    max_topics: int
    topic_timeout: float
    retries: int
    until: datetime | None = None
    #: What time it is (local); a test gives its own clock.
    clock: Callable[[], datetime] = datetime.now


@dataclass
class TopicEntry:
    """How one topic went (typed; `to_dict` is the night log's and the summary's JSON)."""

    topic: str
    id: int
    title: str
    outcome: str = ""
    seconds: float = 0.0
    error: str = ""
    transient: bool = False
    article: Article | None = None
    verdict: GateVerdict | None = None
    facts: ExtractReport | None = None
    facts_error: str = ""
    steps: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (empty fields left out)."""
        data: dict[str, Any] = {
            "topic": self.topic, "id": self.id, "title": self.title, "outcome": self.outcome,
            "seconds": self.seconds, "error": self.error, "transient": self.transient,
            "article": None if self.article is None else article_figures(self.article),
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "facts": self.facts.to_dict() if self.facts is not None
            else {"error": self.facts_error} if self.facts_error else None,
            "steps": self.steps}
        return {k: v for k, v in data.items() if v not in (None, "", [])}


@dataclass
class NightSummary:
    """A whole night run (what `nonseq night --json` prints and the report is made of)."""

    run: int
    started_at: str
    worker: str = ""
    finished_at: str = ""
    topics: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    entries: list[TopicEntry] = field(default_factory=list)
    not_started: list[str] = field(default_factory=list)
    stopped: str = ""
    seconds: float = 0.0
    exit_code: int = EXIT_OK
    log: str = ""
    report: str = ""
    facts_pending: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data = dict(self.__dict__)
        data["entries"] = [e.to_dict() for e in self.entries]
        return data


def parse_until(text: str, current: datetime | None = None) -> datetime:
    """HH:MM local time → the next such moment (a time earlier than now means tomorrow)."""
    try:
        hour, minute = (int(part) for part in text.strip().split(":"))
        if not (0 <= hour < 24 and 0 <= minute < 60):
            raise ValueError
    except ValueError:
        raise UsageError(f"--until wants a local time HH:MM (e.g. 06:30), not {text!r}") from None
    current = current or datetime.now()
    target = current.replace(hour=hour, minute=minute, second=0, microsecond=0)
    return target if target > current else target + timedelta(days=1)


def log_line(path: Path, event: str, **fields: Any) -> None:
    """Append one JSON line to the night log (flushed: `night status` reads it live)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"at": now(), "event": event, **fields}
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")


def retryable(ws: Workspace, topic: Topic, retries: int) -> bool:
    """A failed topic is retried when its last failure was transient, at most `retries` times."""
    past = queue.failures(ws.db, topic.id)
    return bool(past) and past[-1]["transient"] and len(past) <= retries


def plan(ws: Workspace, retries: int) -> list[Topic]:
    """Every topic this run would take, in priority order (retryable failed ones included)."""
    topics = queue.list_topics(ws.db, (*RUNNABLE, Stage.FAILED))
    return [t for t in topics if t.stage is not Stage.FAILED or retryable(ws, t, retries)]


def preflight(ws: Workspace, topics: list[Topic]) -> str:
    """Why nothing can run (the LLM or SearXNG is down), or "" when the backends answer."""
    from nonseq.pipeline.doctor import backends_down

    return backends_down(ws, need_search=any(t.stage in NEEDS_SEARCH for t in topics))


#: Seconds to wait before raising again when the limit passes in the middle of an import.
IMPORT_GRACE = 0.05


def importing(frame: Any) -> bool:
    """Is an import running in this frame or its callers? (cut in half, a module stays broken)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TopicTimeout in this (main) thread after `seconds`; no limit off the main thread.

    Past the limit in the middle of an import, it waits for the import to end: an exception raised
    inside a module's initialisation becomes an ImportError and can leave the module unusable for
    the rest of the run. The fetch loop holds the alarm until the loop stops (`run_interruptible`).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum: int, frame: Any) -> None:
        """End the topic at its time limit, unless an import is under way (then a short grace)."""
        if importing(frame):
            signal.setitimer(signal.ITIMER_REAL, IMPORT_GRACE)
            return
        raise TopicTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Steps:
    """Logs a topic's steps from the driver's START events (start, end, outcome, seconds)."""

    def __init__(self, log: Path, run: int, entry: TopicEntry, echo: Progress | None,
                 lost: threading.Event | None = None) -> None:
        self.log, self.run, self.entry, self.echo = log, run, entry, echo
        self.lost = lost or threading.Event()  # set when the topic's lease was lost (another worker has it)
        self.current: str = ""
        self.started = 0.0

    def begin(self, name: str) -> None:
        """End the running step (ok) and start `name`; LeaseLost when another worker has the topic now."""
        if name == self.current:
            return
        self.end("ok")
        if self.lost.is_set():
            raise LeaseLost
        self.current, self.started = name, time.perf_counter()
        log_line(self.log, "step_start", run=self.run, topic=self.entry.topic, step=name)
        emit(self.echo, Step(name), Kind.START, self.entry.topic)

    def end(self, outcome: str) -> None:
        """Close the running step with its outcome and seconds."""
        if not self.current:
            return
        seconds = round(time.perf_counter() - self.started, 2)
        self.entry.steps.append({"step": self.current, "outcome": outcome, "seconds": seconds})
        log_line(self.log, "step_end", run=self.run, topic=self.entry.topic, step=self.current,
                 outcome=outcome, seconds=seconds)
        self.current = ""

    def progress(self, event: Event) -> None:
        """The driver's progress callback: each step's START begins a logged step."""
        if event.kind is Kind.START:
            self.begin(event.step.value)


def run_topic(ws: Workspace, topic: Topic, steps: _Steps, deadline: float = math.inf) -> None:
    """One topic, start to end, through the same driver as `nonseq write`, filling steps.entry.

    No step begins past `deadline` (the alarm of `time_limit` can be lost where a library catches
    every exception, as asyncio did in a socket read; off the main thread there is none).
    Exceptions are the caller's.
    """
    drive = Drive(decide=None, trigger="night", reopen="night retry", uber_thin=True)
    result = advance(ws, topic, drive, Pace(steps.progress, deadline))
    steps.end("failed" if result.facts_error else "ok")
    entry = steps.entry
    entry.outcome = str(result.outcome or "")
    entry.article, entry.verdict = result.article, result.verdict
    entry.facts, entry.facts_error = result.facts, result.facts_error


def _fail(ws: Workspace, entry: TopicEntry, exc: BaseException, timeout: float) -> None:
    """Record a topic's failure on the entry and in the queue (the night goes on)."""
    if isinstance(exc, TopicTimeout):
        entry.error, entry.transient = f"time limit: more than {timeout:g} s", True
    else:
        entry.error = str(exc) if isinstance(exc, NonseqError) else f"{type(exc).__name__}: {exc}"
        entry.transient = is_transient(exc)
    entry.error = " ".join(entry.error.split())[:500]
    entry.outcome = "failed"
    current = queue.get_topic(ws.db, entry.id)
    if current.stage is Stage.FAILED:  # research recorded the failure itself: keep that one
        entry.error = current.error or entry.error
        return
    queue.fail(ws.db, entry.id, entry.error, transient=entry.transient)


def _finish(ws: Workspace, summary: NightSummary, log: Path, started: float) -> NightSummary:
    """Close the run: counts, exit code, database record, morning report, last log line."""
    from nonseq.pipeline.report import pending_facts, report_path, write_report

    summary.finished_at = now(precise=True)  # the last worker of a team night is the one that ended last
    summary.seconds = round(time.perf_counter() - started, 1)
    summary.topics = len(summary.entries)
    for entry in summary.entries:
        summary.outcomes[entry.outcome] = summary.outcomes.get(entry.outcome, 0) + 1
    if summary.exit_code == EXIT_OK and summary.outcomes.get("failed"):
        summary.exit_code = EXIT_SOME_FAILED
    summary.facts_pending = pending_facts(ws)
    summary.report = str(report_path(ws, summary))
    with transaction(ws.db):
        ws.db.execute("UPDATE night_runs SET finished_at=?, summary=? WHERE id=?",
                      (summary.finished_at, json.dumps(summary.to_dict(), default=str), summary.run))
    write_report(ws, summary)  # every worker of the night that has finished, this one included
    log_line(log, "end", run=summary.run, topics=summary.topics, outcomes=summary.outcomes,
             seconds=summary.seconds, exit_code=summary.exit_code, stopped=summary.stopped,
             report=summary.report)
    return summary


def run_night(ws: Workspace, options: NightOptions | None = None, progress: Progress | None = None) -> NightSummary:
    """Run the queue unattended; progress gets each step's START (detail: the topic's slug) and a
    Step.TOPIC DONE event (data: its TopicEntry) when a topic is finished.

    Each topic is claimed first (nonseq.claims): several workers on one PostgreSQL database share the
    queue, and a topic whose worker died is resumed once its lease has run out.
    """
    from nonseq.config import worker_name

    cfg = ws.settings.night
    options = options or NightOptions(cfg.max_topics, cfg.topic_timeout, cfg.retries)
    log = ws.data_dir / cfg.log_file
    worker = worker_name(ws.settings)
    topics = plan(ws, options.retries)
    retry_ids = [t.id for t in topics if t.stage is Stage.FAILED]  # failed before this run: retried once
    started = time.perf_counter()
    with transaction(ws.db):
        run_id = int(ws.db.execute("INSERT INTO night_runs (started_at, worker) VALUES (?, ?)",
                                   (now(), worker)).lastrowid or 0)
    summary = NightSummary(run=run_id, started_at=now(), worker=worker, log=str(log))
    log_line(log, "start", run=run_id, pid=_pid(), worker=worker, topics=[t.slug for t in topics[:options.max_topics]],
             max_topics=options.max_topics, until=options.until, topic_timeout=options.topic_timeout)
    down = preflight(ws, topics[:options.max_topics]) if topics else ""
    if down:
        summary.stopped, summary.exit_code = down, EXIT_NOTHING_RAN
        summary.not_started = [t.slug for t in topics]
        return _finish(ws, summary, log, started)
    done: list[int] = []
    while True:
        if len(done) >= options.max_topics or (options.until and options.clock() >= options.until):
            summary.stopped = (f"--until {options.until:%H:%M} reached" if len(done) < options.max_topics
                               else f"at most {options.max_topics} topic(s)")
            left = {t.id for t in plan(ws, options.retries)} - set(done)
            summary.not_started = [t.slug for t in topics if t.id in left]
            break
        topic_id = claims.claim_next(ws.db, worker, cfg.lease_seconds, [s.value for s in RUNNABLE],
                                     also=[i for i in retry_ids if i not in done], skip=done, sole=not ws.team)
        if topic_id is None:
            wait = claims.next_expiry(ws.db, worker, [s.value for s in RUNNABLE], skip=done)
            if wait is None:  # nothing left, not even a topic another worker holds
                break
            time.sleep(min(wait, cfg.lease_seconds) + 0.05)  # that worker may have died: its lease runs out
            continue
        done.append(topic_id)
        entry = _claimed_topic(ws, topic_id, worker, run_id, log, options, progress)
        summary.entries.append(entry)
        with transaction(ws.db):  # the night's report has this topic even if the worker dies later
            ws.db.execute("UPDATE night_runs SET summary=? WHERE id=?",
                          (json.dumps(summary.to_dict(), default=str), run_id))
        log_line(log, "topic", run=run_id, **entry.to_dict())
        emit(progress, Step.TOPIC, Kind.DONE, entry.topic, data=entry)
    return _finish(ws, summary, log, started)


def _claimed_topic(ws: Workspace, topic_id: int, worker: str, run_id: int, log: Path, options: NightOptions,
                   progress: Progress | None) -> TopicEntry:
    """Work one claimed topic under its renewed lease; give it back at the end (unless the lease was lost)."""
    from nonseq.db import open_database

    topic = queue.get_topic(ws.db, topic_id)
    queue.note(ws.db, topic_id, f"claimed by {worker}", {"worker": worker, "stage": str(topic.stage)})
    entry = TopicEntry(topic=topic.slug, id=topic.id, title=topic.title)
    began = time.perf_counter()
    lease = ws.settings.night.lease_seconds
    with claims.renewing(lambda: open_database(ws.settings.database.url, ws.db_path), topic_id, worker,
                         lease) as lost:
        steps = _Steps(log, run_id, entry, progress, lost=lost)
        log_line(log, "topic_start", run=run_id, topic=topic.slug, stage=str(topic.stage), worker=worker)
        try:
            with time_limit(options.topic_timeout):
                run_topic(ws, topic, steps, deadline=began + options.topic_timeout)
        except DatabaseDownError:
            raise  # nothing can be recorded: the topic keeps its stage; the run ends in one line
        except LeaseLost:
            steps.end("lost")
            entry.outcome, entry.error = "handed_over", "the lease ran out: another worker has the topic"
        except (Exception, TopicTimeout) as exc:  # noqa: BLE001 - one topic's failure must not end the night
            steps.end("failed")
            _fail(ws, entry, exc, options.topic_timeout)
    if entry.outcome != "handed_over":
        claims.release(ws.db, topic_id, worker)
    entry.seconds = round(time.perf_counter() - began, 2)
    return entry


def _pid() -> int:
    """This process's id (recorded so `night status` can tell a live run from a dead one)."""
    import os

    return os.getpid()
