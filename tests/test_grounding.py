"""Tests for nonseq.verify.grounding: marker resolution, sentence splitting and support matching.

The two labelled sets below are also the calibration data of grounding.Thresholds: with the
bundled all-MiniLM-L6-v2 and the support check (nonseq.verify.support), every supported sentence (S)
gets the right marker added and every unsupported one (U) is counted, including figure
mismatches, names the chunk lacks and the author's own framing.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from nonseq.text.citations import count_citations, resolve_markers
from nonseq.text.markers import expand_marker
from nonseq.text.sentences import split_sentences
from nonseq.text.words import numbers
from nonseq.verify.grounding import Thresholds, check_grounding


@dataclass
class F:
    """A fact chunk."""

    n: int
    text: str


HEAT = [
    F(1, "Heat pump sales in Europe fell by 21 percent in 2024 compared with the previous year, "
         "according to the European Heat Pump Association. The association counted about 2.3 "
         "million units sold across 14 countries. It blamed uncertainty over subsidies and lower "
         "gas prices for the drop."),
    F(1, "Germany saw the steepest decline, with sales roughly halving after a heated political "
         "debate over the country's building energy law. Poland and Belgium also recorded large "
         "falls, while a few markets such as the United Kingdom grew slightly."),
    F(2, "A heat pump moves heat rather than generating it. In heating mode it extracts warmth "
         "from outdoor air, the ground or water and concentrates it using a refrigerant cycle "
         "driven by an electric compressor. Because it moves more energy than it consumes, a "
         "typical air-source unit delivers three to four units of heat for each unit of "
         "electricity."),
    F(3, "Installers say the upfront cost remains the main barrier for households. A complete "
         "air-source installation in a detached house typically costs between 10,000 and 15,000 "
         "euros before subsidies, several times the price of a new gas boiler."),
    F(4, "The European Commission had planned to publish a heat pump action plan in early 2024 "
         "but postponed it indefinitely. Industry groups criticised the delay, saying it left "
         "manufacturers without a clear signal for investment in new factories."),
    F(5, "Cold-climate models have improved markedly. Field tests in Norway and Finland found "
         "that modern units kept working efficiently at minus 20 degrees Celsius, and Nordic "
         "countries have the highest number of heat pumps per household in Europe."),
]
HEAT_S = [
    ("Sales of heat pumps across Europe dropped 21% in 2024.", 1),
    ("The European Heat Pump Association counted roughly 2.3 million units sold in 14 countries.", 1),
    ("Subsidy uncertainty and cheaper gas were blamed for the slump.", 1),
    ("In Germany, sales roughly halved amid a fierce political fight over the building energy law.", 1),
    ("The United Kingdom was one of the few markets that grew slightly.", 1),
    ("A heat pump does not generate heat; it moves it from the air, ground or water.", 2),
    ("An electric compressor drives a refrigerant cycle that concentrates the warmth.", 2),
    ("A typical air-source unit delivers three to four units of heat per unit of electricity.", 2),
    ("For households, the upfront cost is still the biggest obstacle, installers say.", 3),
    ("A full installation in a detached house usually costs 10,000 to 15,000 euros before subsidies.", 3),
    ("That is several times what a new gas boiler costs.", 3),
    ("Industry groups said the delay left manufacturers without a clear investment signal for new "
     "factories.", 4),
    ("Modern units kept working efficiently at minus 20 degrees Celsius in field tests in Norway "
     "and Finland.", 5),
    ("Nordic countries have the most heat pumps per household in Europe.", 5),
]
HEAT_U = [
    "Heat pump sales in Europe are expected to rebound by 30 percent next year.",
    "France became the largest heat pump market in Europe in 2024.",
    "Manufacturers cut thousands of jobs at their German factories.",
    "Ground-source heat pumps last twice as long as air-source models.",
    "The government in Berlin doubled its subsidy for heat pumps in the autumn.",
    "Many homeowners worry that heat pumps are too noisy for dense neighbourhoods.",
    "Electricity prices in Europe rose sharply during the winter.",
    "Heat pumps can also cool homes in summer by running the cycle in reverse.",
    "Sales of heat pumps across Europe dropped 35% in 2024.",
    "A full installation costs about 4,000 euros.",
    "Installers report long waiting lists for new customers.",
    "Italy and Spain saw record sales last year.",
    "So where does that leave the homeowner thinking about a new heating system?",
    "The honest answer is that it depends on details the brochures leave out.",
    "Belief should follow evidence, and it is allowed to arrive late.",
    "If you remember one thing from this article, make it this.",
    "Think of it as a refrigerator running backwards for your whole house.",
    "Watch the next round of subsidy decisions closely.",
]
# The chunk says "The European Commission": by FActScore's rule a name the source lacks is not
# supported, so this metonym is counted unsupported rather than cited (support.py, missing names).
HEAT_STRICT = "Brussels shelved its heat pump action plan, which had been due in early 2024."
BIKES = [
    F(1, "The city council approved the new cycling plan on Tuesday by a vote of 31 to 14, after a "
         "debate that lasted more than six hours. The plan adds 120 kilometres of protected bike "
         "lanes over the next five years and converts roughly 2,000 on-street parking spaces into "
         "cycle paths, loading zones and wider pavements. Council members who opposed it argued "
         "that shop owners on the main shopping streets had not been consulted, and that the loss "
         "of parking would drive customers to out-of-town retail parks. The mayor said the first "
         "40 kilometres would be built by the end of next year, starting with the routes around "
         "the central station and the university campus."),
    F(2, "The plan is expected to cost 85 million euros, of which about 60 percent will come from "
         "a national infrastructure fund and the rest from the city's own budget. A study "
         "commissioned by the transport department estimated that the share of trips made by "
         "bicycle could rise from 12 percent today to 20 percent by 2030 if the full network is "
         "completed. The same study found that collisions involving cyclists fell by a third on "
         "streets where protected lanes were introduced during a pilot in 2021, although the "
         "authors cautioned that the pilot covered only four streets."),
    F(3, "Retailers' association chair Marta Lindqvist called the vote a mistake and said her "
         "members would ask the council to phase in parking removal over a longer period. A "
         "survey of 300 shops carried out by the association found that 58 percent expected "
         "sales to fall during construction. Cycling groups welcomed the decision but said the "
         "timetable was too slow and urged the city to lower the speed limit to 30 kilometres "
         "per hour on residential streets at the same time."),
    F(4, "Similar programmes elsewhere offer mixed evidence. In Seville, a network of around 80 "
         "kilometres of segregated lanes built between 2006 and 2011 was followed by a sharp rise "
         "in cycling, from well under one percent of trips to around six percent. Researchers "
         "note, however, that results depend heavily on whether the lanes form a connected "
         "network rather than isolated segments, and that several cities which built "
         "disconnected lanes saw little change in behaviour."),
]
BIKES_S = [
    ("The council passed the cycling plan on Tuesday, 31 votes to 14.", 1),
    ("It will add 120 kilometres of protected bike lanes within five years.", 1),
    ("Around 2,000 parking spaces will become cycle paths, loading zones and wider pavements.", 1),
    ("Opponents said shop owners on the main shopping streets had not been consulted.", 1),
    ("Construction starts around the central station and the university campus.", 1),
    ("The network will cost 85 million euros, most of it from a national infrastructure fund.", 2),
    ("A transport department study expects cycling's share of trips to rise from 12 to 20 percent "
     "by 2030.", 2),
    ("Where protected lanes were piloted in 2021, collisions involving cyclists fell by a third.", 2),
    ("But the pilot covered only four streets, the authors warned.", 2),
    ("Marta Lindqvist, who chairs the retailers' association, called the vote a mistake.", 3),
    ("In the association's survey of 300 shops, 58 percent expected sales to fall during "
     "construction.", 3),
    ("Cycling groups want a 30 km/h limit on residential streets.", 3),
    ("Seville built about 80 kilometres of segregated lanes between 2006 and 2011.", 4),
    ("Whether lanes form a connected network matters more than their length, researchers say.", 4),
    ("Cities that built disconnected lanes saw little change in how people travel.", 4),
    ("The vote was 31 to 14 after a debate of over six hours.", 1),
]
BIKES_U = [
    "The mayor promised free bike rentals for students from next spring.",
    "Amsterdam's network took four decades to build.",
    "Bus drivers' unions have also criticised the plan.",
    "Electric scooters will be banned from the new lanes.",
    "Property prices near new bike lanes tend to rise.",
    "The plan will cost 120 million euros.",
    "Air pollution in the city centre is among the worst in the country.",
    "Several council members want a referendum on the plan before construction begins.",
    "Shop owners have threatened legal action against the council.",
    "Cycling to work reduces the risk of heart disease considerably.",
    "The opposition party promised to scrap the plan if it wins the next election.",
    "Parking fees in the centre will double next year.",
    "Winter weather makes cycling difficult for several months a year.",
    "A vote like this tells you more about politics than about traffic.",
    "Nobody knows yet whether the customers will really stay away.",
    "Copenhagen is often held up as the model for such plans.",
]
CASES = [(HEAT, HEAT_S, [*HEAT_U, HEAT_STRICT]), (BIKES, BIKES_S, BIKES_U)]


def facts_text(facts: list[F], n: int | None) -> str:
    """The text of the chunks numbered n."""
    return " ".join(" ".join(f.text.split()) for f in facts if f.n == n)


@pytest.fixture
def tok(ws):  # noqa: ANN001, ANN201
    """The workspace's sparse tokenizer."""
    return ws.sparse.tokenize


