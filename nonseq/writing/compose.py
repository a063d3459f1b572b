"""Write the planned units: restate -> verify -> retry with less freedom -> the source's own words -> drop.

By default (`[writing] restate = false`) the model is not asked: every unit goes straight to the
source's own words below, because blind readers found the restatements the checks passed too often
false (docs/writing.md). With `restate = true`, every unit of the plan is one call: the model
restates one source sentence, or joins two, in one sentence (a tiny prompt, greedy decoding, at
most `unit_tokens` tokens, stopped at the first line break). The sentence is verified against the
unit's source sentences (`verify.rules.Verifier`: hard rules, the parse's role and fragment rules,
then the support check). A failure is retried once with less freedom (the unit's first usable
sentence alone, "shorten it, keep its words"); a second failure says the source's own words: direct
speech as a quotation with its speaker (`Martins said: “...”`), an opinion framed as its source's
("According to Engadget, ..."), anything else as the source sentence(s) kept. A unit whose source
holds an opinion with no holder skips the model. What fails even then (a repeat, a fragment) is
dropped. The citation is the plan's source number, never the model's. Each sentence records how it
was made: `restated`, `verbatim` (the source's sentence, kept or framed, no quotation marks) or
`quoted`.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from nonseq.events import Kind, Progress, Step, emit
from nonseq.text.abbreviations import definitions, spelled_out
from nonseq.text.definite import (
    compared_phrase,
    definite_subject,
    institution_name,
    opening_points_back,
    unnamed_speaker,
)
from nonseq.text.edits import written_in
from nonseq.text.furniture import unlink
from nonseq.text.leaning import leaning_reason, surname_referent
from nonseq.text.names import full_names
from nonseq.text.parse import keeps_case, order
from nonseq.text.prose import quoted_at
from nonseq.text.reference_words import TITLES
from nonseq.text.sentences import split, strip_dateline
from nonseq.text.voice import (
    SAYS,
    SPEECH,
    SPEECH_TAIL,
    according_to,
    advises,
    attributed,
    opinion,
    opinion_page,
    page_title,
    site_name,
    speech,
    unframed,
    without_connective,
)
from nonseq.text.words import common_word, tokens
from nonseq.verify.roles import same_claim
from nonseq.verify.rules import Verdict, Verifier

if TYPE_CHECKING:
    from nonseq.config import WritingSettings
    from nonseq.llm.base import LLM
    from nonseq.writing.plan import SourceSentence, Unit, WritePlan

SYSTEM = "You rewrite sentences for a news article. Answer with one sentence only."
EXAMPLE_IN = "The company, which was founded in 2004, said on Tuesday that its profits rose by 12 percent."
EXAMPLE_OUT = "The company said on Tuesday that its profits were up 12 percent."
FREE = "Rewrite this in one sentence, in simpler words. Keep all names and numbers."
LITERAL = "Shorten this sentence. Keep its words and facts:"
_LEAD = re.compile(r"^\W*(?:rewrite|rewritten|answer|sentence|paraphrase|output|result|here it is)\s*:\s*",
                   re.I)
_MARKER = re.compile(r"\s*\[\d[\d,\s-]*\]")
_CONNECTIVE = re.compile(r"^(?:but|and|however|also|still|yet|so|meanwhile|instead)\b,?\s+", re.I)


@dataclass
class ComposeSettings:
    """The loop's knobs."""

    temperature: float = 0.0        # greedy: the same article on every run
    unit_tokens: int = 60           # most new tokens for one sentence
    pair_tokens: int = 80           # ... for two sentences joined
    max_quote_words: int = 40       # longer quotations are cut at a clause boundary
    retry: bool = True              # one retry with less freedom before the source's words
    quote: bool = True              # say the source's own words when the retry fails too
    restate: bool = False           # True: ask the model first (else every sentence in the source's words)


def compose_settings(cfg: WritingSettings) -> ComposeSettings:
    """The loop's knobs from [writing]."""
    return ComposeSettings(temperature=cfg.temperature, unit_tokens=cfg.unit_tokens,
                           pair_tokens=cfg.pair_tokens, retry=cfg.retry, quote=cfg.quote, restate=cfg.restate)


