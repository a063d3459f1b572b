"""Is a written sentence true to its planned source sentences? Hard rules, then the support check.

The support check sits behind `SupportCheck` (one method, `scores(pairs)` in [0,1]);
`support_for(ws)` is the workspace's `verify.support` checker behind it. The hard rules
need no model: every number (with its magnitude word: million, percent...), date and name in the
sentence must appear in the sources; a negation must not appear or vanish, nor a word turn into its
opposite ("rose" where the source says "fell"; nonseq.text.polarity); a sentence in the
model's words that restates what a source hedges ("reportedly", "could", "likely", "if"...) must
keep a hedge, and no sentence may bring in two or more content words its sources lack; the
sentence must be a statement of its own (no echo of the instruction, no first person the sources
do not use, no repeat of a sentence already in the article, not a stub keeping under `min_share`
of its source).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

from nonseq.text.leaning import leaning_reason
from nonseq.text.polarity import opposites
from nonseq.text.prose import MIN_WORDS, unquoted
from nonseq.text.voice import attributed, opinion
from nonseq.text.words import numbers as figures
from nonseq.text.words import tokens as words
from nonseq.verify.roles import role_change

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

MAGNITUDES = frozenset(("hundred", "thousand", "million", "billion", "trillion", "percent", "dozen"))
#: Capitalised words that are no names (sentence starters); every other capitalised word must
#: appear in the sources.
STARTERS = frozenset((
    "a", "an", "the", "this", "that", "these", "those", "it", "its", "he", "she", "they", "his",
    "her", "their", "in", "on", "at", "for", "of", "by", "with", "from", "to", "as", "after",
    "before", "during", "when", "while", "since", "until", "and", "but", "or", "however", "also",
    "then", "there", "here", "one", "some", "many", "most", "all", "both", "each", "according",
    "about", "if", "although", "though", "because", "so", "yet", "still", "meanwhile", "now",
    "today", "earlier", "later", "instead", "overall", "such", "despite", "under", "over", "more",
    "less", "other", "another",
))
_NAME = re.compile(r"\b[A-Z][\w'’.&-]*\w|\b[A-Z]\b")
_NEGATION = re.compile(r"\b(?:not|never|no|none|nobody|nothing|neither|nor|without|cannot)\b|n['’]t\b",
                       re.I)
_ECHO = re.compile(r"\b(?:rewrite|rewritten|paraphrase|sentence|sentences|source|sources|"
                   r"shorten|shorter|simpler words|reworded|simplified|summary of|here is|here's|"
                   r"sure[,!])\b", re.I)
#: Words that hedge, attribute or condition what follows them. A restatement that says what follows
#: without any of them claims more than its source ("WeWork is reportedly being investigated").
_HEDGE = re.compile(
    r"\b(?:(?i:might|could|would|possibly|perhaps|maybe|probably|(?:un)?likely|apparently|reportedly|"
    r"alleged(?:ly)?|accused|seemingly|supposedly|presumably|potential(?:ly)?|suggest(?:s|ed|ing)?|"
    r"(?:appear|seem)(?:s|ed)?\s+to|(?:expected|believed|thought|said|supposed)\s+to|sort\s+of|kind\s+of|"
    r"estimated|if|unless)|may)\b")  # "may" in lower case only: "May" is the month
HEDGE_SCOPE = 6  # content words after a hedge that it governs
#: Words that attribute what a sentence says to someone. A restatement of an attributed sentence
#: without any of them states a claim as a fact ("the allegation has been debunked, Grisham said").
_ATTRIBUTION = re.compile(
    r"\b(?:say|says|said|saying|told|tells?|telling|according\s+to|wr(?:o|i)tes?|wrote|writing|add(?:s|ed)|"
    r"report(?:s|ed|ing)?(?!\s+to\b)|claim(?:s|ed|ing)?|argu(?:e|es|ed|ing)|stated|announced|noted|"
    r"explained|testified|tweet(?:s|ed)?|insist(?:s|ed)|warn(?:s|ed)|believ(?:e|es|ed|ing)|thinks?|"
    r"thought|estimat(?:e|es|ed)|alleged|suggest(?:s|ed)?)\b", re.I)
NEW_WORDS = 2  # a restatement with this many content words (stems) its sources lack says more than they do
_FIRST = re.compile(r"\b(?:I|[Mm]e|[Mm]y|[Ww]e|us|[Oo]ur|[Yy]ou|[Yy]our)\b")


class SupportCheck(Protocol):
    """A support check: how well do the sources support each claim (scores in [0,1])."""

    def scores(self, pairs: Sequence[tuple[str, Sequence[str]]]) -> list[float]:
        """One score per (claim, source sentences) pair."""
        ...


def support_for(ws: Workspace) -> SupportCheck:
    """The workspace's support check: P(supported) of a sentence against its one or two planned sentences."""
    from nonseq.verify.support import checker_for

    return checker_for(ws)


