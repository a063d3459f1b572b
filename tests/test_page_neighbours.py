"""The writer's twenty-fifth round (issue 47): a sentence is read beside its page's own sentences before it,
not only beside the ones the plan took; a phrase the sentence itself identifies does not point back; a
definite comparative with nothing to compare with leans."""

from __future__ import annotations

from typing import Any

import numpy as np
from test_writer import make_pack, schema

from nonseq.research.chunking import merge_overlap
from nonseq.text.definite import compared_phrase, points_back
from nonseq.text.sentences import split
from nonseq.writing.compose import SentenceRecord, page_before, standing
from nonseq.writing.plan import SourceSentence, Unit, build_plan
from nonseq.writing.writer import full_pages

URL = "http://127.0.0.1/duvet"
PAGE = ["A man switched to feather bedding and began to feel breathless.",
        "Dr. Owen Dempsey, a pulmonologist, performed a more detailed CT scan.",
        "The scan revealed severe inflammation in the man's lungs.",
        "Blood tests showed antibodies to a compound found in duck and goose feathers."]


def _record(section: int, n: int, text: str, url: str = URL, page: str = "") -> SentenceRecord:
    """A kept sentence of source n (`page`: the sentence as its page has it)."""
    s = SourceSentence(f"c{n}.s{len(text)}", text, 0, 0, url, "Page", f"p{n}", 1.0, page=page or text)
    return SentenceRecord(section, Unit([s], n=n), made="verbatim", text=text)


def test_overlapping_chunks_make_a_page_that_holds_each_sentence_once_in_order() -> None:
    """Chunks repeat the last sentences of the chunk before: the page read back from them holds each once."""
    assert split(merge_overlap(" ".join(PAGE[:3]), " ".join(PAGE[1:]))) == PAGE
    assert split(merge_overlap(" ".join(PAGE[:2]), " ".join(PAGE[2:]))) == PAGE  # no overlap
    assert split(merge_overlap("Stocks fell. Stocks fell.", "Stocks fell. Bonds rose.")) == [
        "Stocks fell.", "Stocks fell.", "Bonds rose."]  # the page's own repeat stays


def test_the_whole_indexed_page_is_read_back_without_the_chunks_overlap(ws: Any, embed: Any) -> None:
    """full_pages over a page indexed as two overlapping chunks: after the plan's own sentences, the page in its
    order, each sentence once."""
    from nonseq.models import Chunk

    pack = make_pack([PAGE[2]], "Feather duvet lung", "how the bedding made a man ill")
    target = pack.research[0].chunk
    target.position, target.url = 1, URL
    stored = [Chunk(text=" ".join(PAGE[:3]), topic_slug="t", category="health", url=URL, title=target.title,
                    position=0),
              Chunk(text=" ".join(PAGE[2:]), topic_slug="t", category="health", url=URL, title=target.title,
                    position=1)]
    target.category = "health"
    ws.store.ensure("research_health", ws.embedder.dim, ws.embedder.name)
    ws.store.upsert("research_health", stored, np.random.default_rng(0).normal(size=(2, ws.embedder.dim)),
                    ws.sparse.encode([c.text for c in stored]))
    plan = build_plan(pack, schema(), embed)
    page = full_pages(ws, plan)[URL]
    assert page[-len(PAGE):] == PAGE and len(page) == len(PAGE) + 1  # the plan's sentence, then the page
    assert page_before(page, plan.units[0].sentences[0])[-2:] == PAGE[:2]  # its page's own neighbours


