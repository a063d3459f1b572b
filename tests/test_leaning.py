"""Sentences that lean on text the article lacks (issue 47, point 2), read from the parse.

`text.leaning.leaning_reason` on sentences written for these tests (not the issue's own examples):
one or more for every reason, and sentences that stand on their own and must pass. Then the three
places that use it: the plan (a leaning sentence joins the sentence before it or is left out, and one
pointing back at what its page brought in just before it gives way to others; a page's units in a section
follow the page's order), the
verifier (a restatement may not bring in leaning its source lacks) and the assembly
(`compose.standing`: a leaning sentence follows a sentence of its source, a surname-only person
whose full name the article has not given is left out). The parse is the real one (spaCy's
en_core_web_sm 3.8.0 pipeline).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_writer import OverlapSupport, make_pack, schema

from nonseq.text.definite import definite_subject, points_back
from nonseq.text.leaning import leaning_reason
from nonseq.verify.rules import Verifier
from nonseq.writing.compose import SentenceRecord, review, standing
from nonseq.writing.plan import (
    PlanSettings,
    SourceSentence,
    Unit,
    build_plan,
    in_page_order,
    leaning_units,
    make_units,
)


@pytest.mark.parametrize(("sentence", "reason"), [
    ("However, the chipmaker's sales fell in the third quarter.", 'opens with "However"'),
    ("Those chips were made in Oregon.", 'opens with "Those"'),
    ("Sales of the chip, therefore, fell in the third quarter.", 'connective "therefore"'),
    ("Revenue at the chipmaker, meanwhile, rose by a tenth.", 'connective "meanwhile"'),
    ("“The new chip doubles battery life in most laptops.”", "quotation with no speaker"),
    ("“The new chip doubles battery life in most laptops,” she said.", 'quotation whose speaker is a pronoun ("she")'),
    ("The chip doubles battery life in most laptops.”", "part of a quotation whose speaker is in another sentence"),
    ("By March, they had cut prices on every laptop model.", 'pronoun "they"'),
    ("After the merger, the board asked him to stay on as chairman.", 'pronoun "him"'),
    ("In 2021, its sales doubled in Asia.", 'pronoun "its"'),
    ("Intel will open the plant in 2025, she told reporters.", 'pronoun "she"'),
    ("“All of them use less power than desktop chips,” Lisa Su said.", 'pronoun "them"'),
    ("Sales of these chips rose sharply in Asia.", 'demonstrative "these chips"'),
    ("Prices of memory doubled during that decade.", 'demonstrative "that decade"'),
    ("Regulators in Brussels approved this in 2020.", 'demonstrative "this"'),
    ("Intel quietly dropped that plan in 2019.", 'demonstrative "that plan"'),
    ("Intel also cut prices in Europe.", 'additive "also"'),
    ("The board approved the merger too.", 'additive "too"'),
    ("The board approved the merger as well.", 'additive "as well"'),
    ("The board did not approve the merger either.", 'additive "either"'),
    ("Another chipmaker reported losses in May.", '"another"'),
    ("Analysts at the bank expect others to follow.", '"others"'),
    ("The other chipmaker reported losses in May.", '"the other"'),
    ("Other chipmakers reported losses in May.", '"Other"'),
    ("Regulators opened an inquiry the same week.", '"the same"'),
    ("Such chips use less power than desktop processors.", '"such chips"'),
    ("The chipmaker has denied both allegations.", '"both allegations"'),
    ("Both were arrested in Oregon in May.", '"Both" with neither'),
    ("Two decades later, the plant in Ohio closed.",
     'time counted from an event the sentence does not name ("Two decades later")'),
    ("The plant in Ohio closed the following year.", "time counted from an event the sentence does not name"),
    ("Afterward, the board approved the merger.", 'connective "Afterward"'),
    ("Then the chipmaker cut prices in Europe.", 'connective "Then"'),
    ("The answer, then, lies in cheaper memory.", 'connective "then"'),
    ("For example, the plant in Ohio closed in May.", 'connective "For example"'),
    ("As a result, memory prices doubled in Asia.", 'connective "As a result"'),
    ("Still, analysts expect a recovery in 2025.", 'connective "Still"'),
    ("In short, the chip is twice as fast.", 'connective "In short"'),
    ("The plan, though, failed in the spring.", 'connective "though"'),
    ("So is coal-fired power generation.", 'elliptical "So is"'),
    ("Nor has the withdrawal of the bill cooled the protests.", 'elliptical "Nor has"'),
    ("Or perhaps you'd rather work in spurts and travel in between.", 'opens with "Or"'),
])
def test_a_sentence_that_leans_says_why(sentence: str, reason: str) -> None:
    """Every kind of leaning the parse can see, each with its reason."""
    why = leaning_reason(sentence)
    assert why is not None and why.startswith(reason), (sentence, why)


@pytest.mark.parametrize("sentence", [
    "The chip that Intel announced in May doubles battery life.",        # a relative "that"
    "Intel said that the chip doubles battery life in most laptops.",    # "that" joining a clause
    "Intel cut prices on its laptop chips twice this year.",             # relative time: text.when's
    "When the board met in May, it approved the merger.",                # the pronoun's noun is before it
    "Intel cut its prices after the chip lost market share.",
    "Lisa Su said she would open the plant in 2025.",
    "Trump said he would raise the tariffs on Chinese chips.",           # a speaker, though tagged a noun
    "Sadly, it is not just the price that keeps buyers away.",           # a cleft "it"
    "When she took over in 2014, Lisa Su closed two plants.",
    "In her first speech as chief executive, Lisa Su promised new chips.",  # the main clause's subject
    "Analysts said it is likely that memory prices will rise.",          # an "it" that stands for nothing
    "“The new chip doubles battery life in most laptops,” Lisa Su said.",  # a quotation with its speaker
    "According to Intel, the new chip doubles battery life.",
    "Intel, also known as Integrated Electronics, was founded in 1968.",
    "Intel cut prices, and AMD also cut prices on its desktop chips.",   # the addition is in the sentence
    "Intel cut not only prices but also jobs in Oregon.",
    "The price of the chip is too high for most buyers.",                # "too" of degree
    "Intel supports the old sockets as well as the new ones.",
    "One plant is in Ohio and the other is in Texas.",                   # something to compare with
    "Some analysts expect a recovery, while others expect more losses.",
    "Like other chipmakers, Intel cut prices in May.",
    "Chipmakers such as Intel cut prices in May.",
    "Prices rose for those who bought their chips late.",                # "those who": said by its clause
    "The new chip is twice as fast as that of its rival.",
    "Intel opened the plant in 2001 and closed it two decades later.",   # the event is in the sentence
    "The price was the same as in 2018.",
    "So far, Intel has opened two plants in Ohio.",                     # "so" that opens no ellipsis
    "Neither chipmaker commented on the prices.",
    "Memory prices rose, then fell in the spring.",                      # "then" inside a clause it joins
    "Then-chief executive Brian Krzanich opened the plant.",
    "Still images of the plant were shown in May.",                      # "Still" with no comma
    "As a result of the shortage, memory prices doubled.",               # the cause is in the sentence
    "First Solar opened a plant in Ohio.",
    "Though it rained, the plant opened on time.",                      # "though" joining a clause
    "Overall sales of memory rose in the spring.",
    "Both Intel and AMD cut prices in May.",                             # the pair is in the sentence
    "Intel and AMD both cut prices in May.",
    "A deal between Intel and AMD would let both companies cut prices.",
    "Lawmakers of both parties questioned the chief executive.",        # a set phrase
])
def test_a_sentence_that_stands_on_its_own_passes(sentence: str) -> None:
    """Relative and joining "that", "this year", a pronoun with its noun, a quotation with its speaker."""
    assert leaning_reason(sentence) is None, (sentence, leaning_reason(sentence))


PAGE = ["Intel's chief executive Pat Gelsinger said the plant would open in 2025.",
        "The company also hired Lisa Su's former deputy, Forrest Norrod."]


@pytest.mark.parametrize(("sentence", "said", "leans"), [
    ("Gelsinger said the plant would open in 2025.", [], True),
    ("Mr. Gelsinger opened the plant in 2025.", [], True),
    ("Gelsinger said the plant would open in 2025.", ["Intel chief Pat Gelsinger visited Ohio."], False),
    ("Pat Gelsinger said the plant would open in 2025.", [], False),
    ("Intel said the plant would open in 2025.", [], False),       # no full name ends in "Intel"
    ("Norrod said the plant would open in 2025.", [], True),
    ("The tuft cell, Herbert said, is always sensing.", [], True),   # a person the page never names in full
    ("The tuft cell, Herbert said, is always sensing.", ["Herbert studies the gut."], False),
])
def test_a_surname_leans_until_the_article_gives_the_full_name(sentence: str, said: list[str], leans: bool) -> None:
    """"Gelsinger said": the page says "Pat Gelsinger"; the article must have said it before."""
    why = leaning_reason(sentence, PAGE, said)
    assert (why is not None and why.startswith("surname")) == leans, why


def test_the_plan_joins_a_leaning_sentence_to_the_one_before_it_or_leaves_it_out(embed: Any) -> None:
    """A sentence leaning from inside ("also", "these") is planned with the sentence before it; alone, it is left
    out with its reason."""
    page = ("Intel cut the price of its laptop chips by a fifth in May to win back buyers.\n"
            "The company also cut prices on its desktop chips in Europe and in Asia.")
    title, focus = "Intel's price cuts on laptop chips", "what Intel cut and why"
    plan = build_plan(make_pack([page], title, focus), schema(), embed)
    pair = next(u for u in plan.units if any("also cut" in s.text for s in u.sentences))
    assert pair.sentences[0].text.startswith("Intel cut the price")
    alone = build_plan(make_pack([page.split("\n")[1]], title, focus), schema(), embed)
    assert not alone.units
    assert alone.sentences[0].reason == ('leans on the sentence before it, which is not planned with it: '
                                         'additive "also"')


def test_a_leaning_sentence_after_a_chunk_overlap_is_planned_with_its_pages_sentence_before_it() -> None:
    """Chunks overlap: a chunk opens with the last sentence of the one before, and only the first copy is usable.
    A sentence leaning on that sentence ("also", "Or ...") still joins it (its first copy); one whose chunk
    holds another sentence before it does not, and is no unit."""
    url = "http://127.0.0.1/intel"
    first = "Intel cut the price of its laptop chips by a fifth in May to win back buyers."

    def sentence(sid: str, text: str, chunk: int, index: int, reason: str = "", at: str = url) -> SourceSentence:
        """One source sentence of chunk `chunk`."""
        return SourceSentence(sid, text, chunk, index, at, "Intel", "p", 1.0, reason=reason)

    for leaning in ("The company also cut prices on its desktop chips in Europe and in Asia.",
                    "Or it may cut the prices of its desktop chips in Europe and in Asia next."):
        overlap = [sentence("c0.s0", first, 0, 0), sentence("c1.s0", first, 1, 0, "duplicate of c0.s0"),
                   sentence("c1.s1", leaning, 1, 1)]
        units = make_units(overlap, PlanSettings())
        assert [[s.id for s in u.sentences] for u in units] == [["c0.s0", "c1.s1"]], leaning
        elsewhere = [sentence("c0.s0", first, 0, 0), sentence("c1.s0", "AMD raised its prices.", 1, 0,
                                                                 "below the topic floor"),
                     sentence("c1.s1", leaning, 1, 1)]
        assert [[s.id for s in u.sentences] for u in make_units(elsewhere, PlanSettings())] == [["c0.s0"]]
        other_page = [sentence("c0.s0", first, 0, 0),
                      sentence("c1.s0", first, 1, 0, "duplicate of c0.s0", at="http://127.0.0.1/amd"),
                      sentence("c1.s1", leaning, 1, 1, at="http://127.0.0.1/amd")]
        assert [[s.id for s in u.sentences] for u in make_units(other_page, PlanSettings())] == [["c0.s0"]]


def test_a_sentence_whose_definite_subject_its_predecessor_names_is_planned_with_it(embed: Any) -> None:
    """"The plant ..." after a sentence that names the plant is one unit; after one that does not, it stands alone."""
    title, focus = "Intel's new chip plant in Ohio", "what Intel builds and why"
    named = ("Intel will build a chip plant near Columbus, Ohio, for 20 billion dollars by 2025.\n"
             "The plant will make processors for laptops and for data centres in North America.")
    plan = build_plan(make_pack([named], title, focus), schema(), embed)
    pair = next(u for u in plan.units if any(s.text.startswith("The plant") for s in u.sentences))
    assert [s.text[:12] for s in pair.sentences] == ["Intel will b", "The plant wi"]
    other = ("Intel will hire 3,000 workers near Columbus, Ohio, for 20 billion dollars by 2025.\n"
             "The plant will make processors for laptops and for data centres in North America.")
    plan = build_plan(make_pack([other], title, focus), schema(), embed)
    alone = next(u for u in plan.units if any(s.text.startswith("The plant") for s in u.sentences))
    assert len(alone.sentences) == 1
    assert definite_subject("The plant will make processors.") == "plant"
    assert definite_subject("The Doobie Brothers will tour in 2020.") == ""
    assert definite_subject("The scan revealed severe inflammation.") == "scan"  # tagged as an adjective
    assert definite_subject("The same is true for the escape key.") == ""


def test_a_restatement_that_brings_in_leaning_fails_and_one_whose_source_leans_does_not() -> None:
    """The model may not make a sentence lean ("these chips", "also") when its source stands alone."""
    verifier = Verifier(OverlapSupport(), 0.5)
    source = "Intel cut the price of its laptop chips by a fifth in May."
    verdict = verifier.check("Intel also cut the price of its laptop chips by a fifth in May.", [source])
    assert 'leans on a sentence before it (additive "also")' in verdict.reasons
    leaning = "Intel also cut the price of its laptop chips by a fifth in May."
    verdict = verifier.check("Intel also cut the price of these laptop chips by a fifth.", [leaning])
    assert not any(r.startswith("leans on") for r in verdict.reasons), verdict.reasons


def _record(section: int, n: int, text: str, url: str = "http://127.0.0.1/0") -> SentenceRecord:
    """A kept sentence of source n."""
    s = SourceSentence(f"c{n}.s0", text, 0, 0, url, "Page", f"p{n}", 1.0)
    return SentenceRecord(section, Unit([s], n=n), made="verbatim", text=text)


def test_the_article_keeps_a_leaning_sentence_only_after_a_sentence_of_its_source() -> None:
    """"These chips ..." follows a sentence of its source in its section, or is left out; a surname needs the
    full name earlier in the article (the headline counts): the page's full name is put in, and a person
    the page never names in full is left out."""
    first = _record(0, 1, "Intel cut the price of its laptop chips by a fifth in May.")
    follows = _record(0, 1, "These chips are made in Oregon and in Ireland.")
    stranger = _record(0, 2, "Most of these chips are made in Arizona.", "http://127.0.0.1/1")
    new_section = _record(1, 1, "Intel also cut prices on desktop chips.")
    kept = standing([first, follows, stranger, new_section])
    assert kept == [first, follows]
    assert stranger.made == "dropped" and "demonstrative" in stranger.attempts[-1].verdict.reasons[0]
    assert new_section.made == "dropped" and 'additive "also"' in new_section.attempts[-1].verdict.reasons[0]
    pages = {"http://127.0.0.1/0": PAGE}
    quote = _record(0, 1, "Gelsinger said the plant would open in 2025.")  # the page names him in full
    assert standing([_record(0, 1, "Intel is building a chip plant in Ohio."), quote], "", pages)[-1] is quote
    assert quote.made == "verbatim" and quote.text == "Pat Gelsinger said the plant would open in 2025."
    assert quote.named_from == [next(s for s in PAGE if "Pat Gelsinger" in s)]  # the name's sentence is cited
    noem = _record(0, 2, "Gov. Noem said the campaign was working.", "http://127.0.0.1/1")  # no "Kristi" on its page
    other = {**pages, "http://127.0.0.1/1": [noem.text], "http://127.0.0.1/2": ["Gov. Kristi Noem spoke."]}
    assert standing([noem], "", other) == [noem] and noem.text.startswith("Kristi Noem said")
    assert noem.named_from == ["Gov. Kristi Noem spoke."]
    stranger = _record(0, 1, "Herbert said the plant would open in 2025.")  # a person the page never names
    assert standing([_record(0, 1, "Intel is building a chip plant in Ohio."), stranger], "", pages)[-1] is not stranger
    assert stranger.made == "dropped" and 'surname "Herbert"' in stranger.attempts[-1].verdict.reasons[0]
    quote = _record(0, 1, "Gelsinger said the plant would open in 2025.")
    assert standing([quote], "Pat Gelsinger's plant in Ohio", pages) == [quote]
    assert quote.text == "Gelsinger said the plant would open in 2025."


def test_a_name_put_in_from_the_page_is_cited_with_the_sentence_it_came_from() -> None:
    """"The agency said" named as its page names it: the record and the review show the page sentence
    that names it beside the source sentence, so a reader can check the name."""
    esa = "The European Space Agency says suspended animation could help crews reach Mars."
    agency = "The agency said Monday that its researchers examined hibernation."
    rec = _record(0, 1, agency)
    assert standing([rec], "Hibernating astronauts", {"http://127.0.0.1/0": [esa, agency]}) == [rec]
    assert rec.text.startswith("The European Space Agency said Monday") and rec.named_from == [esa]
    assert rec.evidence == [agency, esa] and rec.to_dict()["named_from"] == [esa]
    assert [s["text"] for s in review([rec])[0]["sources"]] == [agency, esa]
    lead = _record(0, 1, "Astronauts may one day hibernate on the way to Mars.")
    plain = _record(0, 1, "The agency said Monday that it would study hibernation.")
    pages = {"http://127.0.0.1/0": [lead.text, plain.text]}
    assert standing([lead, plain], "Hibernating astronauts", pages) == [lead, plain]  # after its page's sentence
    assert plain.named_from == [] and plain.evidence == [plain.text]


CLINIC = ["A retired teacher in Leeds went to a clinic after weeks of coughing.",
          "Doctors there ordered a chest scan and a blood test."]


@pytest.mark.parametrize(("sentence", "told", "found"), [
    ("The scan showed scarring in both lungs.", [], 'definite "The scan"'),
    ("The scans showed scarring in both lungs.", [], 'definite "The scans"'),
    ("The chest scan showed scarring in both lungs.", [], 'definite "The chest scan"'),
    ("Doctors read the scan for an hour.", [], 'definite "the scan"'),  # wherever it stands
    ("The scan showed scarring in both lungs.", ["What a chest scan shows"], ""),  # the reader was told
    ("After a chest scan, the scan showed scarring.", [], ""),  # the sentence says it first
    ("The first scan showed scarring in both lungs.", [], ""),  # a modifier says which
    ("The scan of his chest showed scarring.", [], ""),
    ("The scan that doctors ordered showed scarring.", [], ""),
    ("The economy grew by two percent.", [], ""),  # nothing on the page before it
    ("Patients say “the test was quick” in most clinics.", [], ""),  # inside a quotation
    ("The test showed high levels of antibodies.", [], 'definite "The test"'),
])
def test_a_definite_phrase_pointing_back_at_its_page_is_found(sentence: str, told: list[str], found: str) -> None:
    """"The scan ..." after a page sentence naming a scan points back at it; the reader told of it first (or the
    sentence naming it before), an identifying modifier, or a noun the page did not just mention lets it stand."""
    why = points_back(sentence, CLINIC, told)
    assert why.startswith(found) if found else why == ""


def test_a_definite_phrase_reads_only_the_two_page_sentences_before_it() -> None:
    """The page's mention must be close: a scan named three sentences before is not what "The scan" leans on."""
    far = [*CLINIC, "She was sent home.", "Her family bought new bedding."]
    assert points_back("The scan showed scarring.", far) == ""
    company = ["Walt Disney Co. launched its service in November.", "Its shares rose."]
    assert points_back("The company said demand was high.", company) == ""  # the name says what it is