def magnitudes(text: str) -> set[str]:
    """Magnitude words of a text ('%' counts as percent)."""
    found = {w for w in words(text) if w in MAGNITUDES or w.rstrip("s") in MAGNITUDES}
    return {w.rstrip("s") if w.rstrip("s") in MAGNITUDES else w for w in found} | (
        {"percent"} if "%" in text else set())


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")


def _norm_name(word: str) -> str:
    """A name for comparison: lower case, possessive and dots dropped, months as 'jan'..'dec'."""
    name = re.sub(r"['’]s$", "", word).replace(".", "").lower()
    month = next((m for m in MONTHS if len(name) >= 3 and m.startswith(name)), "")
    return month[:3] if month else name


def names(text: str) -> list[str]:
    """Capitalised words of a text that are no sentence starters (names, months, acronyms)."""
    out = []
    for m in _NAME.finditer(text):
        word = m.group().rstrip(".'’")
        if word.lower() not in STARTERS and len(_norm_name(word)) > 0:
            out.append(word)
    return list(dict.fromkeys(out))


def absent(sentence: str, sources: Sequence[str]) -> list[str]:
    """Numbers, magnitude words and names of the sentence that no source holds."""
    text = " ".join(sources)
    have_words = {_norm_name(w) for w in re.findall(r"[\w'’.&-]+", text)} | set(words(text))
    missing = sorted(figures(sentence, spelled=True) - figures(text, spelled=True))
    missing += sorted(magnitudes(sentence) - magnitudes(text))
    missing += [n for n in names(sentence) if _norm_name(n) not in have_words
                and not all(_norm_name(p) in have_words for p in re.split(r"[-–]", n) if p)]
    return missing


@dataclass
class Verdict:
    """Whether a sentence may stand, and every reason it may not."""

    ok: bool
    support: float = 0.0
    reasons: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"ok": self.ok, "support": round(self.support, 3), "reasons": self.reasons,
                "missing": self.missing}


@lru_cache(maxsize=4096)
def stems(text: str) -> tuple[str, ...]:
    """A text's content words as BM25 stems (English, as the rules' word lists), cached: every rule
    and every retry of a unit reads the same source sentences."""
    from nonseq.index.sparse import default_tokenizer

    return tuple(default_tokenizer()(text))


def lost_hedges(sentence: str, sources: Sequence[str]) -> list[str]:
    """The source hedges whose scope the sentence restates without hedging it (none if it hedges at all).

    A hedge's scope is the next `HEDGE_SCOPE` content words of its sentence; the sentence restates it
    when it shares two of them (or the only one).
    """
    if _HEDGE.search(sentence):
        return []
    said = set(stems(sentence))
    lost = []
    for source in sources:
        for m in _HEDGE.finditer(source):
            scope = stems(source[m.end():])[:HEDGE_SCOPE]
            if scope and len(said.intersection(scope)) >= min(2, len(scope)):
                lost.append(m.group().lower())
    return list(dict.fromkeys(lost))


def lost_attribution(sentence: str, sources: Sequence[str]) -> list[str]:
    """The attribution words of the source sentences the sentence restates (shares two content words
    with) when it holds none itself: what someone said, stated as a fact."""
    if _ATTRIBUTION.search(sentence):
        return []
    said = set(stems(sentence))
    lost = [m.group().lower() for source in sources if len(said.intersection(stems(source))) >= 2
            for m in _ATTRIBUTION.finditer(source)]
    return list(dict.fromkeys(lost))


