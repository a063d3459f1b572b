"""`write`: move a topic through research, retrieval, the gate (and Uber Research) to a grounded article."""

from __future__ import annotations

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
    from nonseq.workspace import Workspace

#: decide(topic, verdict) -> what to do after THIN; None means unattended (the night-run path).
Decider = Callable[[Topic, GateVerdict], ThinChoice]

NEEDS_RESEARCH = (Stage.QUEUED, Stage.RESEARCHING, Stage.FAILED)


@dataclass
class WriteResult:
    """How a write ended: an article, or the reason there is none."""

    topic: Topic
    outcome: WriteOutcome | None = None
    article: Article | None = None
    verdict: GateVerdict | None = None
    uber: list[dict[str, Any]] = field(default_factory=list)
    research: dict[str, Any] | None = None
    prompt_stats: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: Facts distilled after writing when [knowledge] extract names the trigger (else None).
    facts: ExtractReport | None = None
    facts_error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        art = self.article
        return {
            "topic": self.topic.slug,
            "stage": str(self.topic.stage),
            "outcome": str(self.outcome or ""),
            "article": None if art is None else {
                "path": art.path, "sources": len(art.sources), "citations": art.citations,
                "resolved": art.resolved, "added": art.added, "removed": art.removed,
                "unsupported": art.unsupported, "sentences": art.sentences,
                "supported_share": art.supported_share, "status": art.status,
                "reasons": art.reasons, "made": art.made},
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "uber": self.uber,
            "research": self.research,
            "prompt": self.prompt_stats,
            "facts": None if self.facts is None else self.facts.to_dict(),
            "facts_error": self.facts_error,
            "seconds": round(self.seconds, 2),
        }


def ensure_researched(ws: Workspace, topic: Topic, progress: Progress) -> tuple[Topic, dict | None]:
    """Research the topic first when it has not been (or an earlier run was interrupted)."""
    if topic.stage is Stage.FAILED:
        topic = queue.reopen_failed(ws.db, topic.id, reason="write again")
    if topic.stage not in NEEDS_RESEARCH:
        return topic, None
    from nonseq.pipeline.research import run_research

    emit(progress, Step.RESEARCH, Kind.START, "researching")
    summary = run_research(ws, topic.id)
    return queue.get_topic(ws.db, topic.id), summary.to_dict()


def _judge(ws: Workspace, topic: Topic) -> tuple[ContextPack, GateVerdict]:
    """Retrieve and evaluate without moving the topic (for resumed gated/thin topics)."""
    from nonseq.pipeline.gate import evaluate
    from nonseq.retrieval.pipeline import retrieve

    pack = retrieve(ws, topic)
    return pack, evaluate(pack, ws.settings.gate)


def gate_with_uber(ws: Workspace, topic: Topic, progress: Progress,
                   result: WriteResult) -> tuple[Topic, ContextPack | None, GateVerdict | None]:
    """Gate a researched topic; on THIN run up to [gate] uber_passes Uber Research passes."""
    from nonseq.pipeline.gate import run_gate
    from nonseq.pipeline.uber import run_uber

    if topic.stage in (Stage.GATED, Stage.THIN):
        pack, verdict = _judge(ws, topic)
        if topic.stage is Stage.THIN and verdict.ok:  # OK now: no THIN choice to make
            topic = queue.move(ws.db, topic.id, Stage.GATED, reason="gate OK on a second look")
        return topic, pack, verdict
    if topic.stage is not Stage.RESEARCHED:
        return topic, None, None
    emit(progress, Step.GATE, Kind.START, "gate")
    topic, pack, verdict = run_gate(ws, topic.id)
    passes = 0
    while topic.stage is Stage.THIN and passes < ws.settings.gate.uber_passes:
        passes += 1
        emit(progress, Step.UBER, Kind.START, f"uber research (pass {passes})")
        summary = run_uber(ws, topic.id, progress=progress)
        result.uber.append(summary.to_dict())
        topic = queue.get_topic(ws.db, topic.id)
        pack, verdict = _judge(ws, topic)
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


