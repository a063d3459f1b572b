"""Write the planned units: generate -> verify -> retry with less freedom -> quote -> drop.

Every unit of the plan is one call: the model restates one source sentence, or joins two, in one
sentence (a tiny prompt, greedy decoding, at most `unit_tokens` tokens, stopped at the first line
break). The sentence is verified against the unit's source sentences (`verify.rules.Verifier`:
hard rules, then the support check). A failure is retried once with less freedom (the unit's
first usable sentence alone, "shorten it, keep its words"); a second failure quotes the source sentence,
trimmed; a quotation that fails too (a repeat) is dropped. The citation is the plan's source
number, never the model's. Each sentence records how it was made: generated, repaired, quoted.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from nonseq.events import Kind, Progress, Step, emit
from nonseq.text.sentences import split
from nonseq.text.words import tokens
from nonseq.verify.rules import Verdict, Verifier

if TYPE_CHECKING:
    from nonseq.config import WritingSettings
    from nonseq.llm.base import LLM
    from nonseq.writing.plan import Unit, WritePlan

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
    retry: bool = True              # one retry with less freedom before quoting
    quote: bool = True              # quote the source sentence when the retry fails too


def compose_settings(cfg: WritingSettings) -> ComposeSettings:
    """The loop's knobs from [writing]."""
    return ComposeSettings(temperature=cfg.temperature, unit_tokens=cfg.unit_tokens,
                           pair_tokens=cfg.pair_tokens, retry=cfg.retry, quote=cfg.quote)


@dataclass
class Attempt:
    """One try at a unit's sentence."""

    kind: str          # "free", "literal", "quote"
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
    made: str = "dropped"   # generated, repaired, quoted or dropped
    text: str = ""
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def copy_ratio(self) -> float:
        """Word-sequence similarity of the sentence to its sources (1 = verbatim)."""
        return SequenceMatcher(None, tokens(self.text), tokens(self.unit.text)).ratio()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"section": self.section, "n": self.unit.n, "made": self.made, "text": self.text,
                "sources": [s.text for s in self.unit.sentences],
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


_SPEECH = re.compile(r"^[\"“](?P<quote>[^\"“”]{20,}?)[,.!?]?[\"”],?\s+(?P<who>[^\"“”]{2,80}?)\.?$")
#: The last sentence of a quotation whose opening mark is in an earlier sentence: `... decisions," Martins said."`
_SPEECH_TAIL = re.compile(r"^(?P<quote>[^\"“”]{20,}?)[,.!?]?[\"”],?\s+(?P<who>[^\"“”]{2,80}?)\.?[\"”]?$")
#: A news lead's dateline: `(Reuters) — `, `WASHINGTON (AP) - `.
_DATELINE = re.compile(r"^(?:[A-Z][A-Z.' -]*,?\s)?\([A-Z][\w&.' ]{1,30}\)\s*[—–-]+\s*")


def quotation(text: str, max_words: int) -> str:
    """A source sentence as a quotation: leading connective dropped, cut at a clause if long.

    Reported speech (`"...," she said.`, or only its end when the quotation began a sentence earlier)
    becomes `She said: “...”` (the same words, one pair of quotation marks); a news dateline
    (`(Reuters) — `) is dropped; anything else is put between quotation marks as it stands.
    """
    text = _DATELINE.sub("", text.strip())
    speech = _SPEECH.match(text) or _SPEECH_TAIL.match(text)
    if speech and len(tokens(speech["who"])) <= 14:
        who = speech["who"]
        if who.lower().startswith(("said ", "says ", "added ", "wrote ")):  # "said John Roth, head of X"
            verb, _, name = who.partition(" ")
            who = f"{name.rstrip(',')}, {verb.lower()}"
        who = who[:1].upper() + who[1:]
        return f"{who}: {quotation(speech['quote'], max_words)}"
    whole = re.fullmatch(r"[\"“](?P<inner>[^\"“”]+)[\"”]", text)
    body = _CONNECTIVE.sub("", whole["inner"] if whole else text)
    body = body[:1].upper() + body[1:]
    if len(tokens(body)) > max_words:
        cuts = [m.start() for m in re.finditer(r"[,;:—–]\s", body)
                if 8 <= len(tokens(body[:m.start()])) <= max_words]
        body = body[:cuts[-1]] + " …" if cuts else body
    body = body.replace("“", "‘").replace("”", "’").replace('"', "'")
    return f"“{body.rstrip('.!?,… ').rstrip()}{' …' if body.endswith('…') else ''}”"


