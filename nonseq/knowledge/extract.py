"""Extraction: distil each fetched page of a topic into a few self-contained facts with their quotes.

The LLM reads the page's prose (reassembled from its research chunks) and answers schema-constrained
JSON; each fact's quote must really be in the page and the support check must accept the fact against
it. When the LLM's answer is unusable or nothing survives, an extractive fallback keeps the page's most
informative sentences for the topic, marked `extractive`. Navigation, reference lists and other page
furniture (not prose) yield nothing. Each page's facts and its "done" mark are written in one
transaction, so Ctrl-C or a crash resumes with the next page and never duplicates a fact.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from nonseq import queue
from nonseq.db import transaction
from nonseq.errors import BackendError
from nonseq.events import Kind, Progress, Step, emit
from nonseq.index.vector_store import research_collection
from nonseq.knowledge import dedup, records
from nonseq.knowledge.records import EXTRACTIVE, FactRecord
from nonseq.models import FactKind, Topic
from nonseq.research.chunking import merge_chunks
from nonseq.text.instructions import drop_instructions, is_instruction
from nonseq.text.sentences import sentences

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

#: Bumped whenever the extraction prompt changes (recorded on every LLM fact).
PROMPT_VERSION = "facts-v1"
#: Share of a loosely copied quote's words one page sentence must hold to stand in for it.
FUZZY_QUOTE = 0.8
#: Sentence length bounds (characters) for a fact picked verbatim.
MIN_CHARS, MAX_CHARS = 50, 420
#: Pages in a row without one usable LLM fact after which a run goes on extractive only.
LLM_GIVE_UP = 2
#: Longest LLM answer (six short facts with their quotes fit).
MAX_ANSWER_TOKENS = 450
#: Facts the LLM is asked for.
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "facts": {
            "type": "array", "minItems": 1, "maxItems": 6,
            "items": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "quote": {"type": "string"},
                    "kind": {"type": "string", "enum": ["topic", "evergreen"]},
                },
                "required": ["text", "quote", "kind"],
            },
        },
    },
    "required": ["facts"],
}
SYSTEM = (
    "You distil facts from one web page for a knowledge base. Write 3 to 6 facts. Each fact is a "
    "short self-contained paragraph (one to three sentences) that names what it is about - products, "
    "releases, numbers, people, dates - and makes sense without the page. Give each fact a `quote`: "
    "one sentence copied word for word from the page that supports it. `kind` is `evergreen` for "
    "background that stays true beyond this topic's news, else `topic`. Use only the page."
)
_NOT_SELF_CONTAINED = re.compile(
    r"^(?:it|its|this|that|these|those|they|them|he|she|his|her|we|our|but|and|or|so|also|however|"
    r"meanwhile|still|yet|then|here|there)\b", re.IGNORECASE)
_WORD = re.compile(r"\w+")
_PERSONAL = re.compile(r"\b(?:I|we|you|our|my|your)\b", re.IGNORECASE)
_SPECIFIC = re.compile(r"\d|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+|(?<=\s)[A-Z]{2,}")


@dataclass
class Page:
    """A fetched page rebuilt from its research chunks."""

    url: str
    title: str = ""
    domain: str = ""
    published: str = ""
    fetched_at: str = ""
    text: str = ""
    #: (offset in text, page) where each document page begins (PDFs; empty for web pages).
    marks: list[tuple[int, int]] = field(default_factory=list)

    def pages_of(self, start: int, end: int) -> list[int]:
        """The document pages the text span [start, end) stands on."""
        current = [page for offset, page in self.marks if offset <= start][-1:]
        inside = [page for offset, page in self.marks if start < offset < end]
        return sorted(set(current + inside))


@dataclass
class ExtractReport:
    """What an extraction did."""

    topic_id: int
    slug: str
    pages: int = 0
    skipped: int = 0
    new: int = 0
    merged: int = 0
    dropped: int = 0
    llm: int = 0
    extractive: int = 0
    rejected: int = 0
    empty: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data = asdict(self)
        data["seconds"] = round(self.seconds, 2)
        return data


def topic_pages(ws: Workspace, topic: Topic) -> list[Page]:
    """The topic's pages rebuilt from its research chunks, in the order they were fetched."""
    points = ws.store.scroll_all(research_collection(topic.category), {"topic_slug": topic.slug})
    by_url: dict[str, list[Any]] = {}
    for p in points:
        by_url.setdefault(p.chunk.url, []).append(p.chunk)
    rows = ws.db.execute("SELECT url, final_url, at FROM sources WHERE topic_id=? ORDER BY id",
                         (topic.id,)).fetchall()
    fetched: dict[str, str] = {}
    order: dict[str, int] = {}
    for n, r in enumerate(rows):
        for u in (r["url"], r["final_url"]):
            if u:
                fetched.setdefault(u, r["at"])
                order.setdefault(u, n)
    pages = []
    for url, chunks in by_url.items():
        chunks.sort(key=lambda c: c.position)
        text, marks = merge_chunks(chunks)
        first = chunks[0]
        pages.append(Page(url, first.title, first.domain, first.published, fetched.get(url, ""),
                          text, marks))
    return sorted(pages, key=lambda p: (order.get(p.url, len(order)), p.url))


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(offset, line) of the page's lines that read as prose (furniture and lists are dropped)."""
    from nonseq.text.prose import is_prose

    out, pos = [], 0
    for line in text.split("\n"):
        if line.strip() and is_prose(line):
            out.append((pos, line))
        pos += len(line) + 1
    return out