@dataclass
class Attempt:
    """One try at a unit's sentence."""

    kind: str          # "free", "literal", "verbatim", "quote"
    output: str
    verdict: Verdict

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"kind": self.kind, "output": self.output, **self.verdict.to_dict()}


@dataclass
class SentenceRecord:
    """How one sentence of the article was made."""

    section: int
    unit: Unit
    made: str = "dropped"   # restated, verbatim, quoted or dropped
    text: str = ""
    attempts: list[Attempt] = field(default_factory=list)
    named_from: list[str] = field(default_factory=list)  # page sentences a name in the text was read from

    @property
    def page_sources(self) -> list[str]:
        """Its source sentences in their page's words (before markers went and dates came in)."""
        return [s.page or s.text for s in self.unit.sentences]

    @property
    def evidence(self) -> list[str]:
        """What the sentence rests on, in its page's words: its source sentences, then any sentence of the
        same page a name in it was read from ("The agency" named as the page names it)."""
        return [*self.page_sources, *self.named_from]

    @property
    def copy_ratio(self) -> float:
        """Word-sequence similarity of the sentence to its sources (1 = verbatim)."""
        return SequenceMatcher(None, tokens(self.text), tokens(self.unit.text)).ratio()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"section": self.section, "n": self.unit.n, "made": self.made, "text": self.text,
                "sources": [s.text for s in self.unit.sentences], "named_from": self.named_from,
                "copy_ratio": round(self.copy_ratio, 3) if self.text else None,
                "attempts": [a.to_dict() for a in self.attempts]}


class _Stop(Exception):
    """Raised from the token callback at the first line break (ends the call)."""


def ask(llm: LLM, messages: list[dict[str, str]], max_tokens: int, temperature: float) -> str:
    """The first line of the model's reply (generation stops at the line break)."""
    pieces: list[str] = []

    def on_token(piece: str) -> None:
        """Collect a piece; stop at the first line break after some text."""
        pieces.append(piece)
        if "\n" in "".join(pieces).lstrip():
            raise _Stop

    with contextlib.suppress(_Stop):
        llm.complete(messages, max_tokens=max_tokens, temperature=temperature, on_token=on_token)
    text = "".join(pieces).strip()
    return text.split("\n")[0].strip()


def messages(unit_text: str, pair: bool, literal: bool) -> list[dict[str, str]]:
    """The chat messages of one call.

    Free (the first try): the instruction and the unit in one user message, no example (the most
    sentences in the model's own words on the tune units, tune_prompts.py). Literal (the retry,
    less freedom): a system line, one worked example of shortening, "keep its words".
    """
    if literal:
        return [{"role": "system", "content": SYSTEM},
                {"role": "user", "content": f"{LITERAL} {EXAMPLE_IN}"},
                {"role": "assistant", "content": EXAMPLE_OUT},
                {"role": "user", "content": f"{LITERAL} {unit_text}"}]
    del pair  # one wording for one sentence or two (as tuned)
    return [{"role": "user", "content": f"{FREE}\n\n{unit_text}"}]


def clean(reply: str, most: int) -> str:
    """The reply as at most `most` sentences: labels, quotes around it and markers removed."""
    text = _MARKER.sub("", _LEAD.sub("", reply)).strip()
    if len(text) > 1 and text[0] in "\"“'" and text[-1] in "\"”'":
        text = text[1:-1].strip()
    parts = split(text)[:most]
    text = " ".join(parts).strip()
    if text and text[-1] not in ".!?\"”'’":
        text = text.rstrip(",;:") + "."
    return text[:1].upper() + text[1:]


#: A clause after the speaker's verb that says more than who spoke ("he said, although it could later ...").
_AFTER_SPEAKER = re.compile(r",\s+(?:although|though|including|adding|noting|citing|but|while|because|which|"
                            r"referring|speaking|as(?!\s+(?:first\s+)?(?:reported|quoted|told|cited)\b))\b.*$",
                            re.I)  # "as reported by the Independent" says whose report it is, and stays


