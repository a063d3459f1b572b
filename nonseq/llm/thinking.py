"""Strip <think>…</think> reasoning from model output, also while it streams."""

from __future__ import annotations

OPEN = "<think>"
CLOSE = "</think>"


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest tail of text that is a proper prefix of tag (a tag cut mid-stream)."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


class ThinkFilter:
    """A streaming filter: feed raw pieces, get back only the visible text.

    Think blocks are dropped wherever they appear, an unclosed <think> hides everything after it,
    and the visible text is stripped of leading and trailing whitespace, so the joined output of
    feed() and finish() equals strip_think() of the whole text.
    """

    def __init__(self) -> None:
        """Start outside any think block, with nothing shown yet."""
        self._buf = ""
        self._inside = False
        self._started = False
        self._pending_ws = ""

    def feed(self, piece: str) -> str:
        """Take one raw piece; return the text that may be shown now (possibly empty)."""
        self._buf += piece
        out: list[str] = []
        while self._buf:
            if self._inside:
                end = self._buf.find(CLOSE)
                if end < 0:
                    keep = _partial_suffix(self._buf, CLOSE)
                    self._buf = self._buf[len(self._buf) - keep:] if keep else ""
                    break
                self._buf = self._buf[end + len(CLOSE):]
                self._inside = False
                continue
            start = self._buf.find(OPEN)
            if start >= 0:
                out.append(self._visible(self._buf[:start]))
                self._buf = self._buf[start + len(OPEN):]
                self._inside = True
                continue
            keep = _partial_suffix(self._buf, OPEN)
            cut = len(self._buf) - keep
            out.append(self._visible(self._buf[:cut]))
            self._buf = self._buf[cut:]
            break
        return "".join(out)

    def finish(self) -> str:
        """End of stream: flush a held partial tag that turned out not to be one."""
        rest = "" if self._inside else self._buf
        self._buf = ""
        text = self._visible(rest)
        self._pending_ws = ""
        return text

    def _visible(self, text: str) -> str:
        """Shown text with leading whitespace dropped and trailing whitespace held back."""
        if not text:
            return ""
        if not self._started:
            text = text.lstrip()
            if not text:
                return ""
            self._started = True
        body = text.rstrip()
        if not body:
            self._pending_ws += text
            return ""
        shown = self._pending_ws + body
        self._pending_ws = text[len(body):]
        return shown


def strip_think(text: str) -> str:
    """The visible text of a whole reply: think blocks removed, whitespace trimmed."""
    flt = ThinkFilter()
    return flt.feed(text) + flt.finish()
