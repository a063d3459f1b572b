"""The grounding check after generation: resolve [n] markers, then match each sentence to its facts.

1. Every [n] (also [1, 3] and [1-3]) must name a listed source; others are removed and counted.
2. Each prose sentence is scored against every fact chunk by the one support check
   (nonseq.support: embedder cosine, BM25-IDF coverage, FActScore's names/numbers rule, fitted
   on WiCE). A chunk never supports a sentence whose figures (digits) it does not contain.
3. Strong support without a marker → the marker is added; no support at all → counted unsupported.

Headings, list markers, tables, HTML lines and code (fenced or inline) are not sentences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from nonseq.support import SupportChecker

Tokenizer = Callable[[str], list[str]]
Embed = Callable[[list[str]], np.ndarray]

_INNER = r"\d{1,3}(?:\s*[,;\u2013-]\s*\d{1,3})*"
MARKER_RE = re.compile(rf"\[({_INNER})\](?!\()")
RUN_RE = re.compile(rf"\[{_INNER}\](?:[ \t]*\[{_INNER}\])*(?!\()")
_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_SKIP_LINE_RE = re.compile(r"^\s{0,3}(#{1,6}(\s|$)|([-*_]\s*){3,}$|\||<[a-zA-Z!/])")
_LIST_RE = re.compile(r"^(\s*)([-*+]|\d{1,3}[.)])\s+")
_QUOTE_RE = re.compile(r"^\s{0,3}>\s?")
_END_RE = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*(?:[ \t]*\[\d{1,3}(?:\s*[,;\u2013-]\s*\d{1,3})*\])*")
_INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
_WORD_RE = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
ABBREVIATIONS = frozenset([
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "inc", "ltd", "co", "corp", "st",
    "jr", "sr", "no", "fig", "approx", "cf", "al", "est", "dept", "gen", "gov", "jan", "feb",
    "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "e.u",
])
SPELLED = {w: str(i) for i, w in enumerate([
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
])}
BOUNDARY = "\x00"  # prose_mask: not prose (and a hard sentence break)
CODE = "\x01"  # prose_mask: inline code (inside a sentence, but never a citation)


class FactLike(Protocol):
    """What the check needs from a fact chunk (prompt.FactChunk fits)."""

    n: int
    text: str


@dataclass
class Thresholds:
    """When a fact chunk supports a sentence, and when the support is strong enough to add a marker.

    Scores come from nonseq.support (fitted on WiCE dev; with an embedder the dense model, else the
    lexical one). On the two hand-labelled sets of tests/test_grounding.py (30 supported and 34
    unsupported sentences over 10 chunks, plus a metonym the chunk does not name) the weakest
    supported sentence scored 0.476 and the strongest unsupported one 0.391, figures guarded;
    `add` sits in that gap on the cautious side, since an added marker must never be invented.
    Without an embedder the lexical model has no such gap (0.405 vs 0.410), so only sentences
    from 0.65 (near-verbatim ones) get a marker. These cuts are stricter than the WiCE cut (support_model.json), which
    is tuned for F1 on claims that are mostly partly supported. A chunk never supports a sentence
    whose figures (digits) it does not contain, nor one naming what it does not name.
    """

    add: float = 0.45              # support score at which a missing marker is added
    support: float = 0.42          # support score from which a sentence counts as supported
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
    support: float = 0.0  # the support score of the best chunk (nonseq.support)
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


# -- text structure ---------------------------------------------------------------------------
def prose_mask(text: str) -> str:
    """text with every non-prose character (code, headings, list markers...) set to BOUNDARY."""
    out: list[str] = []
    fence = ""
    prev_quote = False
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        end = line[len(body):]
        m = _FENCE_RE.match(body)
        if fence or m:
            if m and not fence:
                fence = m.group(1)[0] * len(m.group(1))
            elif m and body.strip().startswith(fence) and not body.strip().strip(fence[0]):
                fence = ""
            out.append(BOUNDARY * len(line))
            continue
        if not body.strip() or _SKIP_LINE_RE.match(body):
            out.append(BOUNDARY * len(line))
            prev_quote = False
            continue
        prefix = 0
        q = _QUOTE_RE.match(body)
        if q:
            prefix = q.end()
        li = _LIST_RE.match(body, prefix)
        hard = li is not None or (q is not None and not prev_quote)
        if li:
            prefix = li.end()
        prev_quote = q is not None
        masked = (BOUNDARY if hard else " ") * prefix + body[prefix:]
        masked = _INLINE_CODE_RE.sub(lambda c: CODE * len(c.group()), masked)
        out.append(masked + end)
    return "".join(out)


def in_prose(mask: str, start: int, end: int) -> bool:
    """True when text[start:end] is plain prose (not code, a heading, a table...)."""
    span = mask[start:end]
    return BOUNDARY not in span and CODE not in span


def _segments(mask: str) -> list[tuple[int, int]]:
    """Runs of prose between boundaries, as (start, end) offsets."""
    return [(m.start(), m.end()) for m in re.finditer(f"[^{BOUNDARY}]+", mask)
            if m.group().strip()]


def _is_boundary(seg: str, m: re.Match[str]) -> bool:
    """True when a sentence-ending match really ends a sentence (not an abbreviation)."""
    rest = seg[m.end():]
    if rest.strip() and not rest[:1].isspace():
        return False
    nxt = rest.lstrip()[:1]
    if nxt and not (nxt.isupper() or nxt.isdigit() or nxt in "\"'\u201c\u2018([*_"):
        return False
    before = re.search(r"([\w.]+)$", seg[:m.start()])
    if m.group().startswith(".") and before:
        word = before.group(1).lower().rstrip(".")
        if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            return False
    return True


def split_sentences(text: str, mask: str | None = None) -> list[tuple[int, int]]:
    """(start, end) offsets of the prose sentences of a Markdown text."""
    mask = prose_mask(text) if mask is None else mask
    spans = []
    for s0, s1 in _segments(mask):
        seg = mask[s0:s1]
        start = 0
        for m in _END_RE.finditer(seg):
            if _is_boundary(seg, m):
                spans.append((s0 + start, s0 + m.end()))
                start = m.end()
        spans.append((s0 + start, s1))
    out = []
    for a, b in spans:
        chunk = text[a:b]
        lead = len(chunk) - len(chunk.lstrip())
        trail = len(chunk) - len(chunk.rstrip())
        if b - trail > a + lead:
            out.append((a + lead, b - trail))
    return out


def words(text: str) -> list[str]:
    """The words of a text (markers and inline code removed)."""
    return _WORD_RE.findall(MARKER_RE.sub(" ", _INLINE_CODE_RE.sub(" ", text)))


def numbers(text: str, spelled: bool = False) -> set[str]:
    """The figures in a text, normalised ('1,200' → '1200'); spelled ones too when asked."""
    found = {n.replace(",", "") for n in _NUMBER_RE.findall(text)}
    found = {n.rstrip("0").rstrip(".") if "." in n else n for n in found}
    if spelled:
        found |= {SPELLED[w] for w in re.findall(r"[a-z]+", text.lower()) if w in SPELLED}
    return found


# -- markers -----------------------------------------------------------------------------------
def expand_marker(inner: str) -> list[int]:
    """The numbers a marker names: '1, 3' → [1, 3]; '2-4' → [2, 3, 4] (ranges capped at 20)."""
    out: list[int] = []
    for part in re.split(r"\s*[,;]\s*", inner.strip()):
        bounds = [int(x) for x in re.split(r"\s*[\u2013-]\s*", part) if x]
        if len(bounds) == 2 and 0 <= bounds[1] - bounds[0] < 20:
            out.extend(range(bounds[0], bounds[1] + 1))
        else:
            out.extend(bounds)
    return list(dict.fromkeys(out))


def resolve_markers(text: str, valid: set[int]) -> tuple[str, int, int]:
    """Keep [n] naming a listed source, drop the rest, merge runs like [1][1, 3] into [1][3].

    Returns (text, resolved, removed): numbers kept and numbers dropped (once per run).
    """
    mask = prose_mask(text)
    pieces: list[str] = []
    last = resolved = removed = 0
    for run in RUN_RE.finditer(text):
        if not in_prose(mask, run.start(), run.end()):
            continue  # inside code, a heading or a table: not a citation
        nums = list(dict.fromkeys(n for m in MARKER_RE.finditer(run.group())
                                  for n in expand_marker(m.group(1))))
        good = [n for n in nums if n in valid]
        resolved += len(good)
        removed += len(nums) - len(good)
        start = run.start()
        if not good:
            while start > last and text[start - 1] in " \t":
                start -= 1
        pieces += [text[last:start], "".join(f"[{n}]" for n in good)]
        last = run.end()
    pieces.append(text[last:])
    return "".join(pieces), resolved, removed


def drop_orphan_markers(text: str, min_words: int = 3) -> tuple[str, int]:
    """Remove markers on lines with fewer than min_words words: a citation needs a claim.

    Returns the text and how many marker numbers were removed.
    """
    out: list[str] = []
    dropped = 0
    for line in text.split("\n"):
        if MARKER_RE.search(line) and len(words(line)) < min_words:
            dropped += sum(len(expand_marker(m.group(1))) for m in MARKER_RE.finditer(line))
            line = re.sub(rf"[ \t]*(?:{RUN_RE.pattern})", "", line).rstrip()
            if not re.search(r"\w", _LIST_RE.sub("", line)):
                line = ""
        out.append(line)
    return "\n".join(out), dropped


def count_citations(text: str) -> int:
    """Citation markers in the prose of a text (each number counts once per marker)."""
    mask = prose_mask(text)
    return sum(len(expand_marker(m.group(1))) for m in MARKER_RE.finditer(text)
               if in_prose(mask, m.start(), m.end()))


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
        results = self.checker.check_many([(s, t) for s in sentences for t in self.texts])
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


def plain(sentence: str) -> str:
    """A sentence as words for matching: markers, inline code, links and emphasis removed."""
    text = MARKER_RE.sub(" ", _INLINE_CODE_RE.sub(" ", sentence))
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(re.sub(r"[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}", "", text).split())


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
    from nonseq.support import SupportChecker

    th = thresholds or Thresholds()
    fixed, resolved, removed = resolve_markers(text, {f.n for f in facts})
    fixed, orphans = drop_orphan_markers(fixed, th.min_words)
    resolved, removed = resolved - orphans, removed + orphans
    mask = prose_mask(fixed)
    spans = [(a, b) for a, b in split_sentences(fixed, mask)
             if len(words(fixed[a:b])) >= th.min_words]
    sentences = [plain(fixed[a:b]) for a, b in spans]
    checker = checker or SupportChecker(embed=embed, tokenize=tokenize, dense=embed is not None)
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