def new_words(sentence: str, sources: Sequence[str]) -> list[str]:
    """The sentence's content words (BM25 stems) that no source sentence holds, in order."""
    have = set().union(*map(stems, sources))
    return [t for t in dict.fromkeys(stems(sentence)) if t not in have]


#: Two sentences say the same when they share this many content words at this content-word cosine.
REPEAT_WORDS, REPEAT_COSINE = 4, 0.75
#: A sentence an earlier one of the article supports at the check's own decision point says nothing new.
REPEAT_SUPPORT = 0.5


def near_repeat(a: Sequence[str], b: Sequence[str]) -> bool:
    """True when two sentences' content words (stems) say the same thing: 4 or more shared at a
    cosine of 0.75 or more (issue 47's floor)."""
    from collections import Counter
    from math import sqrt

    ca, cb = Counter(a), Counter(b)
    shared = set(ca) & set(cb)
    if len(shared) < REPEAT_WORDS:
        return False
    dot = sum(ca[w] * cb[w] for w in shared)
    norm = sqrt(sum(v * v for v in ca.values())) * sqrt(sum(v * v for v in cb.values()))
    return bool(norm) and dot / norm >= REPEAT_COSINE


#: Where one sentence ends and the next begins, inside a quotation too ("... treatment. The public ...").
_PIECE_END = re.compile(r"(?<=[.!?])[\"”’']?\s+(?=[\"“‘']?[A-Z])")


def pieces(text: str) -> list[str]:
    """The text and, when it holds several, each of its sentences, a quotation's included: a unit that
    quotes two sentences repeats the article when one of them does."""
    parts = [p for p in _PIECE_END.split(text) if p.strip()]
    return [text, *parts] if len(parts) > 1 else [text]


def _key(text: str) -> tuple[str, ...]:
    """A sentence's words (to spot repeats)."""
    return tuple(words(text))


