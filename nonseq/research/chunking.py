"""Chunking: paragraph-aware, sentence-bounded token windows with overlap and a provenance header."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace

from nonseq.models import CUT_START_KEY, SECTION_KEY, SITE_KEY, Chunk, SourceKind, provenance_header
from nonseq.research.extract import Document
from nonseq.text.sentences import sentences

#: Tokens the embedder adds around every text ([CLS] and [SEP] for BERT-like models).
SPECIAL_TOKENS = 2
#: Payload key of where, in a chunk's text, each of its pages after the first begins.
PAGE_BREAKS_KEY = "page_breaks"
CountTokens = Callable[[str], int]
#: Shortest overlap (characters) taken as the shared edge of two consecutive chunks.
MIN_OVERLAP = 12


@dataclass
class _Unit:
    """A sentence (or a piece of one) with its token count and paragraph."""

    text: str
    tokens: int
    para: int
    starts_para: bool
    page: int = 0
    mid: bool = False  # a piece that starts inside its sentence (an over-long sentence's later piece, a word tail)


class Chunker:
    """Packs a document's sentences into windows of at most `size` tokens with `overlap` tokens."""

    def __init__(self, count_tokens: CountTokens, size: int = 200, overlap: int = 40,
                 max_tokens: int = 256, *, drop: Callable[[str], bool] | None = None) -> None:
        self.count = count_tokens
        self.size = size
        self.overlap = overlap
        self.max_tokens = max_tokens
        #: Sentences for which drop() is true never reach a chunk (research: text.instructions.is_instruction).
        self.drop = drop

    def limit_for(self, header: str) -> int:
        """The text budget of a chunk once the header and special tokens are counted."""
        reserved = SPECIAL_TOKENS + (self.count(header) + 1 if header else 0)
        return max(8, min(self.size, self.max_tokens - reserved))

    def split(self, text: str, limit: int | None = None) -> list[str]:
        """Texts of the windows: paragraphs kept whole when they fit, never cut mid-word."""
        return list(self.windows(text, limit))

    def windows(self, text: str, limit: int | None = None) -> Iterator[str]:
        """The windows of split(), made as they are asked for: a paragraph is read only when it is needed.

        Taking the first n windows of a huge text costs the work of n windows, not of the whole text.
        """
        return (_join(window) for window in self._windows(text, limit))

    def _windows(self, text: str, limit: int | None = None,
                 line_pages: Sequence[int] = ()) -> Iterator[list[_Unit]]:
        """The windows' units, lazily (each unit knows its page when line_pages numbers the text's lines)."""
        limit = limit or self.size
        overlap = min(self.overlap, limit // 2)
        units = _Units(self._paragraph_units(text, limit, line_pages))
        current: list[_Unit] = []
        fresh = 0
        i = 0
        while units.has(i):
            unit = units[i]
            used = sum(u.tokens for u in current)
            rest_of_para_too_big = used + units.para_tokens[unit.para] > limit
            boundary = unit.starts_para and used >= limit // 2 and rest_of_para_too_big
            if fresh and (used + unit.tokens > limit or boundary):
                window, given_back = self._emit(current, fresh, limit)
                yield window
                i -= given_back
                current, fresh = self._tail(current, overlap, units[i], limit), 0
                units.forget_before(i)
                i = 0
                continue
            current.append(unit)
            fresh += 1
            i += 1
        if fresh:
            yield self._emit(current, fresh, limit)[0]

    def chunks(self, doc: Document, *, topic_slug: str, category: str, domain: str,
               trust_boost: float = 0.0,
               source_kind: SourceKind = SourceKind.RESEARCH) -> list[Chunk]:
        """The document's chunks with full provenance, numbered from 0."""
        return list(self.iter_chunks(doc, topic_slug=topic_slug, category=category, domain=domain,
                                     trust_boost=trust_boost, source_kind=source_kind))

    def iter_chunks(self, doc: Document, *, topic_slug: str, category: str, domain: str,
                    trust_boost: float = 0.0,
                    source_kind: SourceKind = SourceKind.RESEARCH) -> Iterator[Chunk]:
        """chunks(), one at a time as they are asked for (so that a cap stops the work too)."""
        header = provenance_header(domain, doc.title, doc.published)
        digest = doc.content_hash
        for n, window in enumerate(self._windows(doc.text, self.limit_for(header), doc.line_pages)):
            chunk = Chunk(text=_join(window), topic_slug=topic_slug, category=category, url=doc.url,
                          domain=domain, title=doc.title, published=doc.published, content_hash=digest,
                          trust_boost=trust_boost, source_kind=source_kind, position=n)
            if doc.section:
                chunk.extra[SECTION_KEY] = doc.section
            if doc.site_name:
                chunk.extra[SITE_KEY] = doc.site_name
            if window and window[0].mid:  # it begins with the end of a sentence the chunk before holds
                chunk.extra[CUT_START_KEY] = len(window[0].text)
            if doc.line_pages:
                chunk.pages, breaks = _pages_of(window)
                if breaks:
                    chunk.extra[PAGE_BREAKS_KEY] = breaks
            yield chunk

    # -- internals ---------------------------------------------------------------------------
    def _paragraph_units(self, text: str, limit: int, line_pages: Sequence[int] = ()) -> Iterator[list[_Unit]]:
        """The units of each paragraph (one per non-empty line), paragraph by paragraph; long sentences cut at words."""
        para = 0
        for line in text.splitlines():
            paragraph = line.strip()
            if not paragraph:
                continue
            page = line_pages[para] if para < len(line_pages) else 0
            units: list[_Unit] = []
            for sentence in sentences(paragraph):
                if self.drop is not None and self.drop(sentence):
                    continue
                tokens = self.count(sentence)
                pieces = [(sentence, tokens)] if tokens <= limit else self._words(sentence, limit)
                for k, (piece, n) in enumerate(pieces):
                    units.append(_Unit(piece, n, para, not units, page, mid=k > 0))
            if units:
                yield units
            para += 1

    def _words(self, sentence: str, limit: int) -> list[tuple[str, int]]:
        """Split an over-long sentence into runs of whole words of at most `limit` tokens."""
        pieces: list[tuple[str, int]] = []
        words: list[str] = []
        used = 0
        for word in sentence.split():
            n = self.count(word)
            if n > limit:  # a single "word" longer than a chunk (a hash, a URL): cut by characters
                pieces.extend(self._characters(word, limit))
                continue
            if words and used + n > limit:
                pieces.append((" ".join(words), used))
                words, used = [], 0
            words.append(word)
            used += n
        if words:
            pieces.append((" ".join(words), used))
        return pieces

    def _characters(self, word: str, limit: int) -> list[tuple[str, int]]:
        """Cut a pathological word into pieces that fit (the only place text is cut inside a word)."""
        step = max(1, len(word) * limit // max(1, self.count(word)) // 2)
        return [(word[i:i + step], self.count(word[i:i + step]))
                for i in range(0, len(word), step)]

    def _emit(self, current: list[_Unit], fresh: int, limit: int) -> tuple[list[_Unit], int]:
        """The window's units, giving back trailing units if its joined text is too long (and how many)."""
        given_back = 0
        text = _join(current)
        while fresh - given_back > 1 and self.count(text) > limit:
            current.pop()
            given_back += 1
            text = _join(current)
        return list(current), given_back

    def _tail(self, window: list[_Unit], overlap: int, following: _Unit, limit: int) -> list[_Unit]:
        """The trailing units of a window (at most `overlap` tokens) that start the next one."""
        if overlap <= 0:
            return []
        room = min(overlap, limit - following.tokens)
        tail: list[_Unit] = []
        used = 0
        for unit in reversed(window):
            if used + unit.tokens > room:
                break
            tail.insert(0, unit)
            used += unit.tokens
        if not tail and window and room > 0:
            tail = self._word_tail(window[-1], room)
        return [replace(u, starts_para=False) if i == 0 else u for i, u in enumerate(tail)]

    def _word_tail(self, unit: _Unit, room: int) -> list[_Unit]:
        """The last words of a long sentence, at most `room` tokens, as the overlap."""
        words: list[str] = []
        used = 0
        for word in reversed(unit.text.split()):
            n = self.count(word)
            if used + n > room:
                break
            words.insert(0, word)
            used += n
        return [_Unit(" ".join(words), used, unit.para, False, unit.page, mid=True)] if words else []


def _pages_of(window: list[_Unit]) -> tuple[list[int], list[int]]:
    """The window's pages in order, and where in its joined text each page after the first begins."""
    pages: list[int] = []
    breaks: list[int] = []
    offset = 0
    for n, unit in enumerate(window):
        if n:
            offset += 1  # the space or newline _join puts between units
        if unit.page and (not pages or unit.page != pages[-1]):
            if pages:
                breaks.append(offset)
            pages.append(unit.page)
        offset += len(unit.text)
    return sorted(set(pages)), breaks if len(set(pages)) == len(pages) else []


class _Units:
    """The units of a text read lazily, paragraph by paragraph, with each read paragraph's token total."""

    def __init__(self, paragraphs: Iterator[list[_Unit]]) -> None:
        self._paragraphs = paragraphs
        self._units: list[_Unit] = []
        self.para_tokens: dict[int, int] = {}

    def has(self, i: int) -> bool:
        """True when there is a unit i (reading paragraphs until there is, or the text ends)."""
        while i >= len(self._units):
            units = next(self._paragraphs, None)
            if units is None:
                return False
            self.para_tokens[units[0].para] = sum(u.tokens for u in units)
            self._units.extend(units)
        return True

    def __getitem__(self, i: int) -> _Unit:
        self.has(i)
        return self._units[i]

    def forget_before(self, i: int) -> None:
        """Drop the units before i (they are in a window already) and the totals of finished paragraphs."""
        del self._units[:i]
        first = self._units[0].para if self._units else None
        for para in [p for p in self.para_tokens if first is None or p < first]:
            del self.para_tokens[para]


def _join(units: list[_Unit]) -> str:
    """Sentences of one paragraph joined by spaces, paragraphs by newlines."""
    parts: list[str] = []
    for n, unit in enumerate(units):
        if n and unit.para != units[n - 1].para:
            parts.append("\n")
        elif n:
            parts.append(" ")
        parts.append(unit.text)
    return "".join(parts)


def merge_overlap(first: str, second: str) -> str:
    """Join two consecutive chunks, dropping the sentences the second repeats from the first."""
    for k in range(min(len(first), len(second)), MIN_OVERLAP - 1, -1):
        if first.endswith(second[:k]):
            return first + second[k:]
    return f"{first}\n{second}"


def merge_chunks(chunks: list[Chunk]) -> tuple[str, list[tuple[int, int]]]:
    """Consecutive chunks joined into the page's text, with where each document page begins in it."""
    text, marks = chunks[0].text, _page_marks(chunks[0], 0)
    for chunk in chunks[1:]:
        text = merge_overlap(text, chunk.text)
        marks += _page_marks(chunk, len(text) - len(chunk.text))
    return text, sorted(marks, key=lambda m: m[0])


def _page_marks(chunk: Chunk, start: int) -> list[tuple[int, int]]:
    """(offset, page) of each page a chunk starting at `start` holds (its page_breaks place them)."""
    breaks = list(chunk.extra.get(PAGE_BREAKS_KEY) or [])
    if not chunk.pages:
        return []
    if len(breaks) != len(chunk.pages) - 1:
        return [(start, page) for page in chunk.pages]
    return [(start + offset, page) for offset, page in zip([0, *breaks], chunk.pages, strict=True)]
