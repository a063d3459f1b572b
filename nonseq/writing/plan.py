"""The write plan: per schema section, the source sentences the article will say, chosen before any
generation.

Source sentences come from the context pack's research chunks (and, with `use_pool`, the pool
chunks that were left out only by the per-URL cap or the final top N), split by the one splitter
(`text.sentences.split`). A sentence never enters the plan when it is a heading, label, byline,
caption, text about the page or an instruction (`text.prose.reject_reason`), repeats or nearly repeats an
earlier one (cosine >= `near_duplicate`), or lies below the topic floor (relevance < `topic_floor`,
relevance = the mean cosine of the sentence and of the sentence with its neighbours to the topic's
title and focus; docs/writing.md), however well its chunk scored. What is left becomes units of
one or two adjacent sentences of one chunk (a sentence that leans on the one before, "It ...",
"But ...", "these cytokines", `text.leaning`, goes with it or is left out), and the sections take
units in turns, in schema order, by maximal marginal relevance: relevance to topic, section and
retrieval rank, minus similarity to every unit already planned, minus a little for each unit of the
same source already in the section.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nonseq.models import CUT_START_KEY, SECTION_KEY, SITE_KEY, DropReason, SourceKind
from nonseq.text.definite import definite_subject, points_back
from nonseq.text.furniture import clean_inline, furniture_reason
from nonseq.text.leaning import leaning_reason
from nonseq.text.parse import lemmas
from nonseq.text.prose import reject_reason
from nonseq.text.sentences import split, strip_dateline
from nonseq.text.voice import ATTRIBUTED, speech
from nonseq.text.when import anchor, page_date
from nonseq.text.words import tokens
from nonseq.writing.sources import SourceRef

if TYPE_CHECKING:
    from nonseq.config import WritingSettings
    from nonseq.models import Candidate, ContextPack
    from nonseq.writing.schemas import Schema

Embed = Callable[[list[str]], np.ndarray]
#: First words of a sentence that leans on the one before it.
_LEANS = re.compile(r"^\W*(?:this|that|these|those|it|its|he|she|they|their|his|her|him|them|but|"
                    r"and|or|however|also|still|yet|so|such|then|there|here|the same|both|another|"
                    r"meanwhile|instead|otherwise|in addition|as a result|even so)\b", re.I)
POOL_REASONS = (DropReason.PER_URL_CAP, DropReason.RANK_CUT)


@dataclass
class PlanSettings:
    """The plan's knobs (defaults chosen on the tune topics; docs/writing.md)."""

    units_per_section: int = 3      # most units a section takes
    max_units: int = 14             # most units in the article
    topic_floor: float = 0.35       # topic relevance below which a fact enters no section
    min_units: int = 10             # a plan with fewer usable units lowers the floor ...
    short_floor: float = 0.27       # ... at most to this (99th pct of other-category sentences, tune)
    near_duplicate: float = 0.85    # cosine at which two sentences say the same
    max_unit_words: int = 45        # longer sentences (or pairs) are not planned
    pair_words: int = 14            # two adjacent sentences both shorter than this form one unit
    w_topic: float = 0.5            # weight of relevance to the topic
    w_section: float = 0.3          # ... to the section's name and guidance
    w_rank: float = 0.2             # ... of the chunk's retrieval score
    mmr: float = 0.5                # weight of the similarity to units already planned
    source_penalty: float = 0.05    # per unit of the same source already in the section
    lean_penalty: float = 0.1       # a unit that leans on a sentence left out (`leaning_units`)
    fit_margin: float = 0.03        # a unit fits the sections within this cosine of its best-fitting one
    min_sources: int = 3            # the article draws on this many sources when the plan has them
    use_pool: bool = True           # also plan from pool chunks cut only by the per-URL cap/top N
    pool_extra: int = 12            # most such pool chunks
    english_only: bool = True       # a page in another language is left out (the checks read English only)