def test_invalid_markers_removed_and_counted(tok) -> None:  # noqa: ANN001
    """Markers naming no listed source go; valid ones stay and are counted as resolved."""
    text = ("Sales of heat pumps across Europe dropped 21% in 2024 [1]. The association is large "
            "[7]. Germany halved [1, 9]. Poland fell too [2][2].")
    r = check_grounding(text, HEAT, tokenize=tok)
    assert r.resolved == 3 and r.removed == 2
    assert "large." in r.text and "[7]" not in r.text and "[9]" not in r.text
    assert "Germany halved [1]." in r.text and "Poland fell too [2]." in r.text


def test_resolve_markers_edge_cases() -> None:
    """Ranges, lists, code, headings and markdown links."""
    text = ("# Heading [3]\n\nA claim [1-3]. Another [2; 5].\n\n```\nx = [4]\n```\n\n"
            "See [1](https://x.example) and `a[9]`.\n")
    fixed, resolved, removed = resolve_markers(text, {1, 2})
    assert "# Heading [3]" in fixed and "x = [4]" in fixed and "`a[9]`" in fixed
    assert "A claim [1][2]." in fixed and "Another [2]." in fixed
    assert "[1](https://x.example)" in fixed
    assert (resolved, removed) == (3, 2)
    assert expand_marker("1, 3") == [1, 3] and expand_marker("2\u20134") == [2, 3, 4]
    assert count_citations(fixed) == 3


