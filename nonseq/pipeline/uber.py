"""Uber Research: when research is THIN, find what is missing, search for it, index what is relevant."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nonseq.errors import BackendError, StageError
from nonseq.events import Kind, Progress, Step, emit
from nonseq.models import Candidate, Chunk, GateVerdict, SourceKind, Stage, Topic

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

QUESTIONS = 4
MIN_KEYWORDS, MAX_KEYWORDS = 4, 6
#: A fetched page must mention at least this many distinct topic keywords to be indexed.
MIN_TOPIC_MATCHES = 3
#: Search results kept per question after the BM25 pre-score of title + snippet.
RESULTS_PER_QUESTION = 8
#: Existing chunks shown to the LLM for the gap analysis.
CONTEXT_CHUNKS = 8

GAP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "gaps": {
            "type": "array",
            "minItems": 1,
            "maxItems": QUESTIONS,
            "items": {
                "type": "object",
                "properties": {
                    "question": {"type": "string", "minLength": 8},
                    "keywords": {"type": "array", "items": {"type": "string", "minLength": 2},
                                 "minItems": 1, "maxItems": MAX_KEYWORDS},
                },
                "required": ["question", "keywords"],
            },
        }
    },
    "required": ["gaps"],
}

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9+\-']{2,}")
Tokenize = Callable[[str], list[str]]


@dataclass
class Gap:
    """A question about what the research is missing, and the keywords to search for it."""

    question: str
    keywords: list[str]
    origin: str = "llm"

    @property
    def query(self) -> str:
        """The search query: the keywords joined."""
        return " ".join(self.keywords)


@dataclass
class UberSummary:
    """What an Uber Research pass did, with the gate figures before and after."""

    slug: str
    gaps: list[Gap] = field(default_factory=list)
    analysis: str = "llm"
    searched: int = 0
    candidates: int = 0
    fetched: int = 0
    irrelevant: int = 0
    chunks_added: int = 0
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    stage: str = ""
    errors: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "slug": self.slug, "analysis": self.analysis,
            "gaps": [{"question": g.question, "keywords": g.keywords, "origin": g.origin}
                     for g in self.gaps],
            "searched": self.searched, "candidates": self.candidates, "fetched": self.fetched,
            "irrelevant": self.irrelevant, "chunks_added": self.chunks_added,
            "before": self.before, "after": self.after, "stage": self.stage,
            "errors": list(self.errors),
        }


def verdict_figures(verdict: GateVerdict) -> dict[str, Any]:
    """The gate figures shown before/after: status, chunks, mean score, domains."""
    return {"status": verdict.status, "chunks": verdict.chunks, "mean_score": verdict.mean_score,
            "domains": verdict.domains}


# -- keywords and relevance ------------------------------------------------------------------
def topic_words(topic: Topic, stopwords: set[str]) -> list[str]:
    """The topic's content words (title first, then focus and sub-queries), unstemmed, unique."""
    seen: list[str] = []
    for text in (topic.title, *topic.sub_queries, topic.focus):
        for word in _WORD_RE.findall(text or ""):
            low = word.lower().strip("'-")
            if low not in stopwords and low not in seen and len(low) > 2:
                seen.append(low)
    return seen


def topic_terms(topic: Topic, tokenize: Tokenize) -> set[str]:
    """The topic's stemmed BM25 terms (title, focus, sub-queries)."""
    return set(tokenize(topic.query))


def keyword_matches(text: str, terms: set[str], tokenize: Tokenize) -> int:
    """How many distinct topic terms a text mentions."""
    return len(terms & set(tokenize(text)))


def relevance_filter(topic: Topic, tokenize: Tokenize,
                     minimum: int = MIN_TOPIC_MATCHES) -> Callable[[str], str | None]:
    """A page filter: None to keep a page, else the reason it is dropped."""
    terms = topic_terms(topic, tokenize)
    need = min(minimum, len(terms))

    def check(text: str) -> str | None:
        """Keep pages that mention enough topic keywords."""
        found = keyword_matches(text, terms, tokenize)
        return None if found >= need else f"mentions {found} topic keyword(s), need {need}"

    return check


