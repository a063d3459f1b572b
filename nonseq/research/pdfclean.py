"""PDF page text cleaning: running headers and footers removed, hyphenation joined, lines reflowed.

Works on any extractor's page texts (`clean_pages`); with PDFium's line geometry (`Line.y`, `Line.size`)
paragraphs are found from the line spacing, otherwise from line lengths. The result is one paragraph
per line, the form the chunker expects. The defaults (a band of 2 lines, a window of +-2 pages) were
fixed before measuring and are within 0.0005 F1 of the best on the tune split (docs/documents.md).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st", "\u00a0": " ", "\u2002": " ", "\u2003": " ",
                            "\x00": None})
_SOFT_MARKS = "\ufffe\u00ad\x02"  # PDFium marks a hyphen it judged soft with U+FFFE
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?$", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_BULLET = re.compile(r"^(?:[•◦▪‣∙·*–-]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s")
_SENTENCE_END = re.compile(r"[.!?:;][\"'”’)\]]?$")
#: PDFium joins a line-end hyphenation itself and leaves U+FFFE inside the word: kept as U+00AD until decided.
_INLINE_MARKS = {ord("\ufffe"): "\u00ad", ord("\x02"): "\u00ad"}
_INLINE_HYPHEN = re.compile(r"(\w+)\u00ad(\w+)")
_WORD_END = re.compile(r"(\w+)[-\u2010]$")
_WORD_START = re.compile(r"^([a-z]\w*)(\S*)\s*")


@dataclass
class Line:
    """One visual line: its text, baseline y and font size (PDF points) when the extractor knows them."""

    text: str
    y: float | None = None
    size: float | None = None


@dataclass(frozen=True)
class CleanOptions:
    """Knobs of clean_pages (defaults fixed before the benchmark)."""

    band: int = 2  # lines at the top and at the bottom of a page checked for running headers/footers
    window: int = 2  # pages either side a running line must recur on (2 covers odd/even headers)
    strip_running: bool = True
    dehyphenate: bool = True
    reflow: bool = True


def clean_pages(pages: Sequence[str | list[Line]], options: CleanOptions | None = None) -> list[str]:
    """Page texts with running headers/footers removed, hyphenation joined, lines reflowed."""
    opts = options or CleanOptions()
    lines = [normalise(p if isinstance(p, list) else [Line(x) for x in p.splitlines()]) for p in pages]
    if opts.strip_running:
        lines = strip_running_lines(lines, opts.band, opts.window)
    if opts.dehyphenate:
        dehyphenate_lines(lines)
    else:
        for line in (x for p in lines for x in p):
            line.text = line.text.replace("\u00ad", "-")
    if opts.reflow:
        return [reflow(p) for p in lines]
    return ["\n".join(x.text for x in p) for p in lines]


def normalise(lines: list[Line]) -> list[Line]:
    """Ligatures expanded, soft-hyphen marks made '-' at line ends (kept as U+00AD inside), blanks dropped."""
    out = []
    for line in lines:
        text = line.text.translate(_LIGATURES)
        stripped = text.rstrip()
        if stripped and stripped[-1] in _SOFT_MARKS:
            stripped = stripped.rstrip(_SOFT_MARKS) + "-"
        text = " ".join(unicodedata.normalize("NFC", stripped).translate(_INLINE_MARKS).split())
        if text:
            out.append(Line(text, line.y, line.size))
    return out


def _line_key(line: str) -> str:
    """A line with digits masked, for recognising running headers with page numbers."""
    return _DIGITS.sub("#", line.lower())


def strip_running_lines(pages: list[list[Line]], band: int = 2, window: int = 2) -> list[list[Line]]:
    """Drop page numbers and lines in the top/bottom band that recur on a page within `window` pages."""
    keys = [[_line_key(x.text) for x in p] for p in pages]
    out = []
    for i, lines in enumerate(pages):
        near = [keys[j] for j in range(max(0, i - window), min(len(pages), i + window + 1)) if j != i]
        edges = set(range(min(band, len(lines)))) | set(range(max(0, len(lines) - band), len(lines)))
        drop = {pos for pos in edges
                if _PAGE_NUMBER.match(lines[pos].text) or _recurs(keys[i][pos], pos < band, near, band)}
        out.append([x for k, x in enumerate(lines) if k not in drop])
    return out


def _recurs(key: str, top: bool, near: list[list[str]], band: int) -> bool:
    """True when a nearby page has the same masked line in the same band (top or bottom)."""
    return any(key in (other[:band] if top else other[-band:]) for other in near)


def dehyphenate_lines(pages: list[list[Line]]) -> None:
    """Join words hyphenated at line ends (in place): keep the hyphen when the document spells it so."""
    vocabulary = Counter(w.lower() for p in pages for x in p for w in re.findall(r"\w+(?:-\w+)*", x.text))

    def word(left: str, right: str) -> str:
        """The joined word, or the hyphenated one when the document prefers it (or it is capitalised)."""
        keep = right[0].isupper() or vocabulary[f"{left}-{right}".lower()] > vocabulary[(left + right).lower()]
        return f"{left}-{right}" if keep else left + right

    for lines in pages:
        for k, line in enumerate(lines):
            line.text = _INLINE_HYPHEN.sub(lambda m: word(m.group(1), m.group(2)), line.text).replace("\u00ad", "-")
            nxt = lines[k + 1] if k + 1 < len(lines) else None
            end = _WORD_END.search(line.text)
            start = _WORD_START.match(nxt.text) if nxt is not None else None
            if end and start and nxt is not None:
                line.text = line.text[:end.start()] + word(end.group(1), start.group(1)) + start.group(2)
                nxt.text = nxt.text[start.end():]
        lines[:] = [x for x in lines if x.text]


def reflow(lines: list[Line]) -> str:
    """Visual lines joined into paragraphs, one per line; by line spacing when known, else by length."""
    if not lines:
        return ""
    geometry = all(x.y is not None and x.size for x in lines)
    breaks = _geometry_breaks(lines) if geometry else _length_breaks(lines)
    paragraphs: list[str] = []
    current: list[str] = []
    for line, brk in zip(lines, breaks, strict=True):
        if current and (brk or _BULLET.match(line.text)):
            paragraphs.append(" ".join(current))
            current = []
        current.append(line.text)
    paragraphs.append(" ".join(current))
    return "\n".join(paragraphs)


def _geometry_breaks(lines: list[Line]) -> list[bool]:
    """A paragraph starts where the baseline gap exceeds 1.3x the page's usual one, or the size changes."""
    gaps = [(a.y or 0.0) - (b.y or 0.0) for a, b in itertools.pairwise(lines)]
    usual = sorted(g for g in gaps if g > 0)
    pitch = usual[len(usual) // 3] if usual else 0.0
    out = [True]
    for (a, b), gap in zip(itertools.pairwise(lines), gaps, strict=True):
        size_a, size_b = a.size or 0.0, b.size or 0.0
        size_change = abs(size_a - size_b) > 0.15 * max(size_a, size_b)
        out.append(gap <= 0 or gap > 1.3 * pitch or size_change)
    return out


def _length_breaks(lines: list[Line]) -> list[bool]:
    """Without geometry: a paragraph starts after a short line that ends a sentence (or is very short)."""
    widths = sorted(len(x.text) for x in lines)
    full = widths[int(len(widths) * 0.8)]
    out = [True]
    for a in lines[:-1]:
        n = len(a.text)
        out.append(n < 0.75 * full and (bool(_SENTENCE_END.search(a.text)) or n < 0.4 * full))
    return out


def visible_chars(texts: Sequence[str]) -> int:
    """Non-whitespace characters in the texts."""
    return sum(len(t) - sum(1 for c in t if c.isspace()) for t in texts)