class Verifier:
    """Checks sentences against their planned source sentences."""

    def __init__(self, support: SupportCheck, min_support: float = 0.7, min_share: float = 0.3,
                 allow_imperative: bool = False) -> None:
        self.support = support
        self.min_support = min_support
        self.min_share = min_share  # least share of the shortest source sentence's words kept
        self.allow_imperative = allow_imperative  # how-to articles give orders ("Keep the lid closed.")
        self.seen: set[tuple[str, ...]] = set()
        self.said: list[tuple[str, ...]] = []  # content stems of every accepted sentence
        self.texts: list[str] = []  # every accepted sentence
        self.aliases: dict[str, str] = {}  # abbreviation -> the long form its pages give ("NYAG" -> "New York ...")

    def content(self, text: str) -> tuple[str, ...]:
        """A text's content stems with each abbreviation read as its long form (`aliases`), so that "the
        NYAG declined to comment" and "the New York State Attorney General had no comment" share words."""
        for short, long in self.aliases.items():
            text = re.sub(rf"\b{re.escape(short)}\b", long, text)
        return stems(text)

    def rules(self, sentence: str, sources: Sequence[str], own: bool = True) -> tuple[list[str], list[str]]:
        """The hard-rule failures of one sentence, and what it holds that the sources lack.

        `own`: the sentence is in the model's words (not a quotation or copy), so it must keep hedges.
        """
        reasons = []
        missing = absent(sentence, sources)
        if missing:
            reasons.append("absent from the sources: " + ", ".join(missing))
        src = " ".join(sources)
        if bool(_NEGATION.search(sentence)) != bool(_NEGATION.search(src)):
            reasons.append("negation added or lost")
        turned = opposites(sentence, src)
        if turned:
            reasons.append("says the opposite: " + ", ".join(f"{w} (source: {o})" for w, o in turned))
        hedges = lost_hedges(sentence, sources) if own else []
        if hedges:
            reasons.append("hedge lost: " + ", ".join(hedges))
        attributions = lost_attribution(sentence, sources) if own else []
        if attributions:
            reasons.append("attribution lost: " + ", ".join(attributions))
        added = new_words(sentence, sources)  # a quotation or copy has none
        if len(added) >= NEW_WORDS:
            reasons.append("brings in words: " + ", ".join(added))
        if len(words(sentence)) < MIN_WORDS:
            reasons.append("too short")
        if _ECHO.search(sentence) and not _ECHO.search(src):
            reasons.append("echoes the instruction")
        if _FIRST.search(unquoted(sentence)) and not _FIRST.search(unquoted(src)):
            reasons.append("first or second person outside a quotation")
        if len(words(sentence)) < self.min_share * min(len(words(s)) for s in sources):
            reasons.append(f"says less than {self.min_share:.0%} of its source")
        if _key(sentence) in self.seen:
            reasons.append("repeats an earlier sentence")
        elif any(near_repeat(self.content(piece), earlier) for piece in pieces(sentence) for earlier in self.said):
            reasons.append("says what an earlier sentence says")
        reasons += self.structure(sentence, sources, own)
        return reasons, missing

    def structure(self, sentence: str, sources: Sequence[str], own: bool) -> list[str]:
        """The parse's rules: a fragment never passes; a restatement keeps who does what, does not lean
        on a sentence before it (`text.leaning`) unless its first source sentence does, and names whose
        an opinion is."""
        from nonseq.text.parse import fragment

        reasons = []
        missing = fragment(sentence, allow_imperative=self.allow_imperative)
        if missing:
            reasons.append(f"fragment: {missing}")
        if not own:
            return reasons
        changed = role_change(sentence, sources)
        if changed:
            reasons.append(changed)
        leans = leaning_reason(sentence)
        if leans and not leaning_reason(sources[0]):
            reasons.append(f"leans on a sentence before it ({leans})")
        # a source's guess ("perhaps ...") needs its holder only where the restatement still guesses
        held = [o for s in sources if (o := opinion(s)) and (not o.startswith("speculation") or opinion(sentence))]
        if held and not attributed(sentence):
            reasons.append(f"opinion without its holder ({held[0]})")
        return reasons

    def check(self, sentence: str, sources: Sequence[str], quoted: bool = False) -> Verdict:
        """The verdict on one sentence (the support check runs only when the hard rules pass).

        A quotation of a source sentence, or a sentence that is word for word a source sentence (or the
        pair), is scored but needs no support score: it is the source's words.
        """
        copied = _key(sentence) in {_key(" ".join(sources)), *map(_key, sources)}
        reasons, missing = self.rules(sentence, sources, own=not (quoted or copied))
        if reasons:
            return Verdict(False, 0.0, reasons, missing)
        score = self.support.scores([(sentence, list(sources))])[0]
        if score < self.min_support and not (quoted or copied):
            return Verdict(False, score, [f"support {score:.2f} < {self.min_support:.2f}"], missing)
        implied = self.implied(sentence)
        if implied:
            return Verdict(False, score, [implied], missing)
        return Verdict(True, score)

    def implied(self, sentence: str) -> str:
        """Why the sentence repeats by meaning: an earlier sentence of the article that shares at least
        `REPEAT_WORDS` of its content words supports it at the check's decision point (`REPEAT_SUPPORT`),
        so it says nothing new ("" when none does)."""
        own = set(self.content(sentence))
        earlier = [t for t, st in zip(self.texts, self.said, strict=True) if len(own.intersection(st)) >= REPEAT_WORDS]
        if not earlier:
            return ""
        scores = self.support.scores([(sentence, [text]) for text in earlier])
        best = max(range(len(scores)), key=scores.__getitem__)
        if scores[best] < REPEAT_SUPPORT:
            return ""
        return f"says what an earlier sentence says (it supports this at {scores[best]:.2f}: {earlier[best][:60]!r})"

    def accept(self, sentence: str) -> None:
        """Record a sentence as said (a later repeat of it, or of what it says, fails)."""
        self.seen.add(_key(sentence))
        self.said.append(self.content(sentence))
        self.texts.append(sentence)
