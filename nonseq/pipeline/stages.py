"""The one driver of a topic's stages: research → gate → Uber Research on THIN → the THIN choice →
write → facts. `nonseq write` and each topic of a night run advance a topic through `advance`.

Each step begins through a `Pace`: it reports the step's START to progress and, past the pace's
deadline (a night run's topic time limit), refuses to begin it (TopicTimeout). So the limit is
checked between steps, whatever the progress callback does.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nonseq import queue
from nonseq.errors import NonseqError, StageError
from nonseq.events import Kind, Progress, Step, emit, silent
from nonseq.models import (
    Article,
    ArticleStatus,
    ContextPack,
    GateVerdict,
    Stage,
    ThinChoice,
    Topic,
    WriteOutcome,
)
from nonseq.pipeline.topics import delete_topic

if TYPE_CHECKING:
    from nonseq.knowledge.extract import ExtractReport
    from nonseq.pipeline.research import ResearchSummary
    from nonseq.pipeline.uber import UberSummary
    from nonseq.workspace import Workspace

#: decide(topic, verdict) -> what to do after THIN; None means unattended (the night-run path).
Decider = Callable[[Topic, GateVerdict], ThinChoice]

NEEDS_RESEARCH = (Stage.QUEUED, Stage.RESEARCHING, Stage.FAILED)


class TopicTimeout(BaseException):  # noqa: N818 - like KeyboardInterrupt: no `except Exception` eats it
    """A topic ran past [night] topic_timeout."""


@dataclass
class Pace:
    """Where the driver says a step begins: a START event to progress, unless the deadline has passed."""

    progress: Progress = silent
    #: time.perf_counter() seconds after which no step begins (a night run's topic time limit).
    deadline: float = math.inf

    def begin(self, step: Step, detail: str) -> None:
        """Begin a step; TopicTimeout instead once the deadline has passed."""
        if time.perf_counter() > self.deadline:
            raise TopicTimeout
        emit(self.progress, step, Kind.START, detail)


def article_figures(art: Article) -> dict[str, Any]:
    """An article's path and figures, JSON-ready (`write --json`, the night log and summary)."""
    return {"path": art.path, "sources": len(art.sources), "citations": art.citations,
            "resolved": art.resolved, "added": art.added, "removed": art.removed,
            "unsupported": art.unsupported, "sentences": art.sentences,
            "supported_share": art.supported_share, "status": art.status,
            "reasons": art.reasons, "made": art.made}


@dataclass
class WriteResult:
    """How a topic's drive ended: an article, or the reason there is none."""

    topic: Topic
    outcome: WriteOutcome | None = None
    article: Article | None = None
    verdict: GateVerdict | None = None
    uber: list[UberSummary] = field(default_factory=list)
    research: ResearchSummary | None = None
    prompt_stats: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: Facts distilled after writing when [knowledge] extract names the trigger (else None).
    facts: ExtractReport | None = None
    facts_error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "topic": self.topic.slug,
            "stage": str(self.topic.stage),
            "outcome": str(self.outcome or ""),
            "article": None if self.article is None else article_figures(self.article),
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "uber": [u.to_dict() for u in self.uber],
            "research": None if self.research is None else self.research.to_dict(),
            "prompt": self.prompt_stats,
            "facts": None if self.facts is None else self.facts.to_dict(),
            "facts_error": self.facts_error,
            "seconds": round(self.seconds, 2),
        }


@dataclass
class Drive:
    """How to advance a topic: who decides after THIN, which trigger distils facts, what to reopen."""

    decide: Decider | None = None
    force: bool = False
    #: "write" or "night": facts are extracted after an article when [knowledge] extract names it.
    trigger: str = "write"
    #: The history reason when a failed topic is picked up again.
    reopen: str = "write again"
    #: A topic found THIN gets its Uber Research passes first (a night run); else it is judged as it is.
    uber_thin: bool = False


def ensure_researched(ws: Workspace, topic: Topic, pace: Pace,
                      reopen: str = "write again") -> tuple[Topic, ResearchSummary | None]:
    """Research the topic first when it has not been (or an earlier run was interrupted)."""
    if topic.stage is Stage.FAILED:
        topic = queue.reopen_failed(ws.db, topic.id, reason=reopen)
    if topic.stage not in NEEDS_RESEARCH:
        return topic, None
    from nonseq.pipeline.research import run_research

    pace.begin(Step.RESEARCH, "researching")
    summary = run_research(ws, topic.id)
    return queue.get_topic(ws.db, topic.id), summary