def quotation(text: str, max_words: int) -> str:
    """Direct speech as a quotation with its speaker: `"...," she said.` (or only its end, when the
    quotation began a sentence earlier) becomes `She said: “...”` (the same words, one pair of
    quotation marks, cut at a clause if long). Anything else is no direct speech and gets no
    quotation marks: the sentence comes back as it stands, a news dateline (`(Reuters) — `) dropped.
    """
    text = strip_dateline(text.strip())
    found = SPEECH.match(text) or SPEECH_TAIL.match(text)
    if not found or len(tokens(found["who"])) > 14:
        return text
    who = re.sub(r"^(?:was|is) how\s+", "", found["who"], flags=re.I)  # "was how Ford described it" -> "Ford ..."
    says = SAYS.search(who)
    if says is not None:  # "he said, although it could ...": a clause after the verb is no part of who said it
        who = who[:says.end()] + _AFTER_SPEAKER.sub("", who[says.end():])
    if who.lower().startswith(("said ", "says ", "added ", "wrote ")):  # "said John Roth, head of X"
        verb, _, name = who.partition(" ")  # an appositive keeps its commas: "John Roth, head of X, said"
        who = f"{name.rstrip(',')}, {verb.lower()}" if "," in name else f"{name} {verb.lower()}"
    who = who[:1].upper() + who[1:]
    body = _CONNECTIVE.sub("", found["quote"].strip())
    body = body[:1].upper() + body[1:]
    if len(tokens(body)) > max_words:
        cuts = [m.start() for m in re.finditer(r"[,;:—–]\s", body)
                if 8 <= len(tokens(body[:m.start()])) <= max_words]
        body = body[:cuts[-1]] + " …" if cuts else body
    body = body.replace("“", "‘").replace("”", "’").replace('"', "'")
    return f"{who}: “{body.rstrip('.!?,… ').rstrip()}{' …' if body.endswith('…') else ''}”"


def copied(text: str, sources: list[str]) -> bool:
    """True when a sentence is word for word a source sentence, or the unit's sentences together."""
    key = tokens(text)
    return key in ([tokens(s) for s in sources] + [tokens(" ".join(sources))])


#: A page title longer than this is cut (at a word) where a sentence is framed as its page's.
TITLE_CHARS = 80


def source_name(unit: Unit) -> str:
    """Whose a unit's words are: its source's site name, else its page title in quotation marks."""
    first = unit.sentences[0]
    name = site_name(first.title, first.url, first.site)
    if name:
        return name
    title = page_title(first.title)
    if len(title) > TITLE_CHARS:  # cut at a word, never inside one
        title = title[:TITLE_CHARS + 1].rsplit(" ", 1)[0].rstrip(",;:—–-") + "…"
    return f"“{title}”" if title else "the source"


def held_view(unit: Unit) -> bool:
    """True when a unit is someone's view: an opinion, verdict or prediction, a sentence of an opinion page, or an
    order (a page's advice)."""
    first = unit.sentences[0]
    return opinion_page(first.title, first.url, first.section) or any(opinion(s.text) or order(s.text)
                                                                      for s in unit.sentences)


#: A capitalised word inside a sentence: after a word, a comma or a closing mark and a space (not a
#: sentence's first word, nor one after a full stop or an opening quotation mark).
_INSIDE_CAPITAL = re.compile(r"(?<=[\w,;)’'”] )([A-Z][a-z][\w-]*)")
_WORD = re.compile(r"[A-Za-z][\w-]*")


def page_names(sentences: Iterable[str]) -> frozenset[str]:
    """Words the pages write with a capital inside a sentence, never in lower case, and that are no common
    English word ("NASA's Europa Clipper mission"; not "Research" of "Pew Research Center") unless they stand
    alone so twice or more ("the Wild beat the Sabres", "for the Wild": a team): names, which
    keep their capital where a frame goes before them, whatever the parse took them for ("According to
    space.com, Clipper will orbit Jupiter ...")."""
    texts = list(sentences)
    lower = {w for t in texts for w in _WORD.findall(t) if w[:1].islower()}
    inside = [m for t in texts for m in _INSIDE_CAPITAL.finditer(t) if m[1].lower() not in lower]
    alone = Counter(m[1] for m in inside if _after_lower(m.string[:m.start(1)]))
    return frozenset(m[1] for m in inside if not common_word(m[1]) or alone[m[1]] >= 2)


