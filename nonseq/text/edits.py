"""What a sentence says that its source sentence(s) do not say there: the words a writer wrote in or moved."""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

_MARKS = re.compile(r"[\W_]+")


def _key(word: str) -> str:
    """A word as the comparison reads it: lower case, without its punctuation and quotation marks."""
    return _MARKS.sub("", word.lower())


def written_in(sentence: str, sources: Sequence[str]) -> list[str]:
    """The runs of the sentence's words that its sources do not hold at that place, in order, as the sentence
    has them ("According to Vox,", "2019,", "Lucas Paganini"): what the writer added, named or moved, case and
    punctuation aside; [] for the sources' own words."""
    words = sentence.split()
    at = [i for i, word in enumerate(words) if _key(word)]
    source = [k for word in " ".join(sources).split() if (k := _key(word))]
    matcher = SequenceMatcher(None, source, [_key(words[i]) for i in at], autojunk=False)
    return [" ".join(words[at[j1]:at[j2 - 1] + 1])
            for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in ("insert", "replace")]
