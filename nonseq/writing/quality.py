"""The quality gate after generation: is this reply an article, or only a draft?

A reply is a draft when a body line echoes the instructions (shares `echo_words` consecutive words
with the writer's instructions), when lines repeat, when it has fewer than
`min_sentences` sentences (it is never padded), when too small a share of its sentences is
supported by the facts, or when more than `max_quoted_share` of them are quotations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nonseq.text.sentences import sentences
from nonseq.text.words import lower_words

if TYPE_CHECKING:
    from nonseq.config import WritingSettings
    from nonseq.verify.grounding import GroundingResult

_HEADLINE = re.compile(r"^\s*#\s")
#: The blind reading of the bench's test split (docs/writing.md, "The blind reading"), with the default
#: writer (the source's own words): the share of the sentences the checks passed that a reader kept,
#: and how many were read. The checks' own share is an estimate; this is its measured precision.
AUDIT: dict[str, float | int | str | None] = {"keep_share": 0.854, "sentences": 151, "split": "test"}  # docs/writing.md
#: The same reading of the writer with the model restating ([writing] restate = true): quoted for an
#: article that holds a restated sentence, whose precision the default's reading does not measure.
AUDIT_RESTATING: dict[str, float | int | str | None] = {"keep_share": 0.606, "sentences": 155, "split": "test"}


def summary_line(made: dict[str, int], checked_share: float) -> str:
    """How the sentences were made, and what the checks' share means (an estimate, with its audit)."""
    total = sum(made.get(k, 0) for k in ("quoted", "verbatim", "restated"))
    parts = ", ".join(f"{made.get(k, 0)} {k}" for k in ("quoted", "verbatim", "restated"))
    line = f"{total} sentences: {parts}; the checks pass {checked_share:.0%} (an estimate"
    audit = AUDIT_RESTATING if made.get("restated") else AUDIT
    if audit["keep_share"] is not None:
        line += (f"; a blind reading of {audit['sentences']} {audit['split']}-split sentences"
                 f"{' with the model restating' if made.get('restated') else ''} kept "
                 f"{float(str(audit['keep_share'])):.0%} of those the checks passed")
    return line + ")"


def _grams(words: Sequence[str], n: int) -> set[tuple[str, ...]]:
    """All runs of n consecutive words."""
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def echoed_lines(body: str, instructions: Sequence[str], n: int = 6) -> list[str]:
    """Body lines (the `# ` headline aside) sharing n consecutive words with the instructions."""
    known: set[tuple[str, ...]] = set()
    for text in instructions:
        for line in text.splitlines():
            known |= _grams(lower_words(line), n)
    return [line.strip() for line in body.splitlines()
            if line.strip() and not _HEADLINE.match(line) and _grams(lower_words(line), n) & known]


def repeated_lines(text: str, min_words: int = 4) -> list[str]:
    """Lines, or sentences within lines, of min_words+ words repeating earlier ones (a loop)."""
    seen: set[tuple[str, ...]] = set()
    out: list[str] = []
    for line in text.splitlines():
        units = sentences(line)
        for unit in ([line] if len(units) > 1 else []) + units:
            key = tuple(lower_words(unit))
            if len(key) < min_words:
                continue
            if key in seen and unit.strip() not in out:
                out.append(unit.strip())
            seen.add(key)
    return out


@dataclass
class Quality:
    """The gate's verdict and its figures."""

    draft: bool
    reasons: list[str] = field(default_factory=list)
    echoed: list[str] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)
    sentences: int = 0
    supported_share: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"draft": self.draft, "reasons": self.reasons, "echoed": self.echoed,
                "repeated": self.repeated, "sentences": self.sentences,
                "supported_share": round(self.supported_share, 3)}


def assess(body: str, grounding: GroundingResult, instructions: Sequence[str],
           cfg: WritingSettings, made: dict[str, int] | None = None) -> Quality:
    """The gate's tests on a grounded body (and on how its sentences were made, when given)."""
    echoed = echoed_lines(body, instructions, cfg.echo_words)
    repeated = repeated_lines(body)
    share = grounding.supported_share
    reasons = []
    if echoed:
        reasons.append(f"{len(echoed)} line(s) echo the instructions")
    if repeated:
        reasons.append(f"{len(repeated)} repeated line(s)")
    if grounding.sentences < cfg.min_sentences:
        reasons.append(f"{grounding.sentences} sentence(s), fewer than {cfg.min_sentences}")
    if share < cfg.min_supported_share:
        reasons.append(f"{share:.0%} of sentences supported, below "
                       f"{cfg.min_supported_share:.0%}")
    total = sum((made or {}).values())
    if made and total and made.get("quoted", 0) / total > cfg.max_quoted_share:
        reasons.append(f"{made['quoted']} of {total} sentences are quotations, more than "
                       f"{cfg.max_quoted_share:.0%}: a collage, not prose")
    return Quality(bool(reasons), reasons, echoed, repeated, grounding.sentences, share)