_LEADS = frozenset(("the", "a", "an", "this", "that", "for", "in", "on", "at", "by", "of", "to", "with", "from"))


def _after_lower(before: str) -> bool:
    """True when the word before a capitalised word is in lower case or an article or preposition ("the Wild",
    "The Wild"): the capital is the word's own, not a part of a longer name ("Pew Research Center")."""
    words = re.findall(r"[A-Za-z][\w'’.&-]*", before)
    return not words or words[-1][:1].islower() or words[-1].lower() in _LEADS


def own_words(unit: Unit, max_quote_words: int, names: frozenset[str] = frozenset()) -> tuple[str, str, str]:
    """(kind, the words checked, the text said) of a unit in its source's own words: direct speech
    as a quotation with its speaker; an opinion framed as its source's (its first word keeps its capital
    when the parse or the pages' `names` say it is a name); else the sentence(s) kept."""
    first = unit.sentences[0].text
    if speech(first):
        text = quotation(first, max_quote_words)
        return "quote", text, text
    body = " ".join(s.text for s in unit.sentences)
    if held_view(unit):  # each sentence of a pair framed: the second is the page's view as much as the first
        name = source_name(unit)  # a page's order is its advice ("... advises: start by ..."), a view its own
        return "verbatim", body, " ".join(_as_held(s.text, name, names) for s in unit.sentences)
    return "verbatim", body, body


def _as_held(sentence: str, name: str, names: frozenset[str]) -> str:
    """A sentence of someone's view framed as its page's (an order as its advice), unless its own words say
    whose it is ("..., Prakash said": a frame on top would attribute it twice, and take away its "But"); a view
    its holder words do not reach is still framed ("... has been discouraging, given that analysts believe ...")."""
    if attributed(sentence) and not opinion(sentence):
        return sentence
    return (advises if order(sentence) else according_to)(sentence, name, _keeps_case(sentence, names))


def _keeps_case(sentence: str, names: frozenset[str]) -> bool:
    """True when the word a frame puts first (after any connective it takes away) is a name: the parse or the
    pages' `names` say so ("Yet Schiff seems ..." -> "According to ..., Schiff seems ...")."""
    body = without_connective(sentence)
    return keeps_case(body) or _first_word(body) in names


def _first_word(sentence: str) -> str:
    """The sentence's first word."""
    found = _WORD.search(sentence)
    return found.group() if found else ""


class Composer:
    """Runs the loop over a plan with one LLM and one verifier."""

    def __init__(self, llm: LLM, verifier: Verifier, cfg: ComposeSettings | None = None,
                 progress: Progress | None = None) -> None:
        self.llm = llm
        self.verifier = verifier
        self.cfg = cfg or ComposeSettings()
        self.progress = progress
        self.names: frozenset[str] = frozenset()  # words the plan's pages write as names (page_names)

    def _try(self, kind: str, sources: list[str], text: str, rec: SentenceRecord, said: str = "") -> bool:
        """Verify one candidate sentence; record the attempt; accept it when it passes.

        `said`: what is written when it passes, when that differs from what is checked (the source's
        sentence framed as its source's: the frame is the article's, the checked words the source's).
        """
        if not text:
            verdict = Verdict(False, reasons=["empty reply"])
        else:
            verdict = self.verifier.check(text, sources, quoted=kind in ("quote", "verbatim"))
        rec.attempts.append(Attempt(kind, said or text, verdict))
        if verdict.ok:
            self.verifier.accept(text)
            rec.text = said or text
        return verdict.ok

    def unit(self, section: int, unit: Unit) -> SentenceRecord:
        """One unit through restate -> verify -> retry -> the source's words -> drop."""
        rec = SentenceRecord(section, unit)
        sources = [s.text for s in unit.sentences]
        pair = len(sources) > 1
        cfg = self.cfg
        held = held_view(unit)  # someone's verdict: said as theirs, in their words
        if cfg.restate and not held:
            reply = ask(self.llm, messages(unit.text, pair, literal=False),
                        cfg.pair_tokens if pair else cfg.unit_tokens, cfg.temperature)
            if self._try("free", sources, clean(reply, len(sources)), rec):
                rec.made = "verbatim" if copied(rec.text, sources) else "restated"
                return rec
            if cfg.retry:  # less freedom: one sentence (a pair's second one leans on it)
                reply = ask(self.llm, messages(sources[0], False, literal=True), cfg.unit_tokens, cfg.temperature)
                if self._try("literal", sources, clean(reply, 1), rec):
                    rec.made = "verbatim" if copied(rec.text, sources) else "restated"
                    return rec
        if cfg.quote:
            kind, checked, said = own_words(unit, cfg.max_quote_words, self.names)
            if self._try(kind, sources, checked, rec, said):
                rec.made = "quoted" if kind == "quote" else "verbatim"
        return rec

    def run(self, plan: WritePlan) -> list[SentenceRecord]:
        """Every unit of the plan, in article order."""
        self.verifier.aliases = definitions(s.text for s in plan.sentences)  # repeats read "NYAG" as its long form
        self.names = page_names(s.text for s in plan.sentences)  # "Clipper" keeps its capital after a frame
        records: list[SentenceRecord] = []
        total = len(plan.units)
        for si, sec in enumerate(plan.sections):
            for u in sec.units:
                emit(self.progress, Step.GENERATE, Kind.UPDATE, f"sentence {len(records) + 1}/{total} ({sec.name})",
                     done=len(records), total=total)
                records.append(self.unit(si, u))
                if records[-1].text:
                    emit(self.progress, Step.GENERATE, Kind.TEXT, f"{records[-1].text}\n")
        return records