def test_headings_lists_and_code_are_not_sentences() -> None:
    """Only prose counts; list items are sentences without their markers; abbreviations hold."""
    text = ("# The Title Of It\n\nFirst sentence here, e.g. with an abbreviation. Dr. Smith "
            "agreed with the U.S. team. Version 3.5 shipped.\n\n- A list item that is a "
            "sentence\n1. Another numbered item here\n\n```python\nprint('Not. A. Sentence.')\n"
            "```\n\n| a table | row |\n|---|---|\n\n> A quoted line that\n> continues here.\n")
    got = [text[a:b] for a, b in split_sentences(text)]
    assert got == ["First sentence here, e.g. with an abbreviation.",
                   "Dr. Smith agreed with the U.S. team.", "Version 3.5 shipped.",
                   "A list item that is a sentence", "Another numbered item here",
                   "A quoted line that\n> continues here."]


@pytest.mark.parametrize("case", [0, 1], ids=["heat-pumps", "cycling"])
def test_support_adds_markers_only_where_a_fact_supports(ws, tok, case: int) -> None:  # noqa: ANN001
    """Each supported sentence gets its source's marker; no unsupported one gets any."""
    facts, supported, unsupported = CASES[case]
    lines = [s for s, _ in supported] + unsupported
    r = check_grounding("\n\n".join(lines), facts, tokenize=tok, embed=ws.embedder.embed)
    assert r.sentences == len(lines) and r.resolved == r.removed == 0
    by_text = {d.text: d for d in r.details}
    for sentence, n in supported:
        d = by_text[sentence]
        assert (d.status, d.best) == ("added", n), (sentence, d)
    for sentence in unsupported:
        assert by_text[sentence].status == "unsupported", (sentence, by_text[sentence])
    assert r.added == len(supported) == r.citations
    assert r.unsupported == len(unsupported)
    assert r.unsupported_sentences() == unsupported
    assert r.supported_share == pytest.approx(len(supported) / len(lines))
    assert all(d.evidence and d.evidence in facts_text(facts, d.best) for d in r.details
               if d.status == "added")
    first, n = supported[0]
    assert f"{first[:-1]} [{n}]." in r.text


