"""`write`: move a topic through research, retrieval, the gate (and Uber Research) to a grounded article."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from nonseq import queue
from nonseq.errors import StageError
from nonseq.models import Article, ContextPack, GateVerdict, Stage, Topic

#: What a person (or the night run) decides after a THIN verdict.
CONTINUE, RETRY, DELETE, GIVE_UP = "continue", "retry", "delete", "give_up"
#: decide(topic, verdict) -> one of the choices above; None means unattended (night-run path).
Decider = Callable[[Topic, GateVerdict], str]
#: progress(event, detail): "stage", "token", "note".
Progress = Callable[[str, str], None]

NEEDS_RESEARCH = (Stage.QUEUED, Stage.RESEARCHING, Stage.FAILED)


@dataclass
class WriteResult:
    """How a write ended: an article, or the reason there is none."""

    topic: Topic
    outcome: str
    article: Article | None = None
    verdict: GateVerdict | None = None
    uber: list[dict[str, Any]] = field(default_factory=list)
    research: dict[str, Any] | None = None
    prompt_stats: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        art = self.article
        return {
            "topic": self.topic.slug,
            "stage": str(self.topic.stage),
            "outcome": self.outcome,
            "article": None if art is None else {
                "path": art.path, "sources": len(art.sources), "citations": art.citations,
                "resolved": art.resolved, "added": art.added, "removed": art.removed,
                "unsupported": art.unsupported, "sentences": art.sentences},
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "uber": self.uber,
            "research": self.research,
            "prompt": self.prompt_stats,
            "seconds": round(self.seconds, 2),
        }


def _noop(_event: str, _detail: str) -> None:
    """A progress callback that ignores everything."""


def ensure_researched(ws: Any, topic: Topic, progress: Progress) -> tuple[Topic, dict | None]:
    """Research the topic first when it has not been (or an earlier run was interrupted)."""
    if topic.stage not in NEEDS_RESEARCH:
        return topic, None
    from nonseq.research.research import run_research

    progress("stage", "researching")
    summary = run_research(ws, topic.id)
    return queue.get_topic(ws.db, topic.id), summary.to_dict()


def _judge(ws: Any, topic: Topic) -> tuple[ContextPack, GateVerdict]:
    """Retrieve and evaluate without moving the topic (for resumed gated/thin topics)."""
    from nonseq.gate import evaluate
    from nonseq.retrieval.pipeline import retrieve

    pack = retrieve(ws, topic)
    return pack, evaluate(pack, ws.settings.gate)


def gate_with_uber(ws: Any, topic: Topic, progress: Progress,
                   result: WriteResult) -> tuple[Topic, ContextPack | None, GateVerdict | None]:
    """Gate a researched topic; on THIN run up to [gate] uber_passes Uber Research passes."""
    from nonseq.gate import run_gate
    from nonseq.uber import run_uber

    if topic.stage in (Stage.GATED, Stage.THIN):
        pack, verdict = _judge(ws, topic)
        return topic, pack, verdict
    if topic.stage is not Stage.RESEARCHED:
        return topic, None, None
    progress("stage", "gate")
    topic, pack, verdict = run_gate(ws, topic.id)
    passes = 0
    while topic.stage is Stage.THIN and passes < ws.settings.gate.uber_passes:
        passes += 1
        progress("stage", f"uber research (pass {passes})")
        summary = run_uber(ws, topic.id, progress=lambda msg: progress("note", msg))
        result.uber.append(summary.to_dict())
        topic = queue.get_topic(ws.db, topic.id)
        pack, verdict = _judge(ws, topic)
    return topic, pack, verdict


def resolve_thin(ws: Any, topic: Topic, verdict: GateVerdict, decide: Decider | None,
                 progress: Progress) -> str:
    """After THIN: ask the person (or take the night-run path). Returns the action taken."""
    choice = decide(topic, verdict) if decide is not None else GIVE_UP
    if choice == CONTINUE and not verdict.can_continue:
        raise StageError("the hard gate failed (too few research chunks): Continue is not allowed")
    if choice == CONTINUE:
        queue.move(ws.db, topic.id, Stage.WRITING, reason="a person chose Continue after THIN")
    elif choice == RETRY:
        queue.move(ws.db, topic.id, Stage.RESEARCHING, reason="a person chose Retry research")
    elif choice == DELETE:
        queue.delete_topic(ws, topic.id)
    else:
        queue.move(ws.db, topic.id, Stage.INSUFFICIENT, reason="; ".join(verdict.reasons)
                   or "research stayed thin", data=verdict.to_dict())
    progress("note", f"thin research: {choice}")
    return choice


def compose_article(ws: Any, topic: Topic, pack: ContextPack, progress: Progress,
                    force: bool = False) -> tuple[Article, dict[str, int]]:
    """Prompt, generate (streamed), check grounding and write the Markdown article."""
    from nonseq.articles import clean_reply, write_article
    from nonseq.grounding import check_grounding
    from nonseq.llm import build_llm
    from nonseq.personas import get_persona
    from nonseq.prompt import build_prompt
    from nonseq.schemas import load_schema

    persona = get_persona(ws, topic.persona) if topic.persona else None
    schema = load_schema(ws, topic.schema)
    llm = build_llm(ws.settings.llm)
    cfg = ws.settings.llm
    prompt = build_prompt(pack, schema, persona, count_tokens=llm.count_tokens,
                          context_window=cfg.context_window, max_tokens=cfg.max_tokens)
    progress("stage", f"generating with {llm.name}")
    reply = llm.complete(prompt.messages(), max_tokens=cfg.max_tokens,
                         on_token=lambda piece: progress("token", piece))
    progress("stage", "grounding check")
    grounding = check_grounding(clean_reply(reply), prompt.facts, tokenize=ws.sparse.tokenize,
                                embed=ws.embedder.embed, background=prompt.background)
    article = write_article(
        ws.articles_dir, slug=topic.slug, title=topic.title, body=grounding.text,
        sources=prompt.sources, grounding=grounding, category=topic.category,
        persona=persona.name if persona else "", schema=schema.name, model=llm.name,
        prompt=prompt.to_markdown(topic.title, reply=reply), force=force)
    return article, prompt.stats()


def write_topic(ws: Any, ref: int | str, *, decide: Decider | None = None,
                progress: Progress | None = None, force: bool = False) -> WriteResult:
    """Take a topic from wherever it is to a written article, or to a recorded reason for none."""
    import time

    started = time.perf_counter()
    say = progress or _noop
    topic = queue.get_topic(ws.db, ref)
    result = WriteResult(topic=topic, outcome="")
    if topic.stage in (Stage.WRITTEN, Stage.INSUFFICIENT):
        raise StageError(f"topic {topic.slug!r} is already {topic.stage}"
                         + (" (see `nonseq articles list`)" if topic.stage is Stage.WRITTEN else ""))
    while True:
        topic, result.research = ensure_researched(ws, topic, say)
        topic, pack, verdict = gate_with_uber(ws, topic, say, result)
        result.verdict = verdict or result.verdict
        if topic.stage is Stage.THIN:
            action = resolve_thin(ws, topic, result.verdict, decide, say)
            if action == RETRY:
                topic = queue.get_topic(ws.db, topic.id)
                continue
            if action in (DELETE, GIVE_UP):
                result.outcome = "deleted" if action == DELETE else "insufficient_research"
                result.topic = topic if action == DELETE else queue.get_topic(ws.db, topic.id)
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
    article, result.prompt_stats = compose_article(ws, topic, pack, say, force=force)
    figures = {"path": article.path, "citations": article.citations, "added": article.added,
               "unsupported": article.unsupported}
    result.topic = queue.move(ws.db, topic.id, Stage.WRITTEN, reason=f"article {article.path}",
                              data=figures)
    result.article = article
    result.outcome = "written"
    result.seconds = time.perf_counter() - started
    return result