def marked(sentence: str, n: int) -> str:
    """One sentence with its marker before the full stop: `Text [n].`, `“Text” [n].`"""
    text = sentence.rstrip()
    closing = re.search(r"[.!?,]?([\"'”’]+)$", text)
    if closing:  # a closing quotation mark: the stop goes outside, after the marker
        return f"{text[:closing.start()].rstrip()}{closing.group(1)} [{n}]."
    end = text[-1] if text[-1] in ".!?" else "."
    return f"{text.rstrip('.!?')} [{n}]{end}"


def _line(rec: SentenceRecord) -> str:
    """A record's sentences, each with the plan's source marker (and no link or marker of the page's)."""
    text = unlink(rec.text)
    return " ".join(marked(s, rec.unit.n) for s in split(text) or [text])


def standing(records: list[SentenceRecord], title: str = "",
             pages: dict[str, list[str]] | None = None) -> list[SentenceRecord]:
    """The records that stand on their own: one whose first sentence leans on a sentence before it
    (`text.leaning`: "It ...", "these cytokines", "also", `He said: “...”`) must follow, in its
    section, a sentence citing the same source; one naming a person by surname only, whose full name
    its page (`pages`: a page's sentences by url) gives and the article (`title` first) has not given
    before it, is left out wherever it stands; so is one that makes the claim an earlier sentence made
    (`verify.roles.same_claim`). An abbreviation the article has not used is spelled out where a page
    spells it out (`text.abbreviations`). What is left out is made "dropped", with the reason as its last
    attempt."""
    out: list[SentenceRecord] = []
    said = [title] if title else []
    defs = definitions(s for page in (pages or {}).values() for s in page)
    for rec in records:
        if rec.made == "dropped":
            continue
        prev = out[-1] if out and out[-1].section == rec.section else None
        rec.text = spelled_out(rec.text, said, defs)  # an abbreviation's long form put back from a page
        first = unframed((split(rec.text) or [rec.text])[0])  # the frame's title is not the source's text
        page = (pages or {}).get(rec.unit.sentences[0].url, [])
        before = page_before(page, rec.unit.sentences[0])
        rec.text, naming = named_institution(rec.text, first, before, said)  # "The agency" -> "The European ..."
        rec.named_from += [naming] if naming else []
        first = unframed((split(rec.text) or [rec.text])[0])
        why = (leaning_reason(first, page, said) or opening_points_back(first, before, said)  # "The office ..."
               or unnamed_speaker(first, said)  # "..., the authors said."
               or compared_phrase(first, said))  # "... for the smaller notebook."
        others = [s for url, sents in (pages or {}).items() if url != rec.unit.sentences[0].url for s in sents]
        for _ in range(3):  # each person named by surname only ("both Vindman and Williams")
            if not (why and why.startswith("surname")):
                break
            named, naming = named_in_full(rec.text, first, page, said, others)  # put back from the pages
            if named == rec.text:
                break
            rec.text = named
            rec.named_from += [naming] if naming and naming not in rec.named_from else []
            first = unframed((split(rec.text) or [rec.text])[0])
            why = leaning_reason(first, page, said) or ""
        here = page_place(page, rec.unit.sentences[0])
        after_own = (prev is not None and prev.unit.n == rec.unit.n  # its own page's sentence, from before it
                     and not 0 <= here < page_place(page, prev.unit.sentences[-1]))
        if why and (why.startswith("surname") or not after_own):
            rec.attempts.append(Attempt("assemble", rec.text, Verdict(
                False, reasons=[f"leans on a sentence the article does not hold before it ({why})"])))
            rec.made, rec.text = "dropped", ""
            continue
        again = next((k for k in out if same_claim(first, unframed((split(k.text) or [k.text])[0]))), None)
        if again is not None:  # the same claim from another page ("... has confirmed traces of water vapor ...")
            rec.attempts.append(Attempt("assemble", rec.text, Verdict(
                False, reasons=[f"makes the claim an earlier sentence made: {again.text[:80]}"])))
            rec.made, rec.text = "dropped", ""
            continue
        out.append(rec)
        said.append(rec.text)
    return out