class Composer:
    """Runs the loop over a plan with one LLM and one verifier."""

    def __init__(self, llm: LLM, verifier: Verifier, cfg: ComposeSettings | None = None,
                 progress: Progress | None = None) -> None:
        self.llm = llm
        self.verifier = verifier
        self.cfg = cfg or ComposeSettings()
        self.progress = progress

    def _try(self, kind: str, sources: list[str], text: str, rec: SentenceRecord) -> bool:
        """Verify one candidate sentence; record the attempt; accept it when it passes."""
        if not text:
            verdict = Verdict(False, reasons=["empty reply"])
        else:
            verdict = self.verifier.check(text, sources, quoted=kind == "quote")
        rec.attempts.append(Attempt(kind, text, verdict))
        if verdict.ok:
            self.verifier.accept(text)
            rec.text = text
        return verdict.ok

    def unit(self, section: int, unit: Unit) -> SentenceRecord:
        """One unit through generate -> verify -> retry -> quote -> drop."""
        rec = SentenceRecord(section, unit)
        sources = [s.text for s in unit.sentences]
        pair = len(sources) > 1
        cfg = self.cfg
        reply = ask(self.llm, messages(unit.text, pair, literal=False),
                    cfg.pair_tokens if pair else cfg.unit_tokens, cfg.temperature)
        if self._try("free", sources, clean(reply, len(sources)), rec):
            rec.made = "generated"
            return rec
        first = sources[0]  # less freedom: one sentence (a pair's second one leans on it)
        if cfg.retry:
            reply = ask(self.llm, messages(first, False, literal=True), cfg.unit_tokens, cfg.temperature)
            if self._try("literal", sources, clean(reply, 1), rec):
                rec.made = "repaired"
                return rec
        if cfg.quote and self._try("quote", sources, quotation(first, cfg.max_quote_words), rec):
            rec.made = "quoted"
        return rec

    def run(self, plan: WritePlan) -> list[SentenceRecord]:
        """Every unit of the plan, in article order."""
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
    """A record's sentences, each with the plan's source marker."""
    return " ".join(marked(s, rec.unit.n) for s in split(rec.text) or [rec.text])


def _layout(guidance: str) -> str:
    """How a section's sentences are laid out: "bullets", "numbered" or "paragraph"."""
    g = guidance.lower()
    return "numbered" if "numbered list" in g else "bullets" if "bullet" in g else "paragraph"


def assemble(plan: WritePlan, records: list[SentenceRecord], headings: bool) -> str:
    """The article body: one `# ` headline, then each section's sentences in schema order."""
    out = [f"# {' '.join(plan.title.split())}"]
    for si, sec in enumerate(plan.sections):
        lines = [_line(r) for r in records if r.section == si and r.made != "dropped"]
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


def counts(records: list[SentenceRecord]) -> dict[str, int]:
    """How many sentences were generated, repaired, quoted and dropped."""
    out = {"generated": 0, "repaired": 0, "quoted": 0, "dropped": 0}
    for r in records:
        out[r.made] += 1
    return out


def records_markdown(records: list[SentenceRecord]) -> str:
    """Every sentence's attempts, for the prompt file."""
    lines = ["## Sentences", ""]
    for k, r in enumerate(records, 1):
        lines.append(f"{k}. [{r.unit.n}] {r.made}: {r.text or '(dropped)'}")
        for a in r.attempts:
            why = "ok" if a.verdict.ok else "; ".join(a.verdict.reasons)
            lines.append(f"   - {a.kind} (support {a.verdict.support:.2f}, {why}): {a.output}")
    return "\n".join(lines) + "\n"