def plan_settings(cfg: WritingSettings) -> PlanSettings:
    """The plan's knobs from [writing] (the MMR weights stay at their defaults)."""
    return PlanSettings(units_per_section=cfg.units_per_section, max_units=cfg.max_units,
                        topic_floor=cfg.topic_floor, min_units=cfg.min_units,
                        short_floor=cfg.short_floor, near_duplicate=cfg.near_duplicate,
                        max_unit_words=cfg.max_unit_words, use_pool=cfg.use_pool,
                        pool_extra=cfg.pool_extra, english_only=cfg.english_only)


@dataclass
class SourceSentence:
    """One sentence of a source chunk and what the plan made of it."""

    id: str                 # "c<chunk>.s<sentence>"
    text: str
    chunk: int              # index into WritePlan.chunks
    index: int              # sentence index within the chunk
    url: str
    title: str
    point_id: str
    chunk_score: float
    topic: float = 0.0      # cosine with the topic
    reason: str = ""        # why it was not planned ("" = usable)
    page: str = ""          # the sentence as the page has it (before markers went and dates came in)
    section: str = ""       # the site section its page is filed under ("Opinion"; models.SECTION_KEY)
    site: str = ""          # the site's own name for itself ("MacRumors"; models.SITE_KEY)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"id": self.id, "text": self.text, "url": self.url, "point_id": self.point_id,
                "topic": round(self.topic, 3), "reason": self.reason}


@dataclass
class Unit:
    """One or two adjacent source sentences the article will say in one sentence."""

    sentences: list[SourceSentence]
    n: int = 0              # source number (set when sources are numbered)
    score: float = 0.0      # the MMR score it was chosen with
    section_fit: float = 0.0

    @property
    def text(self) -> str:
        """The source sentences joined."""
        return " ".join(s.text for s in self.sentences)

    @property
    def topic(self) -> float:
        """The unit's relevance to the topic (its best sentence's)."""
        return max(s.topic for s in self.sentences)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"n": self.n, "sentences": [s.text for s in self.sentences],
                "ids": [s.id for s in self.sentences], "point_id": self.sentences[0].point_id,
                "score": round(self.score, 3), "topic": round(self.topic, 3),
                "section_fit": round(self.section_fit, 3)}


@dataclass
class PlannedSection:
    """A schema section and the units it will say."""

    name: str
    guidance: str
    units: list[Unit] = field(default_factory=list)


