"""The grounding check after generation: resolve [n] markers, then match each sentence to its facts.

1. Every [n] (also [1, 3] and [1-3]) must name a listed source; others are removed and counted.
2. Each prose sentence is scored against every fact chunk by the one support check
   (nonseq.verify.support: embedder cosine, BM25-IDF coverage, FActScore's names/numbers rule, fitted
   on SciFact train + WiCE dev). A chunk never supports a sentence whose figures (digits) it does not contain.
3. Strong support without a marker → the marker is added; no support at all → counted unsupported.

Headings, list markers, tables, HTML lines and code (fenced or inline) are not sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from nonseq.text.citations import count_citations, drop_orphan_markers, resolve_markers
from nonseq.text.markers import MARKER_RE, expand_marker
from nonseq.text.sentences import prose_mask, split_sentences
from nonseq.text.voice import unframed
from nonseq.text.words import plain, words
from nonseq.verify.support import SupportChecker

Tokenizer = Callable[[str], list[str]]
Embed = Callable[[list[str]], np.ndarray]

class FactLike(Protocol):
    """What the check needs from a fact chunk (writing.sources.FactChunk fits)."""

    n: int
    text: str


@dataclass
class Thresholds:
    """When a fact chunk supports a sentence, and when the support is strong enough to add a marker.

    Scores come from nonseq.verify.support's longer-source model for every chunk (setting "claim":
    today's features and the token recall, refit on SciFact train + WiCE dev; with an embedder, else
    the lexical model). On the two hand-labelled sets of tests/test_grounding.py (30 supported and 34
    unsupported sentences over 10 chunks, plus a metonym the chunk does not name) the weakest
    supported sentence scored 0.446 and the strongest unsupported one 0.349 (0.414 / 0.359 before the
    token recall, 0.476 / 0.391 before issue 22), figures guarded; `add` sits in that gap on the
    cautious side, since an added marker must
    never be invented: these cuts are fitted on those sets. Without an embedder the lexical model
    has no such gap (0.405 vs 0.410), so only sentences from 0.65 (near-verbatim ones) get a marker.
    These cuts are stricter than the check's own cut (support_head.json), which is tuned for F1 on
    claims that are mostly partly supported. A chunk never supports a sentence whose figures
    (digits) it does not contain, nor one naming what it does not name.
    """

    add: float = 0.40              # support score at which a missing marker is added
    support: float = 0.38          # support score from which a sentence counts as supported
    add_lexical: float = 0.65      # the same two without an embedder (the lexical model)
    support_lexical: float = 0.5
    min_words: int = 3             # shorter fragments are not counted as sentences


@dataclass
class SentenceCheck:
    """How one sentence fared."""

    text: str
    markers: list[int]
    best: int | None
    lexical: float
    cosine: float | None
    status: str  # "cited", "added", "supported", "background", "unsupported"
    support: float = 0.0  # the support score of the best chunk (nonseq.verify.support)
    evidence: str = ""    # the chunk's sentence that matches best
    missing: list[str] = field(default_factory=list)  # figures/names the best chunk lacks

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"text": self.text, "markers": self.markers, "best": self.best,
                "lexical": round(self.lexical, 3),
                "cosine": None if self.cosine is None else round(self.cosine, 3),
                "support": round(self.support, 3), "evidence": self.evidence,
                "missing": self.missing, "status": self.status}


@dataclass
class GroundingResult:
    """The fixed text and the figures of the check."""

    text: str
    citations: int = 0
    resolved: int = 0
    removed: int = 0
    added: int = 0
    unsupported: int = 0
    sentences: int = 0
    details: list[SentenceCheck] = field(default_factory=list)

    def figures(self) -> dict[str, int]:
        """The counts, for front matter and reports."""
        return {"citations": self.citations, "resolved": self.resolved, "added": self.added,
                "removed": self.removed, "unsupported": self.unsupported,
                "sentences": self.sentences}

    @property
    def supported_share(self) -> float:
        """The share of counted sentences not found unsupported (0 when there are none)."""
        return (self.sentences - self.unsupported) / self.sentences if self.sentences else 0.0

    def unsupported_sentences(self) -> list[str]:
        """The sentences found unsupported, as written."""
        return [d.text for d in self.details if d.status == "unsupported"]


# -- support -----------------------------------------------------------------------------------
@dataclass
class _Score:
    """The best chunk for one sentence and its scores."""

    index: int | None = None
    support: float = 0.0
    lexical: float = 0.0
    cosine: float | None = None
    evidence: str = ""
    missing: list[str] = field(default_factory=list)


class Matcher:
    """Scores every (sentence, fact chunk) pair with the support check; keeps each sentence's best."""

    def __init__(self, texts: Sequence[str], checker: SupportChecker) -> None:
        self.texts = list(texts)
        self.checker = checker

    def best(self, sentences: Sequence[str]) -> list[_Score]:
        """Per sentence: the chunk that best supports it among those holding all its figures."""
        if not self.texts:
            return [_Score() for _ in sentences]
        results = self.checker.check_many([(s, t) for s in sentences for t in self.texts], setting="claim")
        out = []
        m = len(self.texts)
        for k in range(len(sentences)):
            row = results[k * m:(k + 1) * m]
            ok = [(r.score, i) for i, r in enumerate(row) if "missing_number" not in r.flags]
            if not ok:
                r = max(row, key=lambda r: r.score)
                out.append(_Score(missing=r.missing))
                continue
            score, i = max(ok)
            r = row[i]
            cos = r.features.get("cos_best") if self.checker.dense else None
            out.append(_Score(i, score, r.features.get("cov_best", 0.0), cos,
                              r.evidence[0].text if r.evidence else "", r.missing))
        return out


