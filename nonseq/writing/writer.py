"""The writer end to end: plan -> restate -> verify -> repair/quote, then the grounding check and draft gate.

`write_planned(ws, pack, llm)` needs only the context pack, the topic's schema, an LLM, the
embedder, the sparse tokenizer and a support check (`verify.rules.SupportCheck`; by default the
workspace's `verify.support` checker). Nothing is written to disk: the write stage saves the
article and `Written.prompt_file()` (the plan, the prompts and every sentence's attempts).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nonseq.writing.compose import (
    Composer,
    SentenceRecord,
    assemble,
    compose_settings,
    counts,
    dropped,
    messages,
    page_sentences,
    records_markdown,
    review,
)
from nonseq.writing.plan import WritePlan, build_plan, language_reason, plan_settings

if TYPE_CHECKING:
    from nonseq.events import Progress
    from nonseq.llm.base import LLM
    from nonseq.models import ContextPack
    from nonseq.verify.grounding import GroundingResult
    from nonseq.verify.rules import SupportCheck
    from nonseq.workspace import Workspace
    from nonseq.writing.quality import Quality
    from nonseq.writing.sources import FactChunk


@dataclass
class Written:
    """What one write produced."""

    plan: WritePlan
    records: list[SentenceRecord]
    body: str
    grounding: GroundingResult
    quality: Quality
    facts: list[FactChunk]
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    pages: dict[str, list[str]] = field(default_factory=dict)  # each source page's sentences (full_pages)

    @property
    def made(self) -> dict[str, int]:
        """How the article's sentences were made: quoted, verbatim, restated."""
        return counts(self.records)

    @property
    def dropped(self) -> int:
        """Planned units left out (every try failed, or the sentence leaned on one left out)."""
        return dropped(self.records)

    @property
    def status(self) -> str:
        """"written", or "draft" when the draft gate kept it back."""
        return "draft" if self.quality.draft else "written"

    def prompt_file(self, model: str) -> str:
        """The audit copy: the plan, the prompts used, and every sentence's attempts."""
        free = "\n".join(f"- {m['role']}: {m['content']}" for m in messages("<unit>", False, False))
        literal = "\n".join(f"- {m['role']}: {m['content']}" for m in messages("<sentence>", False, True))
        return "\n".join([f"# Prompt: {self.plan.title}", "", "- writer: plan", f"- model: {model}",
                          f"- made: {self.made}", f"- dropped units: {self.dropped}", "",
                          self.plan.to_markdown(), "## Prompt (per unit)", "",
                          free, "", "## Retry prompt (less freedom)", "", literal, "",
                          records_markdown(self.records), review_block(review(self.records))])


REVIEW_MARK = "<!-- nonseq review -->"


def review_block(rows: list[dict[str, Any]]) -> str:
    """The review data, as the last part of the prompt file (read back by `articles review`)."""
    import json

    return "\n".join(["## Review", "", REVIEW_MARK, "```json", json.dumps(rows, ensure_ascii=False, indent=1),
                      "```", ""])


def instructions() -> list[str]:
    """The instruction text the model sees (an article line repeating it is an echo)."""
    return [m["content"] for lit in (False, True) for pair in (False, True)
            for m in messages("", pair, lit) if m["role"] != "assistant"]


def full_pages(ws: Workspace, plan: WritePlan) -> dict[str, list[str]]:
    """Each source page's sentences, by url: every chunk research indexed of it, in page order, after
    the plan's own sentences (a surname's full name or an abbreviation's long form is often in a part
    of the page retrieval did not rank)."""
    from nonseq.index.vector_store import research_collection
    from nonseq.models import SourceKind
    from nonseq.research.chunking import merge_chunks
    from nonseq.text.sentences import split

    out = page_sentences(plan)
    pages = {c.chunk.url: c.chunk.category for c in plan.chunks if c.group is SourceKind.RESEARCH}
    for url, category in pages.items():
        points = ws.store.scroll_all(research_collection(category), match={"url": url})
        if points:  # the page's text once, its chunks' overlap joined (`research.chunking.merge_chunks`)
            out.setdefault(url, []).extend(split(merge_chunks(sorted((p.chunk for p in points),
                                                                     key=lambda c: c.position))[0]))
    return out


def write_planned(ws: Workspace, pack: ContextPack, llm: LLM, *, support: SupportCheck | None = None,
                  progress: Progress | None = None) -> Written:
    """Plan, compose and check one article from a context pack under [writing]."""
    from nonseq.events import Kind, Step, emit
    from nonseq.verify.grounding import check_grounding
    from nonseq.verify.rules import Verifier, support_for
    from nonseq.writing.quality import assess
    from nonseq.writing.schemas import load_schema
    from nonseq.writing.sources import FactChunk

    started, cpu = time.perf_counter(), time.process_time()
    cfg = ws.settings.writing
    schema = load_schema(ws, pack.topic.schema)
    plan = build_plan(pack, schema, ws.embedder.embed, plan_settings(cfg))
    verifier = Verifier(support or support_for(ws), cfg.min_support, allow_imperative=schema.name == "how-to")
    records = Composer(llm, verifier, compose_settings(cfg), progress).run(plan)
    pages = full_pages(ws, plan)
    body = assemble(plan, records, schema.headings, pages)
    emit(progress, Step.GROUND, Kind.START, "grounding and quality check")
    facts = [FactChunk(n, text, url, title, "research", i)
             for i, (n, text, url, title) in enumerate(plan.facts())]
    facts += [FactChunk(u.n, s.text, s.url, s.title, "research", len(facts))  # dates written in from the page's
              for u in plan.units for s in u.sentences if s.page and s.text != s.page]
    grounding = check_grounding(body, facts, tokenize=ws.sparse.tokenize, embed=ws.embedder.embed)
    quality = assess(grounding.text, grounding, instructions(), cfg, counts(records))
    if quality.draft and (foreign := language_reason(plan)):
        quality.reasons.append(foreign)
    return Written(plan, records, grounding.text, grounding, quality, facts,
                   time.perf_counter() - started, time.process_time() - cpu, pages)
