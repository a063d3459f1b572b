"""Uber Research pieces: gap analysis with the real small LLM, its fallback, keyword filter."""

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from nonseq.config import LLMSettings, SparseSettings
from nonseq.index.sparse import SparseEncoder, load_stopwords
from nonseq.models import GateCheck, GateVerdict, Topic
from nonseq.pipeline.uber import (
    MAX_KEYWORDS,
    MIN_KEYWORDS,
    QUESTIONS,
    analyse_gaps,
    clean_keywords,
    fallback_gaps,
    relevance_filter,
    topic_words,
)
from nonseq.ui.thin_prompt import ask_thin_choice, thin_choices

TOPIC = Topic(title="Water vapour on Jupiter's moon Europa", slug="europa", category="space",
              focus="what the Keck telescope observations found", sub_queries=["Europa Clipper mission"])
STOP = load_stopwords("english")
EXCERPTS = ["NASA scientists detected water vapour above Europa's surface using the Keck telescope.",
            "The plumes could be sampled by a future spacecraft."]


def test_topic_words_are_content_words_title_first() -> None:
    words = topic_words(TOPIC, STOP)
    assert words[:4] == ["water", "vapour", "jupiter's", "moon"]
    assert "the" not in words and "what" not in words


def test_fallback_gaps_target_the_least_covered_words() -> None:
    gaps = fallback_gaps(TOPIC, EXCERPTS, STOP)
    assert len(gaps) == QUESTIONS
    first = gaps[0]
    assert first.origin == "keywords"
    assert first.keywords[0] in ("jupiter's", "moon", "clipper", "mission", "found", "observations")
    for gap in gaps:
        assert MIN_KEYWORDS <= len(gap.keywords) <= MAX_KEYWORDS
        assert len(set(gap.keywords)) == len(gap.keywords)


def test_clean_keywords_tops_up_and_deduplicates() -> None:
    fill = ["water", "moon", "keck", "ice", "jupiter"]
    assert clean_keywords(["Europa", "europa", " plumes. ", "x"], fill) == [
        "europa", "plumes", "water", "moon", "keck", "ice"]


@pytest.mark.parametrize(("text", "kept"), [
    ("Europa water vapour plumes were seen by the Keck telescope.", True),
    ("Europa is a moon.", False),
    ("Stock markets fell sharply on Tuesday.", False),
])
def test_relevance_filter_needs_three_topic_keywords(text: str, kept: bool) -> None:
    check = relevance_filter(TOPIC, SparseEncoder(SparseSettings()).tokenize)
    reason = check(text)
    assert (reason is None) is kept
    if not kept:
        assert "need 3" in reason


def test_gap_analysis_with_the_real_small_llm_always_gives_usable_gaps() -> None:
    from nonseq.llm import build_llm

    gaps, origin = analyse_gaps(build_llm(LLMSettings(temperature=0.0, seed=7)), TOPIC, EXCERPTS, STOP)
    assert origin == "llm", "the model's answer was unusable: the keyword fallback ran"
    assert len(gaps) == QUESTIONS
    from_llm = [g for g in gaps if g.origin == "llm"]
    assert from_llm, "no gap came from the model"
    assert not set(g.question for g in from_llm) & {g.question for g in fallback_gaps(TOPIC, EXCERPTS, STOP)}
    for gap in gaps:
        assert len(gap.question) >= 8
        assert MIN_KEYWORDS <= len(gap.keywords) <= MAX_KEYWORDS


def test_unusable_llm_output_falls_back_to_keywords() -> None:
    from nonseq.llm import build_llm

    llm = build_llm(LLMSettings(json_retries=0))
    gaps, origin = analyse_gaps(llm, TOPIC, EXCERPTS, STOP, max_tokens=2)
    assert origin == "keywords"
    assert gaps == fallback_gaps(TOPIC, EXCERPTS, STOP)


def _verdict(can_continue: bool) -> GateVerdict:
    return GateVerdict(ok=False, can_continue=can_continue, checks=[
        GateCheck("domains", False, 1, 2, reason="only 1 distinct domain(s), need 2")])


@pytest.mark.parametrize(("keys", "expected"), [("c", "continue"), ("r", "retry"), ("d", "delete")])
def test_thin_prompt_answers(keys: str, expected: str) -> None:
    with create_pipe_input() as pipe:
        pipe.send_text(keys + "\r")
        assert ask_thin_choice(TOPIC, _verdict(True), input=pipe, output=DummyOutput()) == expected


def test_no_continue_after_a_hard_gate_failure() -> None:
    assert [k for k, _ in thin_choices(_verdict(False))] == ["r", "d"]
    with create_pipe_input() as pipe:
        pipe.send_text("c")  # not offered: ignored
        pipe.send_text("d\r")
        assert ask_thin_choice(TOPIC, _verdict(False), input=pipe, output=DummyOutput()) == "delete"