def _insert_at(sentence: str) -> int:
    """Where a marker goes: before the final full stop, or at the end after quotes/brackets."""
    m = re.search(r"[.!?]+$", sentence)
    return m.start() if m else len(sentence)


def is_strong(s: _Score, th: Thresholds, dense: bool = True) -> bool:
    """Support strong enough to add a missing marker."""
    return s.index is not None and s.support >= (th.add if dense else th.add_lexical)


def is_supported(s: _Score, th: Thresholds, dense: bool = True) -> bool:
    """Any support at all: the sentence is not counted as unsupported."""
    return s.index is not None and s.support >= (th.support if dense else th.support_lexical)


def check_grounding(
    text: str,
    facts: Sequence[FactLike],
    *,
    tokenize: Tokenizer,
    embed: Embed | None = None,
    background: Sequence[str] = (),
    thresholds: Thresholds | None = None,
    checker: SupportChecker | None = None,
) -> GroundingResult:
    """Resolve markers, match sentences to facts, add strong missing markers, count the rest."""
    th = thresholds or Thresholds()
    fixed, resolved, removed = resolve_markers(text, {f.n for f in facts})
    fixed, orphans = drop_orphan_markers(fixed, th.min_words)
    resolved, removed = resolved - orphans, removed + orphans
    mask = prose_mask(fixed)
    spans = [(a, b) for a, b in split_sentences(fixed, mask)
             if len(words(fixed[a:b])) >= th.min_words]
    sentences = [unframed(plain(fixed[a:b])) for a, b in spans]  # a frame's page title is the article's
    checker = checker or SupportChecker(tokenize=tokenize, dense=embed is not None)
    dense = checker.dense
    scores = Matcher([f.text for f in facts], checker).best(sentences)
    back_texts = [t for t in background if t.strip()]
    back = Matcher(back_texts, checker).best(sentences) if back_texts else None
    result = GroundingResult(text=fixed, resolved=resolved, removed=removed,
                             sentences=len(spans))
    inserts: list[tuple[int, str]] = []
    for k, (a, b) in enumerate(spans):
        markers = [n for m in MARKER_RE.finditer(fixed[a:b]) for n in expand_marker(m.group(1))]
        s = scores[k]
        best = facts[s.index].n if s.index is not None else None
        if markers:
            status = "cited" if is_supported(s, th, dense) else "unsupported"
        elif is_strong(s, th, dense):
            status = "added"
            inserts.append((a + _insert_at(fixed[a:b]), f" [{best}]"))
        elif is_supported(s, th, dense):
            status = "supported"
        elif back is not None and is_supported(back[k], th, dense):
            status = "background"
        else:
            status = "unsupported"
        result.unsupported += status == "unsupported"
        result.details.append(SentenceCheck(fixed[a:b], markers, best, s.lexical, s.cosine,
                                            status, s.support, s.evidence, s.missing))
    for pos, marker in sorted(inserts, reverse=True):
        fixed = fixed[:pos] + marker + fixed[pos:]
    result.text = fixed
    result.added = len(inserts)
    result.citations = count_citations(fixed)
    return result
