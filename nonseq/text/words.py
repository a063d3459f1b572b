"""Words and figures of a text: what matching and the numbers-and-names rule compare."""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from pathlib import Path

from nonseq.text.markers import MARKER_RE
from nonseq.text.sentences import INLINE_CODE_RE

_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
WORD_RE = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")
_TOKEN_RE = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
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


def tokens(text: str) -> list[str]:
    """The words of a text split at hyphens too, lower case (what the writer counts and compares)."""
    return [w.lower() for w in _TOKEN_RE.findall(text)]


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


#: The bundled MiniLM's uncased WordPiece vocabulary: about 30,000 common English words and word pieces.
_VOCABULARY = Path(__file__).resolve().parent.parent / "assets" / "minilm" / "tokenizer.json"


@lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    """The whole words of the bundled vocabulary (no "##" pieces, no bracketed specials)."""
    vocab = json.loads(_VOCABULARY.read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(w for w in vocab if w.isalpha())


def common_word(word: str) -> bool:
    """True when the word, in lower case, is a whole word of the bundled common-English vocabulary
    ("research", "europa"); a rarer word ("Clipper", "Dragonfly") is not."""
    return word.lower() in _common_words()
