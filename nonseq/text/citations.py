"""Editing the citation markers of a Markdown text: keep the valid ones, drop orphans, count them."""

from __future__ import annotations

import re
from collections.abc import Callable

from nonseq.text.markers import ANY_MARKER_RE, MARKER_RE, RUN_RE, expand_marker
from nonseq.text.sentences import LIST_RE, in_prose, prose_mask
from nonseq.text.words import words


def resolve_markers(text: str, valid: set[int]) -> tuple[str, int, int]:
    """Keep [n] naming a listed source, drop the rest, merge runs like [1][1, 3] into [1][3].

    Returns (text, resolved, removed): numbers kept and numbers dropped (once per run).
    """
    mask = prose_mask(text)
    pieces: list[str] = []
    last = resolved = removed = 0
    for run in RUN_RE.finditer(text):
        if not in_prose(mask, run.start(), run.end()):
            continue  # inside code, a heading or a table: not a citation
        nums = list(dict.fromkeys(n for m in MARKER_RE.finditer(run.group())
                                  for n in expand_marker(m.group(1))))
        good = [n for n in nums if n in valid]
        resolved += len(good)
        removed += len(nums) - len(good)
        start = run.start()
        if not good:
            while start > last and text[start - 1] in " \t":
                start -= 1
        pieces += [text[last:start], "".join(f"[{n}]" for n in good)]
        last = run.end()
    pieces.append(text[last:])
    return "".join(pieces), resolved, removed


def drop_orphan_markers(text: str, min_words: int = 3) -> tuple[str, int]:
    """Remove markers on lines with fewer than min_words words: a citation needs a claim.

    Returns the text and how many marker numbers were removed.
    """
    out: list[str] = []
    dropped = 0
    for line in text.split("\n"):
        if MARKER_RE.search(line) and len(words(line)) < min_words:
            dropped += sum(len(expand_marker(m.group(1))) for m in MARKER_RE.finditer(line))
            line = re.sub(rf"[ \t]*(?:{RUN_RE.pattern})", "", line).rstrip()
            if not re.search(r"\w", LIST_RE.sub("", line)):
                line = ""
        out.append(line)
    return "\n".join(out), dropped


def count_citations(text: str) -> int:
    """Citation markers in the prose of a text (each number counts once per marker)."""
    mask = prose_mask(text)
    return sum(len(expand_marker(m.group(1))) for m in MARKER_RE.finditer(text)
               if in_prose(mask, m.start(), m.end()))


_CODE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}\1[ \t]*$|\Z)|`[^`\n]*`",
                      re.DOTALL | re.MULTILINE)


def _outside_code(text: str, fix: Callable[[str], str]) -> str:
    """Apply fix to the text outside fenced and inline code."""
    out, last = [], 0
    for m in _CODE_RE.finditer(text):
        out += [fix(text[last:m.start()]), m.group(0)]
        last = m.end()
    return "".join([*out, fix(text[last:])])


def cited_numbers(text: str) -> list[int]:
    """Source numbers in brackets anywhere outside code (headings, lists, tables too), in order."""
    found: list[int] = []

    def collect(part: str) -> str:
        """Note the numbers of the markers in a part and return it unchanged."""
        found.extend(n for m in ANY_MARKER_RE.finditer(part) for n in expand_marker(m.group(1)))
        return part

    _outside_code(text, collect)
    return list(dict.fromkeys(found))


def resolve_everywhere(text: str, valid: set[int]) -> str:
    """Keep only bracketed integers naming a valid source, wherever they stand; drop the rest."""
    def fix(m: re.Match[str]) -> str:
        """The marker with only its valid numbers, or nothing when none is valid."""
        good = [n for n in expand_marker(m.group(1)) if n in valid]
        lead = m.group(0)[:len(m.group(0)) - len(m.group(0).lstrip(" \t"))]
        return lead + "".join(f"[{n}]" for n in good) if good else ""

    return _outside_code(text, lambda part: ANY_MARKER_RE.sub(fix, part))