def judge(ws: Workspace, topic: Topic) -> tuple[ContextPack, GateVerdict]:
    """Retrieve and evaluate without moving the topic (for resumed gated/thin topics)."""
    from nonseq.pipeline.gate import evaluate
    from nonseq.retrieval.pipeline import retrieve

    pack = retrieve(ws, topic)
    return pack, evaluate(pack, ws.settings.gate)


def uber_passes(ws: Workspace, topic: Topic, pace: Pace, result: WriteResult) -> Topic:
    """Up to [gate] uber_passes Uber Research passes while the topic stays THIN; the topic after them."""
    from nonseq.pipeline.uber import run_uber

    passes = 0
    while topic.stage is Stage.THIN and passes < ws.settings.gate.uber_passes:
        passes += 1
        pace.begin(Step.UBER, f"uber research (pass {passes})")
        result.uber.append(run_uber(ws, topic.id, progress=pace.progress))
        topic = queue.get_topic(ws.db, topic.id)
    return topic


def gate_with_uber(ws: Workspace, topic: Topic, pace: Pace, result: WriteResult,
                   uber_thin: bool = False) -> tuple[Topic, ContextPack | None, GateVerdict | None]:
    """Gate a researched topic; on THIN run the Uber Research passes, then judge it again."""
    from nonseq.pipeline.gate import run_gate

    if topic.stage is Stage.THIN and uber_thin:
        topic = uber_passes(ws, topic, pace, result)
    if topic.stage in (Stage.GATED, Stage.THIN):
        pack, verdict = judge(ws, topic)
        if topic.stage is Stage.THIN and verdict.ok:  # OK now: no THIN choice to make
            topic = queue.move(ws.db, topic.id, Stage.GATED, reason="gate OK on a second look")
        return topic, pack, verdict
    if topic.stage is not Stage.RESEARCHED:
        return topic, None, None
    pace.begin(Step.GATE, "gate")
    topic, pack, verdict = run_gate(ws, topic.id)
    if topic.stage is Stage.THIN and ws.settings.gate.uber_passes > 0:
        topic = uber_passes(ws, topic, pace, result)
        pack, verdict = judge(ws, topic)
    return topic, pack, verdict


def resolve_thin(ws: Workspace, topic: Topic, verdict: GateVerdict, decide: Decider | None,
                 progress: Progress) -> ThinChoice:
    """After THIN: ask the person (or take the night-run path). Returns the action taken."""
    choice = ThinChoice(decide(topic, verdict)) if decide is not None else ThinChoice.GIVE_UP
    if choice is ThinChoice.CONTINUE and not verdict.can_continue:
        raise StageError("the hard gate failed (too few research chunks): Continue is not allowed")
    if choice is ThinChoice.CONTINUE:
        queue.move(ws.db, topic.id, Stage.WRITING, reason="a person chose Continue after THIN")
    elif choice is ThinChoice.RETRY:
        queue.move(ws.db, topic.id, Stage.RESEARCHING, reason="a person chose Retry research")
    elif choice is ThinChoice.DELETE:
        delete_topic(ws, topic.id)
    else:
        queue.move(ws.db, topic.id, Stage.INSUFFICIENT, reason="; ".join(verdict.reasons)
                   or "research stayed thin", data=verdict.to_dict())
    emit(progress, Step.GATE, Kind.NOTE, f"thin research: {choice}")
    return choice


def record_article(ws: Workspace, topic: Topic, article: Article) -> None:
    """Keep the article in the database too (one row per topic, named by the worker that wrote it)."""
    from pathlib import Path

    from nonseq import article_records
    from nonseq.config import worker_name

    article_records.record(ws.db, topic_id=topic.id, path=Path(article.path), title=topic.title,
                           status=article.status.value, worker=worker_name(ws.settings))


def compose_article(ws: Workspace, topic: Topic, pack: ContextPack, pace: Pace,
                    force: bool = False) -> tuple[Article, dict[str, int]]:
    """Plan, say (or restate), verify and repair each sentence, check grounding and quality, write it."""
    from nonseq.writing.articles import restore_kept, write_article
    from nonseq.writing.writer import write_planned

    kept_dir = ws.data_dir / "unsaved"
    kept = restore_kept(kept_dir, ws.articles_dir, topic.slug)
    if kept is not None:  # the last run wrote it but could not save it: saved now, not written again
        pace.begin(Step.GENERATE, f"saved the article the last run kept: {kept.path}")
        return kept, {}
    llm = ws.llm
    pace.begin(Step.GENERATE, f"writing planned sentences with {llm.name}" if ws.settings.writing.restate
               else "writing planned sentences in their sources' words")
    written = write_planned(ws, pack, llm, progress=pace.progress)
    fields: dict[str, Any] = dict(
        slug=topic.slug, title=topic.title, body=written.body, sources=written.plan.sources,
        grounding=written.grounding, category=topic.category, persona=topic.persona or "",
        schema=written.plan.schema, model=llm.name, prompt=written.prompt_file(llm.name),
        quality=written.quality, made=written.made)
    try:
        article = write_article(ws.articles_dir, force=force, **fields)
    except OSError as exc:  # the folder broke during generation: keep the text so a retry does not regenerate
        saved = write_article(kept_dir, force=True, **fields)
        raise NonseqError(f"cannot save the article in {ws.articles_dir} ({exc.strerror or exc}); it is kept at "
                          f"{saved.path}: fix the folder and run `nonseq write {topic.id}` again to save it "
                          "without writing it again") from None
    stats = {"units": len(written.records), "sources": len(written.plan.sources),
             "source_sentences": len(written.plan.sentences), "left_out": len(written.plan.rejected),
             **written.made}
    return article, stats