def find_quote(page: str, quote: str) -> tuple[int, int] | None:
    """Where the quote is in the page (whitespace and case forgiven), else the one page sentence
    holding nearly all of its words (a model's loose copy: the page's own words become the quote)."""
    words = quote.split()
    if len(" ".join(words)) < 20:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    m = re.search(pattern, page, re.IGNORECASE)
    if m:
        return m.start(), m.end()
    return _closest_sentence(page, quote)


def _closest_sentence(page: str, quote: str) -> tuple[int, int] | None:
    """The span of the page sentence holding at least FUZZY_QUOTE of the quote's words, if any."""
    wanted = set(_WORD.findall(quote.lower()))
    if len(wanted) < 6:
        return None
    best: tuple[float, int, int] = (0.0, -1, -1)
    offset = 0
    for line in page.split("\n"):
        cursor = 0
        for sentence in sentences(line):
            at = line.find(sentence, cursor)
            if at < 0:
                continue
            cursor = at + len(sentence)
            share = len(wanted & set(_WORD.findall(sentence.lower()))) / len(wanted)
            if share > best[0]:
                best = (share, offset + at, offset + at + len(sentence))
        offset += len(line) + 1
    return (best[1], best[2]) if best[0] >= FUZZY_QUOTE else None


def sentence_score(sentence: str, topic_terms: set[str], tokenize: Callable[[str], list[str]]) -> float:
    """How informative a sentence is for the topic (0: not a candidate)."""
    if not MIN_CHARS <= len(sentence) <= MAX_CHARS or sentence.endswith("?"):
        return 0.0
    terms = set(tokenize(sentence))
    overlap = len(terms & topic_terms) / max(1, len(topic_terms))
    if overlap == 0:
        return 0.0
    specifics = len(_SPECIFIC.findall(sentence)) + len(_NAME.findall(sentence))
    score = 2 * overlap + 0.25 * min(specifics, 4)
    if _NOT_SELF_CONTAINED.match(sentence):
        score *= 0.5
    if _PERSONAL.search(sentence):  # the writer's or reader's view, not a fact
        score *= 0.6
    return score


