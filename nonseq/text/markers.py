"""Citation markers: [3], [1, 3], [2-4]; one pattern for every module that reads or writes them."""

from __future__ import annotations

import re

_INNER = r"\d{1,3}(?:\s*[,;\u2013-]\s*\d{1,3})*"
#: One marker; group 1 is what is inside the brackets. A Markdown link [text](url) is not one.
MARKER_RE = re.compile(rf"\[({_INNER})\](?!\()")
#: A run of adjacent markers: [1][2, 3].
RUN_RE = re.compile(rf"\[{_INNER}\](?:[ \t]*\[{_INNER}\])*(?!\()")
#: Any bracketed integer (or list/range of them), wherever it stands, in any size; not a `[1](link)`.
ANY_MARKER_RE = re.compile(r"[ \t]*\[(\d+(?:\s*[,;\u2013-]\s*\d+)*)\](?!\()")
#: Markers that may follow a sentence's end punctuation.
MARKER_TAIL = rf"(?:[ \t]*\[{_INNER}\])*"


def strip_markers(text: str) -> str:
    """The text with every marker replaced by a space."""
    return MARKER_RE.sub(" ", text)


def expand_marker(inner: str) -> list[int]:
    """The numbers a marker names: '1, 3' → [1, 3]; '2-4' → [2, 3, 4] (ranges capped at 20)."""
    out: list[int] = []
    for part in re.split(r"\s*[,;]\s*", inner.strip()):
        bounds = [int(x) for x in re.split(r"\s*[\u2013-]\s*", part) if x]
        if len(bounds) == 2 and 0 <= bounds[1] - bounds[0] < 20:
            out.extend(range(bounds[0], bounds[1] + 1))
        else:
            out.extend(bounds)
    return list(dict.fromkeys(out))
