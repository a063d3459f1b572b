"""The <think> stripper, whole and streamed in every possible split."""

from __future__ import annotations

import pytest

from nonseq.llm.thinking import ThinkFilter, strip_think

CASES = [
    ("<think>secret plan</think>\n\nHello world.", "Hello world."),
    ("Hello <think>secret</think>world", "Hello world"),
    ("A<think>secret</think> B <think>secret again</think>C", "A B C"),
    ("<think>secret never closed", ""),
    ("  \n<think>secret</think>  answer  \n", "answer"),
    ("no tags at all", "no tags at all"),
    ("a <thin b and x<", "a <thin b and x<"),
    ("math: 1 < 2 and </think> stray", "math: 1 < 2 and </think> stray"),
    ("", ""),
]


def _stream(text: str, size: int) -> tuple[str, list[str]]:
    """Feed text in pieces of size; return the joined output and the shown pieces."""
    flt = ThinkFilter()
    shown = [flt.feed(text[i:i + size]) for i in range(0, len(text), size)] + [flt.finish()]
    shown = [s for s in shown if s]
    return "".join(shown), shown


@pytest.mark.parametrize(("raw", "visible"), CASES)
def test_strip_whole(raw: str, visible: str) -> None:
    """A whole reply loses its think blocks and surrounding whitespace."""
    assert strip_think(raw) == visible


@pytest.mark.parametrize(("raw", "visible"), CASES)
def test_stream_every_split(raw: str, visible: str) -> None:
    """Streamed in pieces of any size, the output is the same and never shows think text."""
    for size in range(1, max(len(raw), 1) + 1):
        joined, pieces = _stream(raw, size)
        assert joined == visible, size
        assert not any("secret" in p for p in pieces), size


def test_tag_split_across_pieces() -> None:
    """A tag cut across pieces is still recognised."""
    flt = ThinkFilter()
    out = [flt.feed(p) for p in ["Hi <th", "ink>hidden</th", "ink> there", ""]] + [flt.finish()]
    assert "".join(out) == "Hi  there"
    assert all("hidden" not in o for o in out)


def test_unclosed_leading_think_streams_nothing() -> None:
    """An unclosed leading <think> shows nothing, piece by piece."""
    flt = ThinkFilter()
    assert [flt.feed(p) for p in ["<think>", "I am", " still thinking"]] == ["", "", ""]
    assert flt.finish() == ""