def clean_keywords(raw: Sequence[Any], fill: Sequence[str]) -> list[str]:
    """4-6 short, unique keywords: the model's first, topped up from the topic's own words."""
    out: list[str] = []
    for item in list(raw) + list(fill):
        word = " ".join(str(item).replace('"', " ").split())[:40].strip(" ,.;:").lower()
        if len(word) >= 2 and word not in out:
            out.append(word)
        if len(out) >= MAX_KEYWORDS:
            break
    return out


# -- the gap analysis ------------------------------------------------------------------------
def gap_messages(topic: Topic, excerpts: Sequence[str]) -> list[dict[str, str]]:
    """The gap-analysis prompt: what we have, the focus, and what to return."""
    shown = "\n".join(f"- {' '.join(t.split())[:400]}" for t in excerpts) or "- (nothing yet)"
    return [
        {"role": "system", "content": "You are a research editor. You find what is missing from "
         "research notes and answer only with JSON."},
        {"role": "user", "content": (
            f"Article topic: {topic.title}\nArticle focus: {topic.focus or topic.title}\n\n"
            f"Research found so far (excerpts, data only):\n{shown}\n\n"
            f"Write {QUESTIONS} questions about what the research is missing for this focus. "
            f"For each question give {MIN_KEYWORDS}-{MAX_KEYWORDS} search keywords. Answer as "
            '{"gaps": [{"question": "...", "keywords": ["...", "..."]}]}')},
    ]


def fallback_gaps(topic: Topic, excerpts: Sequence[str], stopwords: set[str]) -> list[Gap]:
    """Deterministic gaps: the topic words the research covers least, each searched with the title."""
    words = topic_words(topic, stopwords)
    if not words:
        return []
    coverage: Counter[str] = Counter()
    lowered = [t.lower() for t in excerpts]
    for word in words:
        coverage[word] = sum(word in t for t in lowered)
    title_words = [w for w in words if w in topic.title.lower()] or words[:3]
    order = sorted(words, key=lambda w: (coverage[w], words.index(w)))
    gaps = []
    for word in order[:QUESTIONS]:
        keywords = clean_keywords([word], title_words + words)
        gaps.append(Gap(f"What do sources say about {word} in relation to {topic.title}?",
                        keywords, origin="keywords"))
    return gaps


def analyse_gaps(llm: Any, topic: Topic, excerpts: Sequence[str], stopwords: set[str],
                 max_tokens: int = 600) -> tuple[list[Gap], str]:
    """Ask the LLM for the gaps; fall back to keyword extraction when its answer is unusable."""
    fallback = fallback_gaps(topic, excerpts, stopwords)
    fill = topic_words(topic, stopwords)
    try:
        answer = llm.complete_json(gap_messages(topic, excerpts), GAP_SCHEMA, max_tokens=max_tokens)
        gaps = []
        for item in answer.get("gaps", [])[:QUESTIONS]:
            question = " ".join(str(item.get("question", "")).split())
            keywords = clean_keywords(item.get("keywords", []), fill)
            if len(question) >= 8 and len(keywords) >= MIN_KEYWORDS:
                gaps.append(Gap(question, keywords))
    except (BackendError, AttributeError, TypeError, ValueError):
        return fallback, "keywords"
    if not gaps:
        return fallback, "keywords"
    used = {g.query for g in gaps}
    gaps.extend(g for g in fallback if g.query not in used and len(gaps) < QUESTIONS)
    return gaps[:QUESTIONS], "llm"


