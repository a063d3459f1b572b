"""The one sentence splitter: pysbd's English rules, which know abbreviations and initials.

"W. M. Keck", "U.S.", "Dr." and "Sept. 30" stay inside their sentence (pysbd made the fewest errors
of six splitters on 2,764 real paragraphs and 303 hand-labelled hard cases; docs/writing.md). A
piece that starts in lower case, with punctuation or a citation marker, or is a time zone after
"a.m."/"p.m." joins the piece before it (a split inside a sentence is never right).

`prose_mask` marks what is not prose (code, headings, tables, list markers) so that markers in code
are never citations and a heading never runs into the next sentence; `split_sentences` gives the
(start, end) offsets of the prose sentences of Markdown; `sentences` the sentences of plain text;
`split` the sentences of a source text line by line (a line break always ends a sentence), with
quotations a split cut open balanced again (what the write plan says).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_SKIP_LINE_RE = re.compile(r"^\s{0,3}(#{1,6}(\s|$)|([-*_]\s*){3,}$|\||<[a-zA-Z!/])")
LIST_RE = re.compile(r"^(\s*)([-*+]|\d{1,3}[.)])\s+")
_QUOTE_RE = re.compile(r"^\s{0,3}>\s?")
INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
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


#: What a clock time's "a.m."/"p.m." runs on into: a time zone, a day or a date ("at 10 a.m. Friday, Dec. 6",
#: "from 10:30 p.m. Aug. 9 to ...").
_CLOCK_RUNS_ON = re.compile(r"^(?:ET|EST|EDT|CT|CST|CDT|MT|PT|PST|PDT|GMT|BST|CET|UTC)\b"
                            r"|^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b"
                            r"|^(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)[a-z]*\.? \d")
_MARKER_START = re.compile(r"^\[\d")
#: A news lead's dateline: `HONOLULU, Hawaii (HawaiiNewsNow) - `, `(Reuters) — `, `WASHINGTON (AP) - `, and a
#: place list ending in a colon: `Washington, DC, United States: `; a place and a dash: `Indianapolis – `,
#: `New York, NY – `; a source in brackets run into the first word: `(CNN)President ...`, `Hong Kong (CNN
#: Business)A muddled view ...`; a place in capitals and a colon: `NEW DELHI: ` (five letters or more; not a
#: label such as `DEAR ABBY: `, `READ MORE: `).
DATELINE = re.compile(
    r"^(?:(?:[A-Z][A-Z.'’ -]*,?\s*)?\([A-Z][\w&.'’ ]{1,40}\)\s*[-—–]+\s*"
    r"|(?!(?:DEAR|SEE|READ|MORE|SOURCES?|WATCH|RELATED|PHOTOS?|VIDEOS?|NOTE|UPDATED?|EDITOR'?S?)\b)"
    r"(?=[A-Z -]{5,}:)[A-Z]{2,}(?:[ -][A-Z]{2,}){0,2}:\s+"
    r"|[A-Z][A-Z.'’-]+(?:[ ,]+[A-Z][\w.'’-]+){0,3}\s*(?:\([^)]{1,40}\))?\s*[-—–]+\s+"
    r"|[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*)*(?:, [A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*)*){1,3}:\s+"
    r"|[A-Z][a-z]+(?: [A-Z][a-z]+)?(?:, (?:[A-Z]{2}|[A-Z][a-z]{2,5}\.))?\s+[—–]\s+"
    r"|(?:[A-Z][\w.'’-]*(?: [A-Z][\w.'’-]*){0,3}\s+)?\([A-Z][\w&.'’ ]{1,40}\)(?=\S)|\([A-Z]{2,8}\)\s+)"
    r"(?=[A-Z\"“])")


@cache
def _segmenter() -> Any:
    """pysbd's English segmenter (built once; clean=False keeps the text unchanged)."""
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)


#: The longest text handed to pysbd at once: its rules cost more than linear time on one long run (85 KB
#: took 6.9 s), and a call in C never sees Ctrl-C. A longer line is cut first, at a sentence end if near.
PIECE_CHARS = 2000
#: What pysbd's English rules split at (sentence ends, list items "1) ..."): a piece without any is one piece.
_ENDS = re.compile(r"[.!?…。．！？)•]")
_CUT_AT = re.compile(r"[.!?][\"'”’)\]]*\s+|\s+")