@dataclass
class WritePlan:
    """Sections with their units, the numbered sources, and every sentence left out and why."""

    title: str
    schema: str
    sections: list[PlannedSection]
    sources: list[SourceRef]
    chunks: list[Candidate]
    sentences: list[SourceSentence]
    settings: PlanSettings
    below_floor: int = 0    # sentences under the topic floor let in to reach min_units

    @property
    def units(self) -> list[Unit]:
        """Every planned unit, in article order."""
        return [u for s in self.sections for u in s.units]

    @property
    def rejected(self) -> list[SourceSentence]:
        """The sentences left out, with their reason."""
        return [s for s in self.sentences if s.reason]

    def reasons(self) -> dict[str, int]:
        """How many sentences each kind of reason left out."""
        out: dict[str, int] = {}
        for s in self.rejected:
            key = re.split(r" \(|:| of ", s.reason)[0]
            out[key] = out.get(key, 0) + 1
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))

    def facts(self) -> list[tuple[int, str, str, str]]:
        """(source number, chunk text, url, title) of every chunk of a cited source (for grounding)."""
        by_url = {s.url: s for s in self.sources}
        return [(by_url[c.chunk.url].n, c.chunk.text, c.chunk.url, by_url[c.chunk.url].title)
                for c in self.chunks if c.chunk.url in by_url]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (for `inspect --json` and the bench)."""
        return {"title": self.title, "schema": self.schema,
                "sources": [s.to_dict() for s in self.sources],
                "sections": [{"name": s.name, "units": [u.to_dict() for u in s.units]}
                             for s in self.sections],
                "rejected": [s.to_dict() for s in self.rejected], "reasons": self.reasons(),
                "settings": vars(self.settings), "below_floor": self.below_floor}

    def to_markdown(self) -> str:
        """The plan for the prompt file and `inspect`."""
        lines = [f"## Write plan: {self.title}", "", f"- schema: {self.schema}",
                 f"- units: {len(self.units)} from {len(self.sentences)} source sentences"]
        if self.below_floor:
            lines.append(f"- short plan: {self.below_floor} sentences under the topic floor let in "
                         f"(down to {self.settings.short_floor:.2f}) to fill it")
        lines += ["", "### Sources", ""]
        lines += [f"[{s.n}] {s.label} — {s.location}" for s in self.sources] or ["(none)"]
        for i, sec in enumerate(self.sections, 1):
            lines += ["", f"### Section {i}: {sec.name}", ""]
            lines += [f"{k}. [{u.n}] (score {u.score:.2f}, topic {u.topic:.2f}) " + " / ".join(
                s.text for s in u.sentences) for k, u in enumerate(sec.units, 1)] or ["(nothing planned)"]
        lines += ["", f"### Left out ({len(self.rejected)})", ""]
        lines += [f"- {reason}: {count}" for reason, count in self.reasons().items()]
        lines += [""] + [f"- ({s.reason}) {s.text}" for s in self.rejected]
        return "\n".join(lines) + "\n"


def candidate_chunks(pack: ContextPack, cfg: PlanSettings) -> list[Candidate]:
    """The research chunks in rank order, then pool chunks cut only by the URL cap or top N."""
    chunks = list(pack.research)
    if cfg.use_pool:
        seen = {id(c) for c in chunks}
        extra = [c for c in pack.pool if id(c) not in seen and c.group is SourceKind.RESEARCH
                 and c.drop in POOL_REASONS]
        extra.sort(key=lambda c: -c.scores.get("final", 0.0))
        chunks += extra[:cfg.pool_extra]
    return chunks


_OPEN_QUOTE = re.compile(r"^\W*[\"“‘]")


def sentence_reason(text: str, cfg: PlanSettings, second_person: bool) -> str:
    """Why a cleaned source sentence may not be said ("" when it may), the parse's fragment test aside."""
    reason = furniture_reason(text) or reject_reason(text, allow_second_person=second_person,
                                                     max_words=cfg.max_unit_words)
    if (not reason and _OPEN_QUOTE.match(text) and not speech(text)
            and not ATTRIBUTED.search(re.sub(r"“[^”]*”|\"[^\"]*\"", " ", text))):
        reason = "quotation with no speaker"
    return reason


#: Why a sentence is left out when it lies in the end of a cut sentence a chunk begins with (`CUT_START_KEY`).
CUT_START = "fragment: starts mid-sentence (the chunk begins inside it)"


def cut_chars(mark: object) -> int:
    """How many characters a chunk begins with that are the end of a cut sentence (`CUT_START_KEY`): its
    number; 1 for a store written when the mark was only True (its first sentence); 0 when there is none."""
    return 1 if mark is True else mark if isinstance(mark, int) and mark > 0 else 0


#: Why a page in another language is left out.
FOREIGN = "page in another language"


def foreign_pages(chunks: Sequence[Candidate]) -> dict[str, str]:
    """The reason each page in a language other than English is left out, by URL (its retrieved text read
    whole: `text.language`)."""
    from nonseq.text.language import language

    texts: dict[str, list[str]] = {}
    for c in chunks:
        texts.setdefault(c.chunk.url, []).append(c.chunk.text)
    found = {url: language(" ".join(parts)) for url, parts in texts.items()}
    return {url: f"{FOREIGN} ({lang}): the writer's checks read English only"
            for url, lang in found.items() if lang and lang != "en"}


