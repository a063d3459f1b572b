"""Chunking: token limits with the header, overlap, paragraph and sentence boundaries, provenance."""

from __future__ import annotations

import re

import pytest

from nonseq.index.embed import BUNDLED_MAX_TOKENS, bundled_tokenizer
from nonseq.models import CUT_START_KEY, Candidate, SourceKind, provenance_header
from nonseq.research.chunking import SPECIAL_TOKENS, Chunker
from nonseq.research.extract import Document
from nonseq.text.sentences import sentences as split_sentences
from nonseq.writing.plan import CUT_START, PlanSettings, source_sentences


def count(text: str) -> int:
    """Tokens of the bundled MiniLM tokenizer (the default embedder's)."""
    return len(bundled_tokenizer().encode(text, add_special_tokens=False).ids)


SENTENCES = [
    f"Sentence number {n} explains how the reactor's cooling loop number {n} behaves under load."
    for n in range(60)
]


def paragraphs(per_para: int, count_: int) -> str:
    """count_ paragraphs (one per line) of per_para sentences each."""
    return "\n".join(" ".join(SENTENCES[(p * per_para + i) % 60] for i in range(per_para))
                     for p in range(count_))


def make_doc(text: str, title: str = "Cooling loops explained") -> Document:
    """A document with metadata."""
    return Document(text=text, url="https://example.org/a", title=title, published="2024-05-01")


def test_header_format() -> None:
    assert provenance_header("example.org", "A title", "2024-05-01") == \
        "[example.org › A title › 2024-05-01]"
    assert provenance_header("example.org", "", "") == "[example.org]"
    long = provenance_header("x.org", "word " * 60, "")
    assert len(long) < 120 and long.endswith("…]")


def test_chunks_fit_the_model_window_with_header() -> None:
    chunker = Chunker(count, size=240, overlap=40, max_tokens=BUNDLED_MAX_TOKENS)
    doc = make_doc(paragraphs(7, 12), title="A very long title " * 8)
    chunks = chunker.chunks(doc, topic_slug="t", category="science", domain="example.org")
    assert len(chunks) > 3
    for chunk in chunks:
        assert count(chunk.embedding_text()) + SPECIAL_TOKENS <= BUNDLED_MAX_TOKENS
        assert chunk.embedding_text().startswith("[example.org › A very long title")
        assert chunk.text == chunk.text.strip() and not chunk.text.startswith("[")


def test_size_and_overlap_in_tokens() -> None:
    chunker = Chunker(count, size=100, overlap=30)
    windows = chunker.split(paragraphs(5, 10))
    assert all(count(w) <= 100 for w in windows)
    for prev, nxt in zip(windows, windows[1:], strict=False):
        sentences = [s for line in nxt.split("\n") for s in split_sentences(line)]
        shared = []
        for sentence in sentences:
            if sentence not in prev:
                break
            shared.append(sentence)
        assert shared, "consecutive windows overlap"
        assert prev.endswith(shared[-1]), "the overlap is the tail of the previous window"
        assert 0 < sum(count(s) for s in shared) <= 30


def test_no_overlap_keeps_whole_paragraphs() -> None:
    text = paragraphs(2, 12)  # paragraphs of ~40 tokens
    chunker = Chunker(count, size=100, overlap=0)
    windows = chunker.split(text)
    originals = set(text.split("\n"))
    for window in windows:
        assert set(window.split("\n")) <= originals, "every line is a whole paragraph"
    assert "\n".join(windows) == text


def test_long_paragraph_splits_on_sentences() -> None:
    text = " ".join(SENTENCES[:20])  # one paragraph, far over the limit
    windows = Chunker(count, size=60, overlap=0).split(text)
    assert len(windows) > 3
    assert all(re.search(r"load\.$", w) for w in windows), "windows end at a sentence end"
    assert " ".join(windows) == text


def test_never_cuts_mid_word() -> None:
    words = [f"word{n}alpha" for n in range(400)]
    text = " ".join(words)  # no sentence punctuation at all
    windows = Chunker(count, size=50, overlap=10).split(text)
    assert all(count(w) <= 50 for w in windows)
    for window in windows:
        assert set(window.split()) <= set(words)
    assert windows[0].split()[0] == words[0] and windows[-1].split()[-1] == words[-1]


def test_pathological_word_still_fits() -> None:
    blob = "x" * 3000
    windows = Chunker(count, size=64, overlap=0).split(f"Before. {blob} After.")
    assert all(count(w) <= 64 for w in windows)
    assert "".join(w.replace("Before.", "").replace("After.", "").strip() for w in windows) == blob


def test_positions_and_provenance() -> None:
    chunker = Chunker(count, size=80, overlap=20)
    doc = make_doc(paragraphs(3, 6))
    chunks = chunker.chunks(doc, topic_slug="cooling", category="science", domain="example.org",
                            trust_boost=0.8)
    assert [c.position for c in chunks] == list(range(len(chunks)))
    first = chunks[0]
    assert (first.topic_slug, first.category, first.url, first.domain) == \
        ("cooling", "science", "https://example.org/a", "example.org")
    assert (first.title, first.published, first.trust_boost) == \
        ("Cooling loops explained", "2024-05-01", 0.8)
    assert first.source_kind is SourceKind.RESEARCH
    assert first.content_hash == doc.content_hash
    assert len({c.point_id() for c in chunks}) == len(chunks)
    payload = first.to_payload()
    for key in ("topic_slug", "category", "url", "domain", "title", "published",
                "content_hash", "trust_boost", "source_kind", "position", "text"):
        assert key in payload