def test_lexical_only_is_cautious(tok) -> None:  # noqa: ANN001
    """Without an embedder only near-verbatim sentences get a marker; none is invented."""
    text = "\n\n".join([s for s, _ in HEAT_S] + HEAT_U)
    r = check_grounding(text, HEAT, tokenize=tok)
    added = [d for d in r.details if d.status == "added"]
    assert len(added) >= len(HEAT_S) // 2
    truth = dict(HEAT_S)
    assert all(d.text in truth and truth[d.text] == d.best for d in added)
    assert all(d.status == "unsupported" for d in r.details if d.text in HEAT_U)


def test_figures_must_match(ws, tok) -> None:  # noqa: ANN001
    """A chunk never supports a sentence whose figures it lacks."""
    r = check_grounding("Sales of heat pumps across Europe dropped 35% in 2024.", HEAT,
                        tokenize=tok, embed=ws.embedder.embed)
    assert (r.added, r.unsupported, r.text.count("[")) == (0, 1, 0)
    assert numbers("1,200 units, 3.50 euros and two") == {"1200", "3.5"}
    assert "2" in numbers("two", spelled=True)


def test_cited_sentences_keep_their_markers(ws, tok) -> None:  # noqa: ANN001
    """A model marker is kept (no duplicate added); a cited but unsupported claim is counted."""
    text = ("Sales of heat pumps across Europe dropped 21% in 2024 [1]. "
            "France became the largest heat pump market in Europe in 2024 [2].")
    r = check_grounding(text, HEAT, tokenize=tok, embed=ws.embedder.embed)
    assert r.text == text and r.added == 0 and r.resolved == 2 and r.citations == 2
    assert [d.status for d in r.details] == ["cited", "unsupported"] and r.unsupported == 1


def test_marker_placement(ws, tok) -> None:  # noqa: ANN001
    """Added markers go before the full stop, or at the end of a list item without one."""
    text = ('# Heat\n\n- Nordic countries have the most heat pumps per household in Europe\n\n'
            'Installers say: "the upfront cost remains the main barrier for households."')
    r = check_grounding(text, HEAT, tokenize=tok, embed=ws.embedder.embed)
    assert "household in Europe [5]\n" in r.text
    assert r.text.endswith('for households." [3]')
    assert r.added == 2 and r.sentences == 2


def test_background_support_is_not_unsupported(ws, tok) -> None:  # noqa: ANN001
    """A sentence backed by evergreen background is neither cited nor counted unsupported."""
    back = ["A refrigerant absorbs heat when it evaporates and releases it when it condenses."]
    text = "The refrigerant takes in heat as it evaporates and gives it off as it condenses."
    r = check_grounding(text, HEAT, tokenize=tok, embed=ws.embedder.embed, background=back)
    assert [d.status for d in r.details] == ["background"] and r.unsupported == 0
    assert r.added == 0


def test_no_facts_and_short_fragments() -> None:
    """With no facts every sentence is unsupported; fragments below min_words are not counted."""
    r = check_grounding("Yes. It rained all day in town [1].", [], tokenize=str.split,
                        thresholds=Thresholds(min_words=3))
    assert (r.sentences, r.unsupported, r.removed, r.citations) == (1, 1, 1, 0)
    assert r.figures() == {"citations": 0, "resolved": 0, "added": 0, "removed": 1,
                           "unsupported": 1, "sentences": 1}


def test_markers_without_a_claim_are_removed_and_counted() -> None:
    from nonseq.text.citations import drop_orphan_markers
    from nonseq.verify.grounding import check_grounding

    text, dropped = drop_orphan_markers("# T\n\n[1]\n2. [3][4]. [5]\n\nShort one [1].\nA real claim here [2].")
    assert dropped == 5
    assert "[1]" not in text and "A real claim here [2]." in text and "Short one." in text
    result = check_grounding("[1]\n2. [1][2].", [], tokenize=str.split)
    assert result.citations == 0 and result.resolved == 0 and result.removed == 3