def language_reason(plan: WritePlan) -> str:
    """Why a draft is short of sentences when the plan left pages in another language out ("" when it did not)."""
    n = sum(count for reason, count in plan.reasons().items() if reason.startswith(FOREIGN))
    return f"{n} source sentence(s) left out: on a {FOREIGN} (the checks read English only)" if n else ""


def source_sentences(chunks: Sequence[Candidate], cfg: PlanSettings,
                     second_person: bool) -> list[SourceSentence]:
    """Every sentence of every chunk, with the filter's reason for those that may not be said.

    A sentence is cleaned of the page's markers and links first (`text.furniture.clean_inline`),
    and its relative time is anchored to the page's date (`text.when.anchor`: a sentence that cannot
    be anchored is left out). The parse then leaves out every fragment (no finite verb or no subject).
    """
    from nonseq.text.parse import fragment, parse_many

    out = []
    foreign = foreign_pages(chunks) if cfg.english_only else {}
    for ci, c in enumerate(chunks):
        score = float(c.scores.get("final", c.score))
        title = " ".join((c.chunk.title or c.chunk.domain or c.chunk.url).split())
        cut, at = cut_chars(c.chunk.extra.get(CUT_START_KEY)), 0
        for si, raw in enumerate(split(c.chunk.text)):
            text = clean_inline(strip_dateline(raw))
            found = c.chunk.text.find(raw.lstrip("“\"")[:40], at)  # where it starts (a mark the split put first aside)
            at = found if found >= 0 else at
            reason = foreign.get(c.chunk.url) or (CUT_START if at < cut else sentence_reason(text, cfg, second_person))
            anchored = anchor(text, c.chunk.published) if not reason else text
            if anchored is None:
                reason = ("relative time, and the page has no date" if page_date(c.chunk.published) is None
                          else "relative time that no date can be written for")
            out.append(SourceSentence(f"c{ci}.s{si}", anchored or text, ci, si, c.chunk.url, title,
                                      c.point_id, score, reason=reason, page=raw,
                                      section=str(c.chunk.extra.get(SECTION_KEY) or ""),
                                      site=str(c.chunk.extra.get(SITE_KEY) or "")))
    usable = [s for s in out if not s.reason]
    parse_many([s.text for s in usable])
    for s in usable:
        missing = fragment(s.text, allow_imperative=second_person)
        if missing:
            s.reason = f"fragment: {missing}"
    return out