def page_place(page: list[str], source: SourceSentence) -> int:
    """Where a source sentence stands on its page: its last mention as the page has it, or as the plan has it
    (the whole page follows the plan's own sentences, `writer.full_pages`, so the last mention is the page's
    own place); -1 when the page lacks it."""
    for text in (source.page, source.text):
        if text and text in page:
            return len(page) - 1 - page[::-1].index(text)
    return -1


def page_before(page: list[str], source: SourceSentence) -> list[str]:
    """The page's sentences before a source sentence, with those retrieval did not rank ("The scan revealed
    ..." after "... performed a more detailed CT scan.")."""
    return page[:max(page_place(page, source), 0)]


def named_in_full(text: str, first: str, page: list[str], said: list[str],
                  others: Sequence[str] = ()) -> tuple[str, str]:
    """The text with its first surname-only person named in full, as the page names them ("Gelsinger
    said" -> "Pat Gelsinger said"; a title goes with it; inside a quotation in square brackets: "“If elected,
    [Donald Trump] will be ...”"), or, when its page gives no full name, as the article's other pages
    (`others`: their sentences) give one; and the sentence that gives the name (cited beside the source).
    The text as it is and "" when neither gives a single full name."""
    found, giving = surname_referent(first, page, said), tuple(page)
    if found is not None and not found[1] and others and not full_names(tuple(page)).get(found[0]):
        found, giving = surname_referent(first, others, said), tuple(others)  # "Noem": "Kristi" is elsewhere
    if found is None or not found[1]:
        return text, ""
    surname, full = found
    titles = "|".join(re.escape(t) for t in sorted(TITLES, key=len, reverse=True))
    pattern = re.compile(rf"\b(?:(?i:{titles})\.?\s+)?{re.escape(surname)}\b(?!\s+[A-Z])")
    def named(m: re.Match[str]) -> str:  # inside a quotation, the editor's words in square brackets
        marked = quoted_at(text, m.start()) and text[m.start() - 1:m.start()] != "("
        return f"[{full}]" if marked else full  # "(James)" is the editor's already

    return pattern.sub(named, text, count=1), next((s for s in giving if full in s), "")