def test_a_definite_subject_leans_on_the_page_sentence_the_plan_did_not_take() -> None:
    """"The scan revealed ..." was kept after another page's sentence: the CT scan it points back at was in a
    part of the page the plan had not taken, and the pages looked up held the plan's sentences first."""
    pages = {URL: [PAGE[2], *PAGE]}  # the plan's own sentence, then the whole page (`full_pages`)
    other = _record(0, 1, "Feather bedding can cause a rare lung disease.", "http://127.0.0.1/other")
    scan = _record(0, 2, PAGE[2])
    assert standing([other, scan], "Feather duvet lung", pages) == [other]
    assert 'definite "The scan"' in scan.attempts[-1].verdict.reasons[0]
    dempsey, scan = _record(0, 2, PAGE[1]), _record(0, 2, PAGE[2])
    assert standing([dempsey, scan], "Feather duvet lung", pages) == [dempsey, scan]  # after its own page
    told = _record(0, 1, "A CT scan can show the lungs in detail.", "http://127.0.0.1/other")
    scan = _record(0, 2, PAGE[2])
    assert standing([told, scan], "Feather duvet lung", pages) == [told, scan]  # the article named a scan
    marked = _record(0, 2, PAGE[2], page=PAGE[2] + " [3]")  # found as the page has it, footnote and all
    assert page_before([PAGE[2], *PAGE[:2], PAGE[2] + " [3]"], marked.unit.sentences[0]) == [PAGE[2], *PAGE[:2]]


def test_a_phrase_the_sentence_itself_identifies_does_not_point_back() -> None:
    """The page's sentence before named a road and a goal, but "the road to retiring early" and "The goal is to
    reach ..." say which; "the delay with the Ukrainians" and "the house in Braunau" do not."""
    before = ["Make a backup plan, because the road ahead is long.", "Set a goal."]
    assert points_back("The road to retiring early isn't easy.", before) == ""
    assert points_back("The goal is to reach everyone in the state, Noem said.", before) == ""
    assert points_back("The goal was ambitious.", before).startswith('definite "The goal"')
    assert points_back("Volker first discussed the delay with the Ukrainians in August.",
                       ["The aid was delayed.", "The delay angered Kyiv."]).startswith('definite "the delay"')
    assert points_back("Austria bought the house in Braunau am Inn.",
                       ["Hitler was born in a house on the border.", "It is empty."]).startswith(
        'definite "the house"')


def test_a_definite_comparative_with_nothing_to_compare_with_leans() -> None:
    """"... suppliers of the keyboards for the smaller notebook." compares with a notebook the article never
    named; over the pages' sentences, such phrases were "the older engine", "The larger landers", "the newer
    scissor mechanism". A "than", a second comparative or a correlative "the more" is the comparison itself."""
    smaller = "Wistron and Global Lighting Technologies supply the keyboards for the smaller notebook."
    assert compared_phrase(smaller) == '"the smaller notebook" compares with something named nowhere before'
    assert compared_phrase("The larger landers, he said, could deliver tools to astronauts.").startswith(
        '"The larger landers"')
    assert compared_phrase(smaller, ["Apple sells a 13-inch notebook."]) == ""  # the article named one
    assert compared_phrase("The smaller notebook is lighter than the old one.") == ""
    assert compared_phrase("Leave easy enemies to the lower difficulty and declutter the higher ones.") == ""
    assert compared_phrase("The block meter drains the more hits are blocked.") == ""
    assert compared_phrase("The earlier people seek treatment, the more likely they are to recover.") == ""
    keyboards = _record(0, 2, smaller)
    other = _record(0, 1, "Apple's keyboards have had problems.", "http://127.0.0.1/other")
    assert standing([other, keyboards], "The MacBook's keyboard") == [other]
    assert '"the smaller notebook"' in keyboards.attempts[-1].verdict.reasons[0]


def test_a_leaning_sentence_is_not_excused_by_its_pages_later_sentence() -> None:
    """A sentence that leans stands after a sentence of its own page, but not after one its page says later:
    what it leans on comes before it on its page, so a later sentence cannot hold it."""
    page = ["Apple sold 10 million phones in the quarter.", "It also sold two million laptops.",
            "Samsung sold eight million phones in the quarter."]
    pages = {URL: page}
    samsung, laptops = _record(0, 1, page[2]), _record(0, 1, page[1])
    assert standing([samsung, laptops], "Phone sales", pages) == [samsung]
    assert "leans on a sentence" in laptops.attempts[-1].verdict.reasons[0]
    apple, laptops = _record(0, 1, page[0]), _record(0, 1, page[1])
    assert standing([apple, laptops], "Phone sales", pages) == [apple, laptops]
    samsung, laptops = _record(0, 1, page[2]), _record(0, 1, page[1])
    assert standing([samsung, laptops], "Phone sales") == [samsung, laptops]  # no page to place them on