def _unit_norm(v: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length."""
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-9)


def windows(sents: list[SourceSentence]) -> list[str]:
    """Each sentence with its neighbours in the chunk (the context its relevance is judged in)."""
    out = []
    for i, s in enumerate(sents):
        near = [t.text for t in sents[max(0, i - 1):i + 2] if t.chunk == s.chunk]
        out.append(" ".join(near))
    return out


def topic_relevance(vecs: np.ndarray, wvecs: np.ndarray, topic_vec: np.ndarray) -> np.ndarray:
    """Relevance to the topic: the mean cosine of each sentence and of its window with the topic."""
    return np.asarray(0.5 * (vecs @ topic_vec + wvecs @ topic_vec))


def relevance(sents: list[SourceSentence], vecs: np.ndarray, wvecs: np.ndarray, topic_vec: np.ndarray,
              cfg: PlanSettings) -> None:
    """Topic relevance of each sentence (mean of its own and its window's cosine with the topic);
    duplicates, near-duplicates and sentences below the topic floor are marked."""
    keys: dict[tuple[str, ...], str] = {}
    kept: list[int] = []
    rel = topic_relevance(vecs, wvecs, topic_vec)
    for i, s in enumerate(sents):
        s.topic = float(rel[i])
        if s.reason:
            continue
        key = tuple(tokens(s.text))
        if key in keys:
            s.reason = f"duplicate of {keys[key]}"
            continue
        keys[key] = s.id
        if kept:
            sims = vecs[kept] @ vecs[i]
            j = int(np.argmax(sims))
            if sims[j] >= cfg.near_duplicate:
                s.reason = f"near-duplicate (cosine {sims[j]:.2f}) of {sents[kept[j]].id}"
                continue
        if s.topic < cfg.topic_floor:
            s.reason = f"below the topic floor ({s.topic:.2f} < {cfg.topic_floor:.2f})"
            continue
        kept.append(i)


def admit_below_floor(sents: list[SourceSentence], vecs: np.ndarray, cfg: PlanSettings,
                      want: int) -> int:
    """A short plan takes the best sentences under the topic floor, down to `short_floor` and never a
    near-duplicate of a usable one, until it has `want` units; returns how many it took."""
    below = sorted((i for i, s in enumerate(sents) if s.reason.startswith("below the topic floor")
                    and s.topic >= cfg.short_floor), key=lambda i: -sents[i].topic)
    taken = 0
    for i in below:
        if len(make_units(sents, cfg)) >= want:
            break
        usable = [j for j, s in enumerate(sents) if not s.reason]
        if usable and float(np.max(vecs[usable] @ vecs[i])) >= cfg.near_duplicate:
            continue
        sents[i].reason = ""
        taken += 1
    return taken


def bridged(before: str, sentence: str) -> bool:
    """True when the sentence opens on "the" + a noun that the page's sentence before it names ("... found
    water vapour plumes. The plumes ...": `definite.definite_subject`), so a reader needs that sentence."""
    noun = definite_subject(sentence)
    return bool(noun) and noun in lemmas(before)


def follows(s: SourceSentence, prev: SourceSentence, at: dict[tuple[int, int], SourceSentence]) -> bool:
    """True when `prev` is the sentence before `s` on its page: the one before it in its chunk, or that one's
    first copy where chunks overlap (a chunk's opening sentences repeat the end of the chunk before, and only
    their first copy is usable)."""
    before = at.get((s.chunk, s.index - 1))
    return before is not None and (before is prev or (before.url == prev.url
                                                      and tokens(before.text) == tokens(prev.text)))


def make_units(sents: list[SourceSentence], cfg: PlanSettings) -> list[Unit]:
    """Usable sentences as units: a leaning or short sentence, or one whose definite subject its usable
    predecessor names (`bridged`), joins that predecessor; one that
    leans on the sentence before it (`text.leaning`: "It ...", "these cytokines", "also", a quotation
    whose speaker is "he") and cannot join it is no unit. The parse is read only for sentences that
    passed every cheaper filter (`source_sentences` parsed them once)."""
    units: list[Unit] = []
    at = {(s.chunk, s.index): s for s in sents}
    for s in sents:
        if s.reason:
            continue
        prev = units[-1].sentences if units else []
        pairable = (len(prev) == 1 and follows(s, prev[0], at)
                    and len(tokens(prev[0].text)) + len(tokens(s.text)) <= cfg.max_unit_words)
        short = max(len(tokens(prev[0].text)), len(tokens(s.text))) < cfg.pair_words if prev else False
        leans = leaning_reason(s.text) is not None
        if pairable and (leans or short or _LEANS.match(s.text) or bridged(prev[0].text, s.text)):
            prev.append(s)
        elif not leans:
            units.append(Unit([s]))
    return units


def mark_leaning(sents: list[SourceSentence], units: list[Unit]) -> None:
    """Give every usable sentence that no unit holds (it leans on a sentence it could not join) its reason."""
    held = {s.id for u in units for s in u.sentences}
    for s in sents:
        if not s.reason and s.id not in held:
            s.reason = f"leans on the sentence before it, which is not planned with it: {leaning_reason(s.text)}"


def leaning_units(units: list[Unit], sents: list[SourceSentence], told: list[str]) -> np.ndarray:
    """1.0 for each unit whose first sentence leans on its page's sentences before it, else 0.0: it opens
    on a word that points back ("It", "But": `_LEANS`), or a definite phrase in it names what one of the
    two sentences before it in its chunk brought in and the topic (`told`) does not ("the scan":
    `definite.points_back`); the plan prefers other units (`lean_penalty`)."""
    text = {(s.chunk, s.index): s.text for s in sents}
    out = []
    for u in units:
        first = u.sentences[0]
        before = [text[(first.chunk, i)] for i in (first.index - 2, first.index - 1) if (first.chunk, i) in text]
        out.append(bool(_LEANS.match(first.text) or points_back(first.text, before, told)))
    return np.array(out, dtype=float)


def fitting(fit: np.ndarray, base: np.ndarray, cfg: PlanSettings) -> np.ndarray:
    """Which units fit which sections: a section is within `fit_margin` of the unit's best-fitting
    one; the first section (the lede, the short answer) also takes the units strongest on the topic."""
    ok = fit >= fit.max(axis=1, keepdims=True) - cfg.fit_margin
    if len(base):
        top = np.argsort(-base)[:max(1, cfg.units_per_section)]
        ok[top, 0] = True
    return np.asarray(ok)


def allocate(units: list[Unit], uvecs: np.ndarray, secvecs: np.ndarray, cfg: PlanSettings,
             base: np.ndarray) -> list[list[int]]:
    """Unit indices per section: turns in schema order, each taking its best fitting unit by MMR
    (a section that no unit fits stays empty and is left out)."""
    n_sec = len(secvecs)
    picks: list[list[int]] = [[] for _ in range(n_sec)]
    fit = uvecs @ secvecs.T  # units x sections
    ok = fitting(fit, base, cfg)
    free = set(range(len(units)))
    chosen: list[int] = []
    for _round in range(cfg.units_per_section):
        for s in range(n_sec):
            if not free or len(chosen) >= cfg.max_units:
                return picks
            best, best_score = -1, -np.inf
            for u in sorted(free):
                if not ok[u, s]:
                    continue
                sim = float(np.max(uvecs[chosen] @ uvecs[u])) if chosen else 0.0
                same = sum(units[k].sentences[0].url == units[u].sentences[0].url for k in picks[s])
                score = base[u] + cfg.w_section * fit[u, s] - cfg.mmr * sim - cfg.source_penalty * same
                if score > best_score:
                    best, best_score = u, score
            if best < 0:
                continue
            units[best].score, units[best].section_fit = float(best_score), float(fit[best, s])
            picks[s].append(best)
            chosen.append(best)
            free.discard(best)
    return picks


def diversify(units: list[Unit], picks: list[list[int]], base: np.ndarray, cfg: PlanSettings) -> list[list[int]]:
    """Draw on at least `min_sources` sources when the units hold them: each missing source's best
    unit takes the place of the weakest unit of the most-used source (in that unit's section)."""
    def url(i: int) -> str:
        return units[i].sentences[0].url

    have = {url(i) for p in picks for i in p}
    chosen = {i for p in picks for i in p}
    wanted = min(cfg.min_sources, len({u.sentences[0].url for u in units}))
    spare = sorted((i for i in range(len(units)) if i not in chosen and url(i) not in have), key=lambda i: -base[i])
    for new in spare:
        if len(have) >= wanted:
            break
        if url(new) in have:
            continue
        counts: dict[str, int] = {}
        for i in chosen:
            counts[url(i)] = counts.get(url(i), 0) + 1
        most = max(counts, key=lambda k: counts[k], default="")
        if counts.get(most, 0) < 2:
            break
        weakest = min((i for i in chosen if url(i) == most), key=lambda i: base[i])
        for p in picks:
            if weakest in p:
                p[p.index(weakest)] = new
        chosen = (chosen - {weakest}) | {new}
        have.add(url(new))
    return picks


def in_page_order(units: list[Unit], chunks: Sequence[Candidate], lede: bool = False) -> list[Unit]:
    """A section's units with those of one page in the page's order (chunk position, then sentence), each
    page's units taking the places its units had, so a page brings in what it names before it refers back
    to it ("The protests began ... sparked by proposed legislation" before "Although the bill was withdrawn").
    `lede`: the section opens the article, and its first unit (the plan's first choice) stays first."""
    def place(u: Unit) -> tuple[int, int]:
        first = u.sentences[0]
        return chunks[first.chunk].chunk.position, first.index

    head, rest = (units[:1], units[1:]) if lede else ([], units)
    by_page: dict[str, list[Unit]] = {}
    for u in rest:
        by_page.setdefault(u.sentences[0].url, []).append(u)
    ordered = {url: iter(sorted(group, key=place)) for url, group in by_page.items()}
    return head + [next(ordered[u.sentences[0].url]) for u in rest]


def number(sections: list[PlannedSection], chunks: Sequence[Candidate]) -> list[SourceRef]:
    """Number sources by first use in article order; set every unit's n; a document's pages are its units'."""
    by_url: dict[str, SourceRef] = {}
    for sec in sections:
        for u in sec.units:
            s = u.sentences[0]
            if s.url not in by_url:
                by_url[s.url] = SourceRef(len(by_url) + 1, s.title, s.url, chunks[s.chunk].chunk.domain)
            ref = by_url[s.url]
            ref.pages = sorted(set(ref.pages).union(*(chunks[x.chunk].chunk.pages for x in u.sentences)))
            u.n = ref.n
    return list(by_url.values())


def build_plan(pack: ContextPack, schema: Schema, embed: Embed,
               cfg: PlanSettings | None = None) -> WritePlan:
    """The write plan of a topic's context pack under a schema."""
    cfg = cfg or PlanSettings()
    topic = pack.topic
    chunks = candidate_chunks(pack, cfg)
    sents = source_sentences(chunks, cfg, second_person=schema.name == "how-to")
    sections = [PlannedSection(s.name, s.guidance) for s in schema.sections]
    below_floor = 0
    if sents:
        queries = [" ".join(f"{topic.title}. {topic.focus}".split())]
        queries += [f"{topic.title}. {s.name}: {s.guidance}" for s in schema.sections]
        qv = _unit_norm(np.asarray(embed(queries), dtype=np.float32))
        vecs = _unit_norm(np.asarray(embed([s.text for s in sents]), dtype=np.float32))
        wvecs = _unit_norm(np.asarray(embed(windows(sents)), dtype=np.float32))
        relevance(sents, vecs, wvecs, qv[0], cfg)
        want = min(cfg.min_units, cfg.max_units, len(sections) * cfg.units_per_section)
        below_floor = admit_below_floor(sents, vecs, cfg, want)
        units = make_units(sents, cfg)
        mark_leaning(sents, units)
        if units:
            index = {s.id: i for i, s in enumerate(sents)}
            uvecs = _unit_norm(np.stack([vecs[[index[s.id] for s in u.sentences]].mean(0)
                                         for u in units]))
            lean = leaning_units(units, sents, [topic.title, topic.focus])
            base = np.array([cfg.w_topic * u.topic + cfg.w_rank * u.sentences[0].chunk_score
                             for u in units]) - cfg.lean_penalty * lean
            picks = diversify(units, allocate(units, uvecs, qv[1:], cfg, base), base, cfg)
            opening = next((k for k, picked in enumerate(picks) if picked), -1)  # the section the article opens on
            for k, (sec, picked) in enumerate(zip(sections, picks, strict=True)):
                sec.units = in_page_order([units[i] for i in picked], chunks, lede=k == opening)
            planned = {s.id for sec in sections for u in sec.units for s in u.sentences}
            for s in sents:
                if not s.reason and s.id not in planned:
                    s.reason = "not chosen: the sections were full"
    return WritePlan(topic.title, schema.name, sections, number(sections, chunks), chunks, sents, cfg,
                     below_floor)