def named_institution(text: str, first: str, before: list[str], said: list[str]) -> tuple[str, str]:
    """The text with the definite subject its first sentence opens on named as its page names it ("The
    agency said" -> "The European Space Agency said"), when the page's nearest mention before it
    (`before`) is that proper name and the article before has not said it (`definite.institution_name`),
    and the page sentence that names it (cited beside the source, so a reader can check the name); the
    text as it is and "" otherwise. A possessive name takes no "The" ("Ford’s Mustang Mach E"); inside a
    quotation the name goes in square brackets."""
    noun = definite_subject(first)
    full, naming = institution_name(noun, before, said) if noun else ("", "")
    if not full:
        return text, ""
    match = re.search(rf"\bThe\s+(?:\w+\s+){{0,2}}?{re.escape(noun)}\b", text, re.I)
    if match is None:
        return text, ""
    named = full if re.search(r"\w['’]s\b", full) else f"{text[match.start()]}he {full}"  # "Ford’s Mustang Mach E"
    if quoted_at(text, match.start()):
        named = f"[{named}]"  # inside a quotation, the editor's words in square brackets
    return text[:match.start()] + named + text[match.end():], naming


def page_sentences(plan: WritePlan) -> dict[str, list[str]]:
    """Each source page's sentences in the plan, by url (where a surname's full name is looked up)."""
    out: dict[str, list[str]] = {}
    for s in plan.sentences:
        out.setdefault(s.url, []).append(s.text)
    return out


def _layout(guidance: str) -> str:
    """How a section's sentences are laid out: "bullets", "numbered" or "paragraph"."""
    g = guidance.lower()
    return "numbered" if "numbered list" in g else "bullets" if "bullet" in g else "paragraph"


def assemble(plan: WritePlan, records: list[SentenceRecord], headings: bool,
             pages: dict[str, list[str]] | None = None) -> str:
    """The article body: one `# ` headline, then each section's sentences in schema order. `pages`: each
    source page's sentences by url, where names and abbreviations are looked up (by default the plan's
    own sentences, `page_sentences`)."""
    out = [f"# {' '.join(plan.title.split())}"]
    kept = standing(records, plan.title, pages if pages is not None else page_sentences(plan))
    for si, sec in enumerate(plan.sections):
        lines = [_line(r) for r in kept if r.section == si]
        if not lines:
            continue
        layout = _layout(sec.guidance) if headings else "paragraph"
        if layout == "numbered":
            body = "\n".join(f"{k}. {line}" for k, line in enumerate(lines, 1))
        elif layout == "bullets":
            body = "\n".join(f"- {line}" for line in lines)
        else:
            body = " ".join(lines)
        out.append(f"## {sec.name}\n\n{body}" if headings else body)
    return "\n\n".join(out) + "\n"


MADE = ("quoted", "verbatim", "restated")


def counts(records: list[SentenceRecord]) -> dict[str, int]:
    """How many of the article's sentences were quoted, kept verbatim or restated (a record of two
    source sentences kept is two sentences)."""
    out = dict.fromkeys(MADE, 0)
    for r in records:
        if r.made in out:
            out[r.made] += max(1, len(split(r.text)))
    return out


def dropped(records: list[SentenceRecord]) -> int:
    """How many planned units were left out."""
    return sum(r.made == "dropped" for r in records)


def review(records: list[SentenceRecord]) -> list[dict[str, Any]]:
    """Each sentence of the article beside the source sentence(s) it came from, in the source's own
    words, with the words the writer wrote in (`text.edits.written_in`): `[{"sentence", "made", "sources":
    [{"n", "text"}], "written_in"}]`; restated ones first, then those with words written in, each in article
    order."""
    rows = [{"sentence": r.text, "made": r.made,
             "sources": [{"n": r.unit.n, "text": text} for text in r.evidence],
             "written_in": written_in(r.text, r.page_sources)}
            for r in records if r.made != "dropped"]
    return sorted(rows, key=lambda row: (row["made"] != "restated", not row["written_in"]))


def records_markdown(records: list[SentenceRecord]) -> str:
    """Every sentence's attempts, for the prompt file."""
    lines = ["## Sentences", ""]
    for k, r in enumerate(records, 1):
        lines.append(f"{k}. [{r.unit.n}] {r.made}: {r.text or '(dropped)'}")
        for a in r.attempts:
            why = "ok" if a.verdict.ok else "; ".join(a.verdict.reasons)
            lines.append(f"   - {a.kind} (support {a.verdict.support:.2f}, {why}): {a.output}")
    return "\n".join(lines) + "\n"