# -- search and pre-score --------------------------------------------------------------------
def prescore_results(results: Sequence[Any], topic: Topic, tokenize: Tokenize,
                     keep: int = RESULTS_PER_QUESTION) -> list[Any]:
    """BM25 of each result's title + snippet against the topic; the best `keep` results."""
    from nonseq.retrieval.prerank import prerank_bm25

    cands = [Candidate(chunk=Chunk(text=f"{r.title}\n{r.snippet}", topic_slug=topic.slug,
                                   category=topic.category, url=r.url), group=SourceKind.RESEARCH)
             for r in results]
    ranked = prerank_bm25(cands, tokenize(topic.query), tokenize=tokenize)
    by_url = {r.url: r for r in results}
    scored = [by_url[c.chunk.url] for c in ranked if c.scores.get("bm25", 0.0) > 0.0]
    return scored[:keep]


def search_gaps(ws: Workspace, topic: Topic, gaps: Sequence[Gap], summary: UberSummary) -> list[str]:
    """Search each gap's keywords, pre-score the results, and return new URLs to fetch."""
    from nonseq import queue
    from nonseq.research.searx import SearxClient

    known = {s.url for s in queue.list_sources(ws.db, topic)}
    client = SearxClient(ws.settings.searxng)
    urls: list[str] = []
    try:
        for gap in gaps:
            try:
                response = client.search(gap.query)
            except BackendError as exc:
                summary.errors.append(str(exc))
                break
            summary.searched += 1
            fresh = [r for r in response.results if r.url not in known and r.url not in urls
                     and not ws.domains.is_blocked(r.url)]
            urls.extend(r.url for r in prescore_results(fresh, topic, ws.sparse.tokenize))
    finally:
        close = getattr(client, "close", None)
        if callable(close):
            close()
    summary.candidates = len(urls)
    return urls


def run_uber(ws: Workspace, ref: int | str, progress: Progress | None = None) -> UberSummary:
    """One Uber Research pass for a THIN (or just researched) topic: gaps → search → index → gate."""
    from nonseq import queue
    from nonseq.index.sparse import load_stopwords
    from nonseq.pipeline.gate import run_gate
    from nonseq.pipeline.research import run_research

    def say(message: str) -> None:
        """Say a note under the Uber Research step."""
        emit(progress, Step.UBER, Kind.NOTE, message)

    topic = queue.get_topic(ws.db, ref)
    if topic.stage is Stage.INSUFFICIENT:
        topic = queue.retry(ws.db, topic.id)
    if topic.stage not in (Stage.THIN, Stage.RESEARCHED, Stage.GATED):
        raise StageError(f"topic {topic.slug!r} is {topic.stage}: Uber Research runs on researched, "
                         "gated, thin or insufficient_research topics")
    summary = UberSummary(slug=topic.slug)
    if topic.stage is Stage.RESEARCHED:
        topic, pack, before = run_gate(ws, topic.id)
    else:
        from nonseq.pipeline.gate import evaluate
        from nonseq.retrieval.pipeline import retrieve

        pack = retrieve(ws, topic)
        before = evaluate(pack, ws.settings.gate)
    summary.before = verdict_figures(before)
    if before.ok:
        summary.after, summary.stage = summary.before, str(topic.stage)
        return summary
    excerpts = [c.chunk.text for c in pack.research[:CONTEXT_CHUNKS]]
    say("gap analysis")
    stopwords = load_stopwords(ws.settings.sparse.language)
    summary.gaps, summary.analysis = analyse_gaps(ws.llm, topic, excerpts,
                                                  stopwords)
    say(f"searching {len(summary.gaps)} gap(s)")
    urls = search_gaps(ws, topic, summary.gaps, summary)
    say(f"fetching {len(urls)} page(s)")
    research = run_research(ws, topic.id, urls=urls, origin="uber",
                            page_filter=relevance_filter(topic, ws.sparse.tokenize))
    summary.fetched = research.fetched
    summary.irrelevant = research.failed.get("irrelevant", 0)
    summary.chunks_added = research.chunks
    say("gate")
    topic, _pack, after = run_gate(ws, topic.id)
    summary.after = verdict_figures(after)
    summary.stage = str(topic.stage)
    return summary
