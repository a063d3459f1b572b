"""Abbreviations a page spells out ("hypersensitivity pneumonitis (HP)", "..., or HP"), and putting the long
form back where an article uses the short one first ("When HP occurs" -> "When hypersensitivity pneumonitis
(HP) occurs").

A reader cannot follow a sentence whose abbreviation the article never spelled out; the page usually
did. The pairs are found with Schwartz and Hearst's algorithm ("A simple algorithm for identifying
abbreviation definitions in biomedical text", PSB 2003): a short form in parentheses (or after ", or")
whose letters appear, in order and from the end, in the words before it, its first letter opening a
word, within min(|S| + 5, 2|S|) words. An abbreviation no page spells out ("NASA") is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from nonseq.text.prose import QUOTATION

_SHORT = r"[A-Za-z][\w&.-]{0,8}[A-Za-z\d]"
#: "long form (SF)" and "long form, or SF" (the short form with at least one capital letter).
_PAREN = re.compile(rf"([^()]+?)\s*\(({_SHORT})\)")
_OR = re.compile(rf"([^,;:()]+?),\s+or\s+({_SHORT})\b")
_WORDS = re.compile(r"[\w'’-]+")


def long_form(short: str, before: str) -> str:
    """The long form of `short` at the end of `before` (Schwartz-Hearst), "" when there is none."""
    starts = [m.start() for m in _WORDS.finditer(before)][-min(len(short) + 5, 2 * len(short)):]
    if not starts:
        return ""
    text = before[starts[0]:].rstrip()
    s, i = len(short) - 1, len(text) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while i >= 0 and (text[i].lower() != c or (s == 0 and i > 0 and text[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return ""
        i, s = i - 1, s - 1
    found = text[i + 1:]
    return found if found.lower() != short.lower() and len(found) > len(short) else ""


def definitions(sentences: Iterable[str]) -> dict[str, str]:
    """Short form -> long form for every abbreviation the sentences spell out (the shortest wins); a long
    form that opens its sentence in lower-case words after the first ("Binge eating disorder (BED)") is
    given in lower case."""
    out: dict[str, str] = {}
    for sentence in sentences:
        for pattern in (_PAREN, _OR):
            for m in pattern.finditer(sentence):
                short = m[2]
                if not any(ch.isupper() for ch in short):
                    continue
                found = long_form(short, m[1])
                if not found:
                    continue
                rest = found.split()[1:]
                if sentence.lstrip().startswith(found) and rest and all(w.islower() for w in rest):
                    found = found[0].lower() + found[1:]
                if short not in out or len(found) < len(out[short]):  # the shortest the pages give
                    out[short] = found
    return out


def spelled_out(text: str, said: Sequence[str], defs: dict[str, str]) -> str:
    """The text with each abbreviation that the article before it (`said`) has not used, and that `defs`
    (`definitions` of its pages) spells out, put as "long form (SF)" where it first stands.
    An abbreviation inside a quotation is left alone (a quotation keeps its words)."""
    if not defs:
        return text
    quoted = [m.span() for m in QUOTATION.finditer(text)]
    before = " ".join(said)
    edits: dict[str, tuple[int, int, str]] = {}
    for m in re.finditer(rf"\b{_SHORT}\b", text):
        short, found = m[0], defs.get(m[0], "")
        if not found or short in edits or any(a <= m.start() < b for a, b in quoted):
            continue
        if re.search(rf"\b{re.escape(short)}\b", before) or found.lower() in text.lower():
            continue
        found = found[0].upper() + found[1:] if m.start() == 0 else found
        edits[short] = (m.start(), m.end(), f"{found} ({short})")
    for start, end, said_as in sorted(edits.values(), reverse=True):
        text = text[:start] + said_as + text[end:]
    return text