def extractive_facts(ws: Workspace, topic: Topic, page: Page, limit: int) -> list[FactRecord]:
    """The page's most informative prose sentences for the topic, verbatim (quote = text)."""
    tokenize = ws.sparse.tokenize
    topic_terms = set(tokenize(topic.query))
    scored: list[tuple[float, int, str]] = []
    for offset, line in prose_lines(page.text):
        cursor = 0
        for sentence in sentences(line):
            at = line.find(sentence, cursor)
            cursor = max(cursor, at + len(sentence)) if at >= 0 else cursor
            if is_instruction(sentence):  # an order to the model is not a fact
                continue
            score = sentence_score(sentence, topic_terms, tokenize)
            if score > 0 and at >= 0:
                scored.append((score, offset + at, sentence))
    scored.sort(key=lambda s: -s[0])
    picked: list[tuple[int, str]] = []
    seen: list[set[str]] = []
    for _score, start, sentence in scored:
        terms = set(tokenize(sentence))
        if any(len(terms & s) / max(1, len(terms | s)) > 0.6 for s in seen):
            continue
        picked.append((start, sentence))
        seen.append(terms)
        if len(picked) >= limit:
            break
    return [_record(topic, page, s, s, (start, start + len(s)), EXTRACTIVE) for start, s in picked]


def _record(topic: Topic, page: Page, text: str, quote: str, span: tuple[int, int],
            extractor: str, kind: FactKind = FactKind.TOPIC) -> FactRecord:
    """A pending fact from a page."""
    return FactRecord(text=text, category=topic.category, kind=kind, topic_id=topic.id,
                      topic_slug=topic.slug, url=page.url, title=page.title, domain=page.domain,
                      published=page.published, fetched_at=page.fetched_at, quote=quote,
                      quote_start=span[0], quote_end=span[1], pages=page.pages_of(*span),
                      extractor=extractor)


def llm_facts(llm: Any, topic: Topic, page: Page, prose: str, max_words: int,
              max_tokens: int = MAX_ANSWER_TOKENS) -> tuple[list[FactRecord], int]:
    """(the LLM's facts whose quote is in the page, how many it proposed); BackendError when its
    answer is unusable."""
    words = prose.split()
    body = " ".join(words[:max_words])
    messages = [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"Topic: {topic.title}\nPage: {page.title}\n\n{body}"}]
    answer = llm.complete_json(messages, SCHEMA, max_tokens=max_tokens)
    items = answer.get("facts", [])
    out = []
    for item in items:
        text = " ".join(str(item.get("text", "")).split())
        span = find_quote(page.text, str(item.get("quote", "")))
        if len(text) < 30 or span is None or is_instruction(text) or is_instruction(page.text[span[0]:span[1]]):
            continue
        kind = FactKind(item["kind"]) if item.get("kind") in records.KINDS else FactKind.TOPIC
        out.append(_record(topic, page, text, page.text[span[0]:span[1]], span,
                           f"{llm.name}/{PROMPT_VERSION}", kind))
    return out, len(items)


def check(ws: Workspace, facts: list[FactRecord]) -> list[FactRecord]:
    """Run the support check of each fact against its quote, who does what included; keep the supported ones."""
    if not facts:
        return []
    from nonseq.verify.support import checker_for, with_roles

    results = checker_for(ws).check_many([(f.text, f.quote) for f in facts], setting="claim")
    kept = []
    for fact, checked in zip(facts, results, strict=True):
        result = with_roles(fact.text, fact.quote, checked)
        fact.support = round(float(result.score), 4)
        fact.flags = list(result.flags)
        if result.supported:
            kept.append(fact)
    return kept


