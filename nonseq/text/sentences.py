"""The one sentence splitter: prose sentences of Markdown or plain text, abbreviations and initials kept.

`prose_mask` marks what is not prose (code, headings, tables, list markers) so that markers in code
are never citations and a heading never runs into the next sentence; `split_sentences` gives the
(start, end) offsets of the prose sentences; `sentences` the sentences of plain text.
"""

from __future__ import annotations

import re

from nonseq.text.markers import MARKER_TAIL

_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_SKIP_LINE_RE = re.compile(r"^\s{0,3}(#{1,6}(\s|$)|([-*_]\s*){3,}$|\||<[a-zA-Z!/])")
LIST_RE = re.compile(r"^(\s*)([-*+]|\d{1,3}[.)])\s+")
_QUOTE_RE = re.compile(r"^\s{0,3}>\s?")
_END_RE = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*" + MARKER_TAIL)
INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
ABBREVIATIONS = frozenset([
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "inc", "ltd", "co", "corp", "st",
    "jr", "sr", "no", "fig", "approx", "cf", "al", "est", "dept", "gen", "gov", "jan", "feb",
    "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "e.u",
])
BOUNDARY = "\x00"  # prose_mask: not prose (and a hard sentence break)
CODE = "\x01"  # prose_mask: inline code (inside a sentence, but never a citation)


def prose_mask(text: str) -> str:
    """text with every non-prose character (code, headings, list markers...) set to BOUNDARY."""
    out: list[str] = []
    fence = ""
    prev_quote = False
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        end = line[len(body):]
        m = _FENCE_RE.match(body)
        if fence or m:
            if m and not fence:
                fence = m.group(1)[0] * len(m.group(1))
            elif m and body.strip().startswith(fence) and not body.strip().strip(fence[0]):
                fence = ""
            out.append(BOUNDARY * len(line))
            continue
        if not body.strip() or _SKIP_LINE_RE.match(body):
            out.append(BOUNDARY * len(line))
            prev_quote = False
            continue
        prefix = 0
        q = _QUOTE_RE.match(body)
        if q:
            prefix = q.end()
        li = LIST_RE.match(body, prefix)
        hard = li is not None or (q is not None and not prev_quote)
        if li:
            prefix = li.end()
        prev_quote = q is not None
        masked = (BOUNDARY if hard else " ") * prefix + body[prefix:]
        masked = INLINE_CODE_RE.sub(lambda c: CODE * len(c.group()), masked)
        out.append(masked + end)
    return "".join(out)


def in_prose(mask: str, start: int, end: int) -> bool:
    """True when text[start:end] is plain prose (not code, a heading, a table...)."""
    span = mask[start:end]
    return BOUNDARY not in span and CODE not in span


def _segments(mask: str) -> list[tuple[int, int]]:
    """Runs of prose between boundaries, as (start, end) offsets."""
    return [(m.start(), m.end()) for m in re.finditer(f"[^{BOUNDARY}]+", mask)
            if m.group().strip()]


def _is_boundary(seg: str, m: re.Match[str]) -> bool:
    """True when a sentence-ending match really ends a sentence (not an abbreviation)."""
    rest = seg[m.end():]
    if rest.strip() and not rest[:1].isspace():
        return False
    nxt = rest.lstrip()[:1]
    if nxt and not (nxt.isupper() or nxt.isdigit() or nxt in "\"'\u201c\u2018([*_"):
        return False
    before = re.search(r"([\w.]+)$", seg[:m.start()])
    if m.group().startswith(".") and before:
        word = before.group(1).lower().rstrip(".")
        if word in ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
            return False
    return True


def split_sentences(text: str, mask: str | None = None) -> list[tuple[int, int]]:
    """(start, end) offsets of the prose sentences of a Markdown text."""
    mask = prose_mask(text) if mask is None else mask
    spans = []
    for s0, s1 in _segments(mask):
        seg = mask[s0:s1]
        start = 0
        for m in _END_RE.finditer(seg):
            if _is_boundary(seg, m):
                spans.append((s0 + start, s0 + m.end()))
                start = m.end()
        spans.append((s0 + start, s1))
    out = []
    for a, b in spans:
        chunk = text[a:b]
        lead = len(chunk) - len(chunk.lstrip())
        trail = len(chunk) - len(chunk.rstrip())
        if b - trail > a + lead:
            out.append((a + lead, b - trail))
    return out


def sentences(text: str) -> list[str]:
    """The sentences of plain text (no Markdown structure: every character is prose)."""
    plain_mask = text.replace(BOUNDARY, " ").replace(CODE, " ")
    return [text[a:b] for a, b in split_sentences(text, plain_mask)]
