"""Words and figures of a text: what matching and the numbers-and-names rule compare."""

from __future__ import annotations

import math
import re

from nonseq.text.markers import MARKER_RE
from nonseq.text.sentences import INLINE_CODE_RE

_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
WORD_RE = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
SPELLED = {w: str(i) for i, w in enumerate([
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
])}


def words(text: str) -> list[str]:
    """The words of a text (markers and inline code removed)."""
    return WORD_RE.findall(MARKER_RE.sub(" ", INLINE_CODE_RE.sub(" ", text)))


def lower_words(text: str) -> list[str]:
    """The words of a text, lower-case (markers and inline code removed)."""
    return [w.lower() for w in words(text)]


def numbers(text: str, spelled: bool = False) -> set[str]:
    """The figures in a text, normalised ('1,200' → '1200'); spelled ones too when asked."""
    found = {n.replace(",", "") for n in _NUMBER_RE.findall(text)}
    found = {n.rstrip("0").rstrip(".") if "." in n else n for n in found}
    if spelled:
        found |= {SPELLED[w] for w in re.findall(r"[a-z]+", text.lower()) if w in SPELLED}
    return found


def plain(sentence: str) -> str:
    """A sentence as words for matching: markers, inline code, links and emphasis removed."""
    text = MARKER_RE.sub(" ", INLINE_CODE_RE.sub(" ", sentence))
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return " ".join(re.sub(r"[*_]{1,3}(?=\S)|(?<=\S)[*_]{1,3}", "", text).split())


def estimate_tokens(text: str) -> int:
    """About four characters a token, for when no tokenizer is at hand."""
    return math.ceil(len(text) / 4) if text else 0