def extract_after_write(ws: Workspace, topic_id: int, pace: Pace) -> tuple[ExtractReport | None, str]:
    """Distil the new article's sources into facts for review: (report, "") or (None, why not)."""
    from nonseq.knowledge import extract_facts

    pace.begin(Step.EXTRACT, "extracting facts for review")
    try:
        return extract_facts(ws, topic_id), ""
    except NonseqError as exc:
        return None, str(exc)


def _through_the_gate(ws: Workspace, topic: Topic, drive: Drive, pace: Pace,
                      result: WriteResult) -> tuple[Topic, ContextPack | None] | None:
    """Research and gate until the topic may be written; None when THIN research ended the drive."""
    while True:
        topic, result.research = ensure_researched(ws, topic, pace, drive.reopen)
        topic, pack, verdict = gate_with_uber(ws, topic, pace, result, drive.uber_thin)
        result.verdict = verdict or result.verdict
        if topic.stage is Stage.THIN and result.verdict is not None:
            action = resolve_thin(ws, topic, result.verdict, drive.decide, pace.progress)
            if action is ThinChoice.RETRY:
                topic = queue.get_topic(ws.db, topic.id)
                continue
            if action in (ThinChoice.DELETE, ThinChoice.GIVE_UP):
                deleted = action is ThinChoice.DELETE
                result.outcome = WriteOutcome.DELETED if deleted else WriteOutcome.INSUFFICIENT
                result.topic = topic if deleted else queue.get_topic(ws.db, topic.id)
                return None
        return topic, pack


def advance(ws: Workspace, topic: Topic, drive: Drive, pace: Pace, *, again: bool = False) -> WriteResult:
    """Take a topic from wherever it is to a written article, or to a recorded reason for none.

    `again`: a written (or draft) topic is written again, as a new version beside the old one.
    """
    started = time.perf_counter()
    result = WriteResult(topic=topic)
    through = _through_the_gate(ws, topic, drive, pace, result)
    if through is None:
        result.seconds = time.perf_counter() - started
        return result
    topic, pack = through
    topic = queue.get_topic(ws.db, topic.id)
    if topic.stage is Stage.GATED:
        topic = queue.move(ws.db, topic.id, Stage.WRITING, reason="gate OK")
    if topic.stage is not Stage.WRITING:
        raise StageError(f"topic {topic.slug!r} is {topic.stage}; cannot write it")
    if pack is None:
        from nonseq.retrieval.pipeline import retrieve

        pack = retrieve(ws, topic)
    # A written topic written again gets a new version (<slug>-2.md), never an overwrite.
    try:
        article, result.prompt_stats = compose_article(ws, topic, pack, pace, force=drive.force and not again)
    except Exception as exc:  # the LLM down, a bad schema...: recorded; the next write resumes at the gate
        queue.fail(ws.db, topic.id, exc)
        raise
    record_article(ws, topic, article)
    figures = {"path": article.path, "citations": article.citations, "added": article.added,
               "unsupported": article.unsupported, "sentences": article.sentences,
               "supported_share": article.supported_share}
    if article.status is ArticleStatus.DRAFT:  # the quality gate: kept, but not presented as written
        result.topic = queue.move(ws.db, topic.id, Stage.DRAFT, data=figures,
                                  reason=f"draft {article.path}: " + "; ".join(article.reasons))
    else:
        result.topic = queue.move(ws.db, topic.id, Stage.WRITTEN,
                                  reason=f"article {article.path}", data=figures)
    result.article = article
    result.outcome = WriteOutcome(article.status.value)
    if drive.trigger in ws.settings.knowledge.extract:
        result.facts, result.facts_error = extract_after_write(ws, topic.id, pace)
    result.seconds = time.perf_counter() - started
    return result