def test_empty_text_gives_no_chunks() -> None:
    assert Chunker(count).split("") == []
    assert Chunker(count).split("\n \n") == []


@pytest.mark.parametrize("overlap", [0, 50, 500])
def test_overlap_is_clamped_and_always_progresses(overlap: int) -> None:
    windows = Chunker(count, size=40, overlap=overlap).split(paragraphs(4, 4))
    assert 4 <= len(windows) < 60
    assert all(count(w) <= 40 for w in windows)


def test_sentence_splitter() -> None:
    text = 'He said "Stop." Then he left! Was it 3 p.m.? 2024 was a year. e.g. lower case stays.'
    assert split_sentences(text) == [
        'He said "Stop."', "Then he left!", "Was it 3 p.m.?", "2024 was a year. e.g. lower case "
        "stays.",
    ]


def test_the_first_windows_of_a_huge_text_read_only_what_they_need() -> None:
    """A cap on chunks stops the work too: the rest of a 20,000-paragraph text is never tokenized."""
    calls: list[str] = []

    def counting(text: str) -> int:
        calls.append(text)
        return count(text)

    text = paragraphs(3, 20_000)
    windows = Chunker(counting, size=100, overlap=20).windows(text)
    first = [next(windows) for _ in range(3)]
    assert first == Chunker(count, size=100, overlap=20).split(paragraphs(3, 12))[:3]
    assert len(calls) < 200, f"{len(calls)} token counts for 3 windows"


def test_a_chunk_begun_inside_a_sentence_says_so_and_the_plan_leaves_that_sentence_out() -> None:
    """A dev article said "Carla Babb on Nov. that the ... claim “is patently false”": the overlap had kept
    only the end of a long sentence, so the next chunk began inside it, on a capital."""
    long = ("Cmdr. Sean Robertson, a spokesperson for the operation against the group in Iraq and Syria, told "
            "the correspondent Carla Babb on Monday that the defense ministry's claim is patently false and "
            "that the United States is not preventing people from leaving the camp near the border.")
    doc = make_doc(" ".join([*SENTENCES[:3], long, *SENTENCES[3:6]]))
    chunks = Chunker(count, size=70, overlap=20).chunks(doc, topic_slug="t", category="c", domain="example.org")
    cut = [c for c in chunks if c.extra.get(CUT_START_KEY)]
    assert cut, "some chunk begins inside the long sentence"
    for c in chunks:  # marked exactly when the chunk's text does not begin a sentence of the page
        begins = any(c.text.startswith(s) for s in [*SENTENCES, long])
        assert bool(c.extra.get(CUT_START_KEY)) is not begins, c.text[:60]
    for c in cut:  # how much of its text is that sentence's end, kept in the store's payload for the plan
        tail = c.text[:c.to_payload()[CUT_START_KEY]]
        assert any(whole.endswith(tail) and whole != tail for whole in [*SENTENCES, long]), tail

    candidates = [Candidate(chunk=c, group=SourceKind.RESEARCH, scores={"final": 1.0}) for c in cut]
    said = source_sentences(candidates, PlanSettings(), False)
    assert [s.id for s in said if s.reason == CUT_START] == [f"c{i}.s0" for i in range(len(cut))]


def test_every_sentence_in_a_cut_sentences_end_is_left_out_and_a_lone_closing_mark_joins_its_sentence() -> None:
    """A dev article said "The regime must take responsibility ..." as a plain statement: a chunk began with
    the end of a spokesman's long quotation ("to food and other basic needs. The regime must ... aid.”"),
    which split into a fragment, the quotation's last sentence and a lone "”"."""
    text = ("to food and other basic needs. The regime must take responsibility for its choice and the pressure "
            "must continue for Damascus to allow the U.N. to deliver aid.”\nUnited Nations spokesman Farhan "
            "Haq told Polygraph that the U.N. is working with the coalition forces on the camp.")
    head = text.index("\n")
    chunk = Chunker(count).chunks(make_doc(text), topic_slug="t", category="c", domain="example.org")[0]
    assert chunk.text == text and CUT_START_KEY not in chunk.extra  # the page itself starts so
    chunk.extra[CUT_START_KEY] = head  # as the chunker marks a chunk whose overlap kept that much
    said = source_sentences([Candidate(chunk=chunk, group=SourceKind.RESEARCH)], PlanSettings(), False)
    assert [s.reason == CUT_START for s in said] == [True, True, False]  # the quotation's end is no statement
    assert said[1].text.endswith("deliver aid.”")  # its closing mark stays with it, not a sentence of its own
    old = Candidate(chunk=chunk, group=SourceKind.RESEARCH)
    old.chunk.extra[CUT_START_KEY] = True  # a store written when the mark was True: its first sentence
    assert [s.reason == CUT_START for s in source_sentences([old], PlanSettings(), False)] == [True, False, False]