def bounded_pieces(line: str, size: int = PIECE_CHARS) -> list[str]:
    """A line cut into consecutive pieces of at most `size` characters, each cut after the last sentence
    end in the second half of its piece, else at the last space, else hard (the pieces join to the line)."""
    out: list[str] = []
    start = 0
    while len(line) - start > size:
        window = line[start:start + size]
        ends = [m.end() for m in _CUT_AT.finditer(window, size // 2) if m.group()[0] in ".!?"]
        spaces = [m.end() for m in re.finditer(r"\s+", window[size // 2:])]
        cut = ends[-1] if ends else size // 2 + spaces[-1] if spaces else size
        out.append(line[start:start + cut])
        start += cut
    out.append(line[start:])
    return out


#: Two sentences a page's markup ran together with no space ("... as a chief physician.Police arrested ..."):
#: a lower-case word of two letters or more, its end mark, and a capitalised word; not inside an address
#: ("www.DearAbby.com").
_GLUED = re.compile(r"(?<=[a-z]{2}[.!?])(?=[A-Z][a-z]+\b)")
_ADDRESS = re.compile(r"\S*(?:www\.|://|@)\S*")


#: Abbreviations a name or a word may follow with no space ("Mrs.Smith", "vs.Chelsea"): no sentence ends there.
_ABBREVIATED = frozenset(("mrs", "ms", "messrs", "vs", "jr", "sr", "st", "inc", "co", "corp", "ltd", "etc", "approx",
                          "est", "vol", "fig", "feat", "dept", "univ", "gov", "govt"))


def unglued(piece: str) -> list[str]:
    """A piece cut where two sentences were run together with no space (the pieces join to the piece)."""
    addresses = [m.span() for m in _ADDRESS.finditer(piece)]
    cuts = [m.start() for m in _GLUED.finditer(piece) if not any(a < m.start() < b for a, b in addresses)
            and piece[:m.start() - 1].rsplit(None, 1)[-1].lower().lstrip("(\"“") not in _ABBREVIATED]
    return [piece[a:b] for a, b in zip([0, *cuts], [*cuts, len(piece)], strict=True)]


#: A sentence ending on a single capital letter ("... to win Group D. The day before, ..."), which pysbd takes for
#: a name's initial: the next word is one no name is ("The", "It", "In" ...), so a sentence ends there.
_LETTER_END = re.compile(r"(?<=\s[A-Z]\.)\s+(?=(?:The|A|An|It|Its|He|She|They|We|This|That|These|Those|There|In|On|"
                         r"At|But|And|Then|After|Before|When|While|If|As|Both|Each|All|Some|No)\s)")


def letter_ends(piece: str) -> list[str]:
    """A piece cut after a single capital letter ending a sentence (the pieces join to the piece)."""
    cuts = [m.end() for m in _LETTER_END.finditer(piece)]
    return [piece[a:b] for a, b in zip([0, *cuts], [*cuts, len(piece)], strict=True)]


@lru_cache(maxsize=8192)
def _pieces(line: str) -> tuple[str, ...]:
    """pysbd's sentences of one line of text, long lines cut into bounded pieces first, and sentences run
    together with no space cut apart (cached: sources are split again and again)."""
    segment = _segmenter().segment
    return tuple(part for piece in bounded_pieces(line)
                 for sentence in (segment(piece) if _ENDS.search(piece) else (piece,))
                 for glued in unglued(sentence) for part in letter_ends(glued))


#: A quotation ending in a question or an exclamation, and its speaker after it: one sentence ("“Can I give
#: it to James?” Brooke tearfully asked before apologizing"), which a split leaves as a speakerless quotation
#: and a verb with no object.
_ASKED = re.compile(r"[?!][”\"]\s*$")
_SPEAKER = re.compile(r"(?:[A-Z][\w.'’-]*\s+){1,4}(?:\w+ly\s+)?(?:said|says|asked|asks|added|adds|wrote|writes|told|"
                      r"shouted|replied|exclaimed|wondered|cried|joked|tweeted|continued|explained)\b")


#: A title before a name that pysbd takes for a sentence end ("the Rt. Hon. Boris Johnson", "Amb. Gordon Sondland").
_TITLE_END = re.compile(r"(?<![\w.])(?:Rt|Hon|Amb|Atty|Insp|Msgr|Fr|Pres)\.$")


#: A name with an exclamation mark in it ("a new report by E! News", "Yahoo! Finance"): no sentence ends there.
_BANG_NAME = re.compile(r"(?<![\w!])(?:E|Yahoo|Jeopardy)!$")


def _joins(piece: str, before: str) -> bool:
    """True when a piece continues the one before (lower case, punctuation, a closing quotation mark, a marker,
    a time zone, after a dot with a space before it: a wire service's code, "across the globe .MIWD00000PUS
    gained 0.02%"; or the speaker of a question or exclamation quoted before it, the rest of a name like "E!
    News", or a name after a title such as "Rt. Hon.")."""
    body = piece.lstrip()
    after_time = before.rstrip().endswith(("a.m.", "p.m.")) and bool(_CLOCK_RUNS_ON.match(body))
    return bool(body) and (body[0].islower() or body[0] in ",;:)]}”" or not body.strip("\"'’")  # a closing mark
                           or bool(_MARKER_START.match(body))
                           or after_time or bool(re.search(r"\s\.$", before.rstrip()))
                           or bool(_ASKED.search(before) and _SPEAKER.match(body))
                           or bool(_BANG_NAME.search(before.rstrip()))
                           or bool(_TITLE_END.search(before.rstrip()) and body[:1].isupper()))


def _spans(flat: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of one run of prose (fragments joined back)."""
    out: list[tuple[int, int]] = []
    pos = 0
    for piece in _pieces(flat):
        piece = piece.strip()
        if not piece:
            continue
        start = flat.find(piece, pos)
        if start < 0:  # pysbd never rewrites with clean=False; stay safe all the same
            start = pos
        end = start + len(piece)
        if out and _joins(piece, flat[out[-1][0]:out[-1][1]]):
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
        pos = end
    return out


def split_sentences(text: str, mask: str | None = None) -> list[tuple[int, int]]:
    """(start, end) offsets of the prose sentences of a Markdown text."""
    mask = prose_mask(text) if mask is None else mask
    out = []
    for s0, s1 in _segments(mask):
        flat = re.sub(r"[\r\n]", " ", mask[s0:s1]).replace(CODE, "x")  # same length as the text
        for a, b in _spans(flat):
            chunk = text[s0 + a:s0 + b]
            lead = len(chunk) - len(chunk.lstrip())
            trail = len(chunk) - len(chunk.rstrip())
            if b - trail > a + lead:
                out.append((s0 + a + lead, s0 + b - trail))
    return out


def sentences(text: str) -> list[str]:
    """The sentences of plain text (no Markdown structure: every character is prose)."""
    plain_mask = text.replace(BOUNDARY, " ").replace(CODE, " ")
    return [text[a:b] for a, b in split_sentences(text, plain_mask)]


def strip_dateline(sentence: str) -> str:
    """A sentence without its dateline ("HONOLULU, Hawaii (HawaiiNewsNow) - NASA ..." -> "NASA ...")."""
    return DATELINE.sub("", sentence, count=1)


def balance_quotes(sentence: str) -> str:
    """Close a quotation a split left open, or open one it left closed (quotes span sentences)."""
    opens, closes = sentence.count("“"), sentence.count("”")
    if opens != closes and sentence.count('"') % 2 and abs(opens - closes) == 1:
        return sentence  # a straight mark pairs with a curly one ("saying, "I am committed ... us.”")
    if opens > closes:
        return sentence + "”"
    if closes > opens:
        return "“" + sentence
    if sentence.count('"') % 2:
        last = sentence.rfind('"')
        closing = not re.search(r"\w", sentence[last:]) and last > 0
        return f'"{sentence}' if closing else f'{sentence}"'
    return sentence


def split(text: str) -> list[str]:
    """The sentences of a source text, line by line (a line break always ends a sentence)."""
    out: list[str] = []
    for line in text.splitlines():
        flat = " ".join(line.split())
        out += [balance_quotes(flat[a:b]) for a, b in _spans(flat)]
    return out