class _Extractor:
    """One extraction run over a topic's pages."""

    def __init__(self, ws: Workspace, topic: Topic, report: ExtractReport) -> None:
        self.ws, self.topic, self.report = ws, topic, report
        self.settings = ws.settings.knowledge
        self.llm: Any = None
        self.misses = 0
        if self.settings.use_llm:
            try:  # one attempt per page: the extractive fallback is the retry
                self.llm = ws.llm_with(json_retries=0)
            except BackendError as exc:
                report.notes.append(f"LLM unavailable, extractive only: {exc}")
        self.index = dedup.FactIndex(ws.db, topic.category, ws.embedder.name,
                                     self.settings.dedup_threshold)

    def facts_for(self, page: Page) -> list[FactRecord]:
        """The LLM's checked facts for a page, else the extractive ones."""
        lines = prose_lines(page.text)
        if not lines:
            return []
        limit = self.settings.facts_per_page
        if self.llm is not None:
            kept = self._ask_llm(page, drop_instructions("\n".join(line for _, line in lines)))[:limit]
            if kept:
                self.misses = 0
                return kept
            self.misses += 1
            if self.misses >= LLM_GIVE_UP and self.llm is not None:
                self.report.notes.append(f"the LLM gave nothing usable for {self.misses} pages in a "
                                         "row: extractive facts for the rest of this run")
                self.llm = None
        return check(self.ws, extractive_facts(self.ws, self.topic, page, limit))

    def _ask_llm(self, page: Page, prose: str) -> list[FactRecord]:
        """The LLM's facts for a page that pass the quote and support checks ([] when none do)."""
        try:
            found, proposed = llm_facts(self.llm, self.topic, page, prose,
                                        int(self.settings.page_tokens * 0.75),
                                        min(MAX_ANSWER_TOKENS, self.ws.settings.llm.max_tokens))
        except BackendError as exc:
            if "no valid JSON" not in str(exc):
                self.report.notes.append(f"LLM failed, extractive only: {exc}")
                self.llm = None
            return []
        kept = check(self.ws, found)
        self.report.rejected += proposed - len(kept)
        return kept

    def store(self, page: Page, facts: list[FactRecord]) -> None:
        """Dedup and store a page's facts and mark the page done, in one transaction."""
        vectors: Any = self.ws.embedder.embed([f.text for f in facts]) if facts else []
        counts = {dedup.NEW: 0, dedup.MERGED: 0, dedup.DROPPED: 0}
        with transaction(self.ws.db):
            for fact, vector in zip(facts, vectors, strict=True):
                outcome = dedup.resolve(self.ws.db, self.index, fact, vector)
                counts[outcome] += 1
                if outcome == dedup.NEW:
                    if fact.extractor == EXTRACTIVE:
                        self.report.extractive += 1
                    else:
                        self.report.llm += 1
            extractor = facts[0].extractor if facts else ""
            records.mark_extracted(self.ws.db, int(self.topic.id or 0), page.url, extractor,
                                   counts[dedup.NEW], counts[dedup.MERGED])
        self.report.new += counts[dedup.NEW]
        self.report.merged += counts[dedup.MERGED]
        self.report.dropped += counts[dedup.DROPPED]
        self.report.empty += not facts


def extract_facts(ws: Workspace, topic_id: int | str, *, progress: Progress | None = None) -> ExtractReport:
    """Distil the topic's fetched pages into pending facts (resumes after the last finished page)."""
    started = time.perf_counter()
    topic = queue.get_topic(ws.db, topic_id)
    report = ExtractReport(int(topic.id or 0), topic.slug)
    pages = topic_pages(ws, topic)
    done = records.extracted_urls(ws.db, report.topic_id)
    todo = [p for p in pages if p.url not in done]
    report.pages, report.skipped = len(todo), len(pages) - len(todo)
    if not pages:
        report.notes.append("no research chunks for this topic (not researched yet, or wiped)")
        return report
    run = _Extractor(ws, topic, report)
    for n, page in enumerate(todo, 1):
        emit(progress, Step.EXTRACT, Kind.UPDATE, page.url, done=n - 1, total=len(todo))
        run.store(page, run.facts_for(page))
        emit(progress, Step.EXTRACT, Kind.UPDATE, page.url, done=n, total=len(todo))
    report.seconds = time.perf_counter() - started
    return report
