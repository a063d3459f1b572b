"""Plain data types that flow between stages: topics, sources, chunks, candidates, verdicts, facts."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

#: The optional payload key of a chunk's document pages (written only when it has pages).
PAGES_KEY = "pages"
#: The extra payload key of the site section a page is filed under ("Opinion", "ideas"), from its metadata.
SECTION_KEY = "section"
#: The extra payload key of the site's own name for itself ("MacRumors", "The Hill"), from its metadata (og:site_name).
SITE_KEY = "site"
#: Payload key of how many characters a chunk's text begins with that are the end of a sentence the chunk
#: before holds (the overlap kept only the end of a long one); absent when it begins with a whole sentence.
CUT_START_KEY = "cut_start"
#: Namespace for deterministic point ids (uuid5).
POINT_NAMESPACE = uuid.UUID("6f1c2b8e-4d0a-5b7e-9a31-2c4e5f607182")

#: The payload keys every Qdrant point carries, in this order.
PAYLOAD_KEYS: tuple[str, ...] = (
    "topic_slug",
    "category",
    "url",
    "domain",
    "title",
    "published",
    "content_hash",
    "trust_boost",
    "source_kind",
    "position",
    "text",
)


class Stage(StrEnum):
    """Where a topic is in its life."""

    QUEUED = "queued"
    RESEARCHING = "researching"
    RESEARCHED = "researched"
    GATED = "gated"
    THIN = "thin"
    WRITING = "writing"
    WRITTEN = "written"
    DRAFT = "draft"  # written, but the reply failed the quality gate
    INSUFFICIENT = "insufficient_research"
    FAILED = "failed"


class SourceKind(StrEnum):
    """Which source group a chunk belongs to."""

    RESEARCH = "research"
    KNOWLEDGE = "knowledge"
    EVERGREEN = "evergreen"
    PERSONA = "persona"


class Outcome(StrEnum):
    """What happened when a URL was fetched."""

    FETCHED = "fetched"
    BLOCKED = "blocked"
    ROBOTS = "robots"
    TOO_LARGE = "too_large"
    WRONG_TYPE = "wrong_type"
    TIMEOUT = "timeout"
    HTTP_ERROR = "http_error"
    REFUSED = "refused"
    TOO_SHORT = "too_short"
    DUPLICATE = "duplicate"
    ERROR = "error"
    REDIRECTS = "redirects"  # redirect loop or more redirects than [fetch] max_redirects
    EMPTY = "empty"  # the server answered 2xx with an empty body
    IRRELEVANT = "irrelevant"  # Uber Research: the page mentions too few topic keywords
    ENCRYPTED = "encrypted"  # a document that needs a password (or carries DRM)
    NO_TEXT = "no_text"  # a document without a text layer (a scan: no OCR) or without any text
    UNREADABLE = "unreadable"  # a corrupt document, or one its reader gave up on


#: Longest title kept in a provenance header (cut at a word, with an ellipsis).
HEADER_TITLE_CHARS = 90
#: Payload key under which persona chunks keep the trigger text their trigger_dense vector embeds.
TRIGGER_KEY = "trigger"


#: The domain of the user's own local files (each one counts as its own source).
LOCAL_DOMAIN = "local"


def page_label(pages: Sequence[int]) -> str:
    """How pages are cited: "p. 14", "pp. 14–15", "pp. 3, 14–16" ("" without pages)."""
    numbers = sorted(set(pages))
    if not numbers:
        return ""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = [str(r[0]) if len(r) == 1 else f"{r[0]}\u2013{r[-1]}" for r in runs]
    return f"{'p.' if len(numbers) == 1 else 'pp.'} {', '.join(parts)}"


def provenance_header(domain: str, title: str, published: str) -> str:
    """The short header embedded with each research chunk: [domain › title › date] (empty parts left out)."""
    if len(title) > HEADER_TITLE_CHARS:
        title = title[:HEADER_TITLE_CHARS].rsplit(" ", 1)[0] + "…"
    parts = [p for p in (domain, title, (published or "")[:10]) if p]
    return f"[{' › '.join(parts)}]" if parts else ""


class DropReason(StrEnum):
    """Why the retrieval chain left a candidate out."""

    DUPLICATE = "duplicate"        # near-identical to a better one (cosine >= dedup_threshold)
    PRERANK_CUT = "prerank_cut"    # below the BM25 pre-rank's top prerank_top
    POOL_FULL = "pool_full"        # beyond the rerank pool
    NOT_PROSE = "not_prose"        # page furniture: links, menus, bylines
    RANK_CUT = "rank_cut"          # below final_top, evergreen_top or persona_top
    PER_URL_CAP = "per_url_cap"    # per_url_max chunks already chosen from its URL


class ThinChoice(StrEnum):
    """What a person (or the night run) decides after a THIN verdict."""

    CONTINUE = "continue"
    RETRY = "retry"
    DELETE = "delete"
    GIVE_UP = "give_up"  # unattended: insufficient_research, no article


class WriteOutcome(StrEnum):
    """How a write (or a night run's topic) ended."""

    WRITTEN = "written"
    DRAFT = "draft"
    INSUFFICIENT = "insufficient_research"
    DELETED = "deleted"
    FAILED = "failed"


class ArticleStatus(StrEnum):
    """Whether an article passed the quality gate."""

    WRITTEN = "written"
    DRAFT = "draft"


def content_hash(text: str) -> str:
    """A stable sha256 of normalised text, used to index identical pages once."""
    normalised = " ".join(text.split()).lower()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


@dataclass
class Topic:
    """A queued article topic and its state."""

    title: str
    slug: str
    category: str
    focus: str = ""
    sub_queries: list[str] = field(default_factory=list)
    persona: str = ""
    schema: str = "explainer"
    priority: int = 0
    stage: Stage = Stage.QUEUED
    #: The queue's id (0 until the topic is stored).
    id: int = 0
    error: str = ""
    created_at: str = ""
    updated_at: str = ""

    @property
    def query(self) -> str:
        """The retrieval query: title, focus and sub-queries joined."""
        parts = [self.title, self.focus, *self.sub_queries]
        return " ".join(p.strip() for p in parts if p and p.strip())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data = asdict(self)
        data["stage"] = str(self.stage)
        return data


@dataclass
class Source:
    """One fetched (or refused) URL and what happened to it."""

    url: str
    domain: str
    outcome: Outcome
    final_url: str = ""
    status: int | None = None
    reason: str = ""
    bytes: int = 0
    seconds: float = 0.0
    title: str = ""
    content_hash: str = ""
    topic_slug: str = ""
    trust_boost: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        data = asdict(self)
        data["outcome"] = str(self.outcome)
        return data


@dataclass
class Chunk:
    """A piece of text with its provenance: exactly the payload of a Qdrant point."""

    text: str
    topic_slug: str
    category: str
    url: str
    domain: str = ""
    title: str = ""
    published: str = ""
    content_hash: str = ""
    trust_boost: float = 0.0
    source_kind: SourceKind = SourceKind.RESEARCH
    position: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    #: The document pages the text comes from (PDFs; empty for web pages and unpaged files).
    pages: list[int] = field(default_factory=list)

    @property
    def is_local(self) -> bool:
        """True for a chunk of one of the user's own local files."""
        return self.domain == LOCAL_DOMAIN

    @property
    def source_key(self) -> str:
        """What counts as one source (the gate's diversity rule): its domain; a local file is its own."""
        return self.url if self.is_local or not self.domain else self.domain

    def point_id(self) -> str:
        """A deterministic point id from kind, topic, url and position."""
        key = f"{self.source_kind}|{self.topic_slug}|{self.url}|{self.position}"
        return str(uuid.uuid5(POINT_NAMESPACE, key))

    def embedding_text(self) -> str:
        """The text that is embedded for this chunk: research chunks carry their provenance header."""
        if self.source_kind is SourceKind.RESEARCH:
            header = provenance_header(self.domain, self.title, self.published)
            return f"{header}\n{self.text}" if header else self.text
        return self.text

    def to_payload(self) -> dict[str, Any]:
        """The Qdrant payload: the PAYLOAD_KEYS plus any extra keys."""
        payload = {key: getattr(self, key) for key in PAYLOAD_KEYS}
        payload["source_kind"] = str(self.source_kind)
        if self.pages:
            payload[PAGES_KEY] = list(self.pages)
        payload.update(self.extra)
        return payload

    @classmethod
    def from_payload(cls, payload: dict[str, Any]) -> Chunk:
        """Rebuild a chunk from a stored payload."""
        known: dict[str, Any] = {key: payload.get(key) for key in PAYLOAD_KEYS if key in payload}
        extra = {k: v for k, v in payload.items() if k not in PAYLOAD_KEYS and k != PAGES_KEY}
        known["pages"] = [int(n) for n in payload.get(PAGES_KEY) or []]
        known["source_kind"] = SourceKind(known.get("source_kind") or "research")
        for key in ("domain", "title", "published", "content_hash", "category", "url"):
            known[key] = known.get(key) or ""
        known["trust_boost"] = float(known.get("trust_boost") or 0.0)
        known["position"] = int(known.get("position") or 0)
        known.setdefault("topic_slug", "")
        known.setdefault("text", "")
        return cls(extra=extra, **known)


@dataclass
class Candidate:
    """A chunk in the retrieval chain, with the score each step gave it."""

    chunk: Chunk
    group: SourceKind
    point_id: str = ""
    vector: list[float] | None = None
    scores: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: Why it was left out, for people ("" while it is kept) ...
    dropped: str = ""
    #: ... and for code.
    drop: DropReason | None = None

    def discard(self, reason: DropReason, text: str) -> None:
        """Leave this candidate out, saying why."""
        self.drop, self.dropped = reason, text

    def keep(self) -> None:
        """Take it back in."""
        self.drop, self.dropped = None, ""

    def record(self, step: str, score: float, note: str = "") -> None:
        """Record a step's score (and an optional note) on this candidate."""
        self.scores[step] = float(score)
        if note:
            self.notes.append(f"{step}: {note}")

    @property
    def score(self) -> float:
        """The most recent step's score (0 before any step)."""
        if not self.scores:
            return 0.0
        return list(self.scores.values())[-1]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (without the vector)."""
        return {
            "point_id": self.point_id,
            "group": str(self.group),
            "url": self.chunk.url,
            "domain": self.chunk.domain,
            "title": self.chunk.title,
            "position": self.chunk.position,
            "pages": list(self.chunk.pages),
            "local": self.chunk.is_local,
            "text": self.chunk.text,
            "scores": dict(self.scores),
            "notes": list(self.notes),
            "dropped": self.dropped,
            "drop_reason": str(self.drop) if self.drop else "",
        }


@dataclass
class ContextPack:
    """What retrieval hands to the gate and the writer."""

    topic: Topic
    query: str
    research: list[Candidate] = field(default_factory=list)
    evergreen: list[Candidate] = field(default_factory=list)
    voice: list[Candidate] = field(default_factory=list)
    pool: list[Candidate] = field(default_factory=list)
    reranker: str = ""
    reranker_offline: bool = False
    timings: dict[str, float] = field(default_factory=dict)
    #: Candidates dropped before the rerank (duplicates, below the pre-rank cut).
    discarded: list[Candidate] = field(default_factory=list)
    #: One-line remarks for people (reranker offline, no research yet...).
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "topic": self.topic.to_dict(),
            "query": self.query,
            "reranker": self.reranker,
            "reranker_offline": self.reranker_offline,
            "research": [c.to_dict() for c in self.research],
            "evergreen": [c.to_dict() for c in self.evergreen],
            "voice": [c.to_dict() for c in self.voice],
            "pool": [c.to_dict() for c in self.pool],
            "discarded": [c.to_dict() for c in self.discarded],
            "notes": list(self.notes),
            "timings": dict(self.timings),
        }


@dataclass
class GateCheck:
    """One rule of the suitability gate and how the topic fared."""

    name: str
    passed: bool
    value: float
    threshold: float
    hard: bool = False
    skipped: bool = False
    reason: str = ""
    #: The reranker backend whose scores the check used (the quality check only).
    backend: str = ""


@dataclass
class GateVerdict:
    """The suitability gate's answer: OK or THIN, with every figure."""

    ok: bool
    can_continue: bool
    checks: list[GateCheck] = field(default_factory=list)
    chunks: int = 0
    mean_score: float | None = None
    domains: int = 0

    @property
    def status(self) -> str:
        """'OK' or 'THIN'."""
        return "OK" if self.ok else "THIN"

    @property
    def reasons(self) -> list[str]:
        """A reason line per failed or skipped check."""
        return [c.reason for c in self.checks if (not c.passed or c.skipped) and c.reason]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "status": self.status,
            "can_continue": self.can_continue,
            "chunks": self.chunks,
            "mean_score": self.mean_score,
            "domains": self.domains,
            "checks": [asdict(c) for c in self.checks],
            "reasons": self.reasons,
        }


class FactStatus(StrEnum):
    """Where a distilled fact is in human review."""

    PENDING = "pending"
    KEPT = "kept"
    EDITED = "edited"
    DELETED = "deleted"
    PROMOTED = "promoted"


class FactKind(StrEnum):
    """A fact about one topic, or background knowledge of its whole category."""

    TOPIC = "topic"
    EVERGREEN = "evergreen"


@dataclass
class Article:
    """A written article and its grounding figures."""

    path: str
    slug: str
    title: str
    sources: list[dict[str, str]] = field(default_factory=list)
    citations: int = 0
    resolved: int = 0
    added: int = 0
    removed: int = 0
    unsupported: int = 0
    sentences: int = 0
    supported_share: float = 0.0
    #: Written, or a draft when the reply failed the quality gate (see `reasons`).
    status: ArticleStatus = ArticleStatus.WRITTEN
    reasons: list[str] = field(default_factory=list)
    #: How the writer made its sentences: quoted, verbatim, restated.
    made: dict[str, int] = field(default_factory=dict)