def compose_article(ws: Workspace, topic: Topic, pack: ContextPack, progress: Progress,
                    force: bool = False) -> tuple[Article, dict[str, int]]:
    """Plan, restate, verify and repair each sentence, check grounding and quality, write it."""
    from nonseq.llm import build_llm
    from nonseq.writing.articles import restore_kept, write_article
    from nonseq.writing.writer import write_planned

    kept_dir = ws.data_dir / "unsaved"
    kept = restore_kept(kept_dir, ws.articles_dir, topic.slug)
    if kept is not None:  # the last run wrote it but could not save it: saved now, not written again
        emit(progress, Step.GENERATE, Kind.START, f"saved the article the last run kept: {kept.path}")
        return kept, {}
    llm = build_llm(ws.settings.llm)
    emit(progress, Step.GENERATE, Kind.START, f"writing planned sentences with {llm.name}")
    written = write_planned(ws, pack, llm, progress=progress)
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


def _record_article(ws: Workspace, topic: Topic, article: Article) -> None:
    """Keep the article in the database too (one row per topic, named by the worker that wrote it)."""
    from pathlib import Path

    from nonseq import article_records
    from nonseq.config import worker_name

    article_records.record(ws.db, topic_id=topic.id, path=Path(article.path), title=topic.title,
                           status=article.status.value, worker=worker_name(ws.settings))


def extract_after_write(ws: Workspace, topic_id: int, progress: Progress) -> tuple[ExtractReport | None, str]:
    """Distil the new article's sources into facts for review: (report, "") or (None, why not)."""
    from nonseq.knowledge import extract_facts

    emit(progress, Step.EXTRACT, Kind.START, "extracting facts for review")
    try:
        return extract_facts(ws, topic_id), ""
    except NonseqError as exc:
        return None, str(exc)


def write_topic(ws: Workspace, ref: int | str, *, decide: Decider | None = None,
                progress: Progress | None = None, force: bool = False,
                trigger: str = "write") -> WriteResult:
    """Take a topic from wherever it is to a written article, or to a recorded reason for none.

    After an article (or draft), its sources are distilled into facts for review when
    `[knowledge] extract` names the trigger ("write" for `nonseq write` and the menus, "night").
    """
    import time

    from nonseq.writing.articles import check_writable

    started = time.perf_counter()
    say = progress or silent
    topic = queue.get_topic(ws.db, ref)
    check_writable(ws.articles_dir)  # before any research, gate or generation
    result = WriteResult(topic=topic)
    again = topic.stage is Stage.WRITTEN
    if again and not force:
        raise StageError(f"topic {topic.slug!r} is already written (see `nonseq articles list`); "
                         f"`nonseq write {topic.id} --force` writes a new version")
    if again:
        topic = queue.move(ws.db, topic.id, Stage.WRITING, reason="write again (--force)")
    if topic.stage is Stage.DRAFT:  # the last reply failed the quality gate: try again
        topic = queue.move(ws.db, topic.id, Stage.WRITING, reason="write again after a draft")
        again = True  # a new version beside the draft (<slug>-2.md)
    if topic.stage is Stage.INSUFFICIENT:
        raise StageError(f"topic {topic.slug!r} is insufficient_research: reopen it with `nonseq "
                         f"queue retry {topic.id}` (research kept) or add sources with `nonseq "
                         f"research {topic.id} --url/--file`")
    pack: ContextPack | None = None
    while True:
        topic, result.research = ensure_researched(ws, topic, say)
        topic, pack, verdict = gate_with_uber(ws, topic, say, result)
        result.verdict = verdict or result.verdict
        if topic.stage is Stage.THIN and result.verdict is not None:
            action = resolve_thin(ws, topic, result.verdict, decide, say)
            if action is ThinChoice.RETRY:
                topic = queue.get_topic(ws.db, topic.id)
                continue
            if action in (ThinChoice.DELETE, ThinChoice.GIVE_UP):
                deleted = action is ThinChoice.DELETE
                result.outcome = WriteOutcome.DELETED if deleted else WriteOutcome.INSUFFICIENT
                result.topic = topic if deleted else queue.get_topic(ws.db, topic.id)
                result.seconds = time.perf_counter() - started
                return result
        break
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
        article, result.prompt_stats = compose_article(ws, topic, pack, say, force=force and not again)
    except Exception as exc:  # the LLM down, a bad schema...: recorded; the next write resumes at the gate
        queue.fail(ws.db, topic.id, exc)
        raise
    _record_article(ws, topic, article)
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
    if trigger in ws.settings.knowledge.extract:
        result.facts, result.facts_error = extract_after_write(ws, topic.id, say)
    result.seconds = time.perf_counter() - started
    return result
