"""Is a claim its source's own words: each of its sentences a source sentence, kept whole or with words only cut?

A cut keeps what the source says unless the cut words carry meaning of their own: a negation, a hedge
or condition ("may", "if"), or a word that qualifies a quantity or a claim ("about", "more than",
"former", "alleged"). A claim that needed such a cut is not verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nonseq.text.furniture import FOOTNOTE_NUMBER

#: Words whose cut changes what a sentence says (negation, modality, condition, comparison, degree,
#: quantity, time and standing qualifiers). A general-English list; nothing in it is fitted.
MEANING_WORDS = frozenset((
    "not", "no", "never", "nor", "neither", "none", "nothing", "nobody", "without", "cannot", "t",
    "may", "might", "could", "would", "should", "must", "can", "perhaps", "possibly", "probably", "likely",
    "unlikely", "if", "unless", "whether", "although", "though", "except", "only", "just", "even",
    "than", "more", "less", "most", "least", "fewer", "over", "under", "about", "around", "approximately",
    "nearly", "almost", "roughly", "some", "many", "few", "several", "all", "every", "each", "any",
    "former", "formerly", "ex", "alleged", "allegedly", "reportedly", "reported", "claimed", "suspected",
    "once", "previously", "until", "before", "after", "since", "still", "yet", "already", "anti", "non",
))
_WORD = re.compile(r"\w+")
MIN_WORDS = 4  # a shorter claim is too little text to call a cut faithful


def _words(text: str) -> list[str]:
    """The lower-case words of a text, footnote markers left out."""
    return _WORD.findall(FOOTNOTE_NUMBER.sub(" ", text).lower())


def cut_from(part: list[str], sentence: list[str]) -> bool:
    """True when `part` is `sentence` with words only cut, and no cut word of MEANING_WORDS qualifies what
    is kept: none inside it, nor the word just before or just after it (the earliest in-order match)."""
    i, first, last = 0, -1, -1
    for j, word in enumerate(sentence):
        if i < len(part) and word == part[i]:
            first = j if i == 0 else first
            last, i = j, i + 1
        elif 0 < i < len(part) and word in MEANING_WORDS:
            return False
    if i < len(part):
        return False
    around = sentence[first - 1:first] + sentence[last + 1:last + 2]
    return not any(w in MEANING_WORDS for w in around)


def _parts(text: str) -> list[list[str]]:
    """The words of each sentence of a text; a piece under MIN_WORDS words (a split after "Dec.") joins the
    sentence before it."""
    from nonseq.text.sentences import sentences

    out: list[list[str]] = []
    for piece in sentences(text) or [text]:
        words = _words(piece)
        if out and len(words) < MIN_WORDS:
            out[-1] += words
        elif words:
            out.append(words)
    return out


def verbatim(claim: str, source_sentences: Sequence[str]) -> bool:
    """True when each sentence of the claim is a source sentence, whole or with words only cut."""
    given = [p for s in source_sentences for p in _parts(s)]
    parts = _parts(claim)
    return bool(parts) and all(len(p) >= MIN_WORDS and any(cut_from(p, s) for s in given) for p in parts)