def test_the_plan_prefers_a_unit_that_does_not_point_back_at_its_page(embed: Any) -> None:
    """A unit opening "The scan showed ..." two page sentences after the one that brings the scan in is marked as
    leaning (`leaning_units`) and gives way to one that stands alone when there is room for one unit only;
    without the page's mention before it, it is the plan's first choice."""
    url = "http://127.0.0.1/0"
    texts = ["Doctors in Leeds ordered a chest scan for a retired teacher after weeks of coughing.",
             "A hospital in Leeds had a waiting list of two weeks for lung appointments.",
             "The scan showed scarring in both lungs and a shadow near the heart.",
             "Chest X-rays often show scarring in the lungs of people who keep birds at home."]
    sents = [SourceSentence(f"c0.s{i}", t, 0, i, url, "Page", "p0", 1.0) for i, t in enumerate(texts)]
    units = [Unit([s]) for s in sents]
    assert leaning_units(units, sents, ["Scarring in the lungs"]).tolist() == [0.0, 0.0, 1.0, 0.0]
    assert leaning_units(units, sents, ["What the chest scan showed"]).tolist() == [0.0] * 4  # the topic told
    title, focus = "Scarring in the lungs", "what doctors see in scarred lungs"
    one = PlanSettings(max_units=1, min_units=1)
    alone = build_plan(make_pack([" ".join(texts[2:])], title, focus), schema(), embed, one)
    assert [s.text for u in alone.units for s in u.sentences] == [texts[2]]  # the most relevant, standing alone
    plan = build_plan(make_pack([" ".join(texts)], title, focus), schema(), embed, one)
    assert [s.text for u in plan.units for s in u.sentences] == [texts[3]]


def test_a_section_says_one_page_s_units_in_the_page_s_order() -> None:
    """Within a section, one page's units follow the page (chunk position, then sentence) in the places that
    page's units held, so it brings in what it names before it refers back to it; another page's unit keeps
    its place, and the section that opens the article keeps its first unit (the plan's lede) first."""
    chunks = make_pack(["one", "two", "three"]).research
    chunks[0].chunk.position, chunks[1].chunk.position, chunks[2].chunk.position = 5, 2, 0
    a, b = "http://127.0.0.1/a", "http://127.0.0.1/b"

    def unit(chunk: int, index: int, url: str) -> Unit:
        return Unit([SourceSentence(f"c{chunk}.s{index}", f"Sentence {chunk}.{index}.", chunk, index, url,
                                    "Page", f"p{chunk}", 1.0)])

    late, other, early, first = unit(0, 1, a), unit(2, 0, b), unit(1, 3, a), unit(0, 0, a)
    assert in_page_order([late, other, early, first], chunks) == [early, other, first, late]
    assert in_page_order([late, other, early, first], chunks, lede=True) == [late, other, early, first]
    assert in_page_order([late, first, early], chunks, lede=True) == [late, early, first]
