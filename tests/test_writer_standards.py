"""Sentences a careful reader would keep (issue 47): who does what, fragments, sentences that lean,
page furniture and links, attribution, dates, repeats, and the review of an article.

The role and fragment checks run on the real parser (spaCy's en_core_web_sm 3.8.0 pipeline); the
furniture fixtures are pages in MediaWiki's and Sphinx's own markup, run through the project's
extractor; the plan runs on the bundled embedder.
"""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest
from test_writer import RESTATING, OverlapSupport, ScriptedLLM, make_pack, schema

from nonseq.research.extract import extract
from nonseq.text.abbreviations import definitions
from nonseq.text.furniture import clean_inline, furniture_reason, unlink
from nonseq.text.parse import fragment, keeps_case, order
from nonseq.text.voice import according_to, opinion, opinion_page, site_name, unframed
from nonseq.text.when import anchor
from nonseq.verify.roles import role_change
from nonseq.verify.rules import Verifier, near_repeat, stems
from nonseq.writing.compose import (
    Composer,
    SentenceRecord,
    assemble,
    counts,
    own_words,
    page_names,
    review,
    source_name,
)
from nonseq.writing.plan import PlanSettings, SourceSentence, Unit, build_plan

FIREFOX = ("Firefox is a web browser, and is Mozilla's flagship software product. "
           "Firefox was originally named Phoenix. "
           "Sub-communities have formed around localization efforts for the Mozilla web properties.")


@pytest.mark.parametrize(("sentence", "source"), [
    ("Mozilla is a web browser.", "Firefox is a web browser, and is Mozilla's flagship software product."),
    ("Phoenix was originally named Phoenix.", "Firefox was originally named Phoenix."),
    ("The Mozilla web properties have formed around localization efforts.",
     "Sub-communities have formed around localization efforts for the Mozilla web properties."),
    ("The man told Dempsey to remove the feather bedding.",
     "Dempsey told the man to remove the feather bedding from his home."),
    ("Google was acquired by YouTube in 2006.", "Google acquired YouTube in 2006."),
])
def test_a_restatement_that_changes_who_does_what_fails(sentence: str, source: str) -> None:
    """The subject, agent or object moved to another role: the parse sees it, word overlap does not."""
    assert role_change(sentence, [source]), sentence
    verdict = Verifier(OverlapSupport(), 0.5).check(sentence, [source])
    assert not verdict.ok and any("who does what" in r or "main verb" in r for r in verdict.reasons), verdict


@pytest.mark.parametrize(("sentence", "source"), [
    ("Firefox is Mozilla's flagship web browser.",
     "Firefox is a web browser, and is Mozilla's flagship software product."),
    ("Firefox was first named Phoenix.", "Firefox was originally named Phoenix."),
    ("YouTube was acquired by Google in 2006.", "Google acquired YouTube in 2006."),
    ("Dempsey told the man to remove the bedding.",
     "Dempsey told the man to remove the feather bedding from his home."),
])
def test_a_restatement_that_keeps_who_does_what_passes(sentence: str, source: str) -> None:
    """The same roles, in other words or the other voice, pass the role check."""
    assert role_change(sentence, [source]) == "", sentence


def test_the_parser_loads_without_torch_and_torch_still_imports_after() -> None:
    code = ("import sys\n"
            "from nonseq.text.parse import clauses\n"
            "c = clauses('Firefox is a web browser made by Mozilla.')\n"
            "print('torch' in sys.modules, c[0].agent_head)\n"
            "import torch\n"
            "print(torch.tensor([1]).item())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "firefox", "1"]


def test_a_fragment_never_passes_from_the_model_or_the_page(embed: Any) -> None:
    """No finite verb or no subject: a fragment, whoever wrote it."""
    assert fragment("Dave Hyatt, Joe Hewitt and Blake Ross [1].") == "no finite verb"
    assert fragment("Robin Biesbroek, the commander of the mission.") == "no finite verb"
    assert fragment("Firefox was released in 2004.") == ""
    assert fragment("Keep the lid closed.") != "" and fragment("Keep the lid closed.", allow_imperative=True) == ""
    source = "Firefox was created by Dave Hyatt, Joe Hewitt and Blake Ross as an experiment."
    verdict = Verifier(OverlapSupport(), 0.5).check("Dave Hyatt, Joe Hewitt and Blake Ross.", [source])
    assert "fragment: no finite verb" in verdict.reasons
    page = ("Firefox was created by Dave Hyatt, Joe Hewitt and Blake Ross as an experiment of Mozilla.\n"
            "Dave Hyatt, Joe Hewitt and Blake Ross, the three founders of the Firefox browser project.")
    plan = build_plan(make_pack([page], "The Firefox web browser", "how Firefox began"), schema(), embed)
    frag = next(s for s in plan.sentences if s.text.startswith("Dave Hyatt"))
    assert frag.reason == "fragment: no finite verb"


def test_a_failed_role_goes_to_the_literal_retry_then_to_the_source_sentence(embed: Any) -> None:
    """The model swaps the roles twice: the article says the source's own sentence."""
    page = "Firefox was originally named Phoenix by its developers at Mozilla in 2002."
    plan = build_plan(make_pack([page], "The Firefox web browser", "how Firefox began"), schema(), embed)
    script = {"Phoenix": ["Phoenix was originally named Phoenix by its developers at Mozilla in 2002.",
                          "Mozilla was originally named Phoenix by its developers in 2002."]}
    records = Composer(ScriptedLLM(script), Verifier(OverlapSupport(), 0.5), RESTATING).run(plan)
    rec = next(r for r in records if "Phoenix" in r.unit.text)
    assert [a.kind for a in rec.attempts] == ["free", "literal", "verbatim"], rec.attempts
    assert rec.made == "verbatim" and rec.text == page


MEDIAWIKI = """<!DOCTYPE html><html><head><title>Mozilla Firefox - Wikipedia</title></head><body>
<div id="mw-content-text"><div class="mw-parser-output">
<p><b>Mozilla Firefox</b> is a free and open-source web browser developed by the Mozilla Foundation.<sup
 id="cite_ref-1" class="reference"><a href="#cite_note-1">[1]</a></sup> Firefox uses the Gecko rendering engine
 to display web pages.<sup class="reference"><a href="#cite_note-2">[2]</a></sup></p>
<h2><span class="mw-headline" id="History">History</span><span class="mw-editsection"><span
 class="mw-editsection-bracket">[</span><a href="/w/index.php?title=Firefox&amp;action=edit&amp;section=1">edit</a><span
 class="mw-editsection-bracket">]</span></span></h2>
<div role="note" class="hatnote navigation-not-searchable">Main article: <a href="/wiki/History_of_Firefox">History of
 Firefox</a></div>
<p>The project began as an experimental branch of the Mozilla project by Dave Hyatt, Joe Hewitt and Blake
 Ross.<sup class="noprint Inline-Template Template-Fix"><i>[<a href="/wiki/Wikipedia:Citation_needed">citation
 needed</a>]</i></sup> The browser was renamed Firefox in February 2004 after a trademark dispute with the
 Firebird database project.<sup class="reference"><a href="#cite_note-3">[3]</a></sup></p>
<p>Firefox quickly gained market share from Internet Explorer in the years after its first release in
 November 2004, according to StatCounter.</p>
<h2><span class="mw-headline" id="References">References</span></h2>
<ol class="references"><li id="cite_note-1"><b><a href="#cite_ref-1">^</a></b> <cite>"Firefox 1.0 release
 notes". Mozilla. Archived from <a href="https://web.archive.org/x">the original</a> on 10 November 2004.
 Retrieved 5 May 2020.</cite></li>
<li id="cite_note-2"><b><a href="#cite_ref-2">^</a></b> <cite>"Gecko". MDN Web Docs. Retrieved 12 June
 2021.</cite></li></ol>
<p>This page was last edited on 3 December 2023, at 10:15 (UTC). Text is available under the Creative Commons
 Attribution-ShareAlike License 4.0; additional terms may apply.</p>
</div></div></body></html>"""

SPHINX = """<!DOCTYPE html><html><head><title>Installing the parser &mdash; parsekit 2.1 documentation</title></head>
<body><div class="wy-nav-side"><a href="index.html">Docs</a> &raquo; <a href="guide.html">User guide</a> &raquo;
 Installing</div>
<div role="main" class="document"><div class="section" id="installing">
<h1>Installing the parser<a class="headerlink" href="#installing" title="Permalink to this headline">¶</a></h1>
<p>The parser reads a configuration file and builds a syntax tree for every input document in one pass.</p>
<p>See the <a href="https://parsekit.example/docs/config.html">configuration reference</a> for every option.
 Full details are at https://parsekit.example/docs/full.html and in the changelog.</p>
<p>Version 2.1 of the parser added support for streaming input and cut its memory use in half.</p>
<p>The parser keeps its cache in memory, and the cache is cleared when a run ends.</p>
</div></div>
<footer><div class="rst-footer-buttons"><a href="next.html" class="btn">Next <span>&rarr;</span></a>
<a href="prev.html" class="btn"><span>&larr;</span> Previous</a></div>
<p>&copy; Copyright 2024, The parsekit authors.</p>
<p>Built with <a href="https://www.sphinx-doc.org/">Sphinx</a> using a <a href="https://github.com/readthedocs">theme</a>
 provided by <a href="https://readthedocs.org">Read the Docs</a>.</p>
<a href="https://github.com/x/parsekit/blob/main/docs/install.rst">Edit on GitHub</a></footer></body></html>"""

FURNITURE = ("[1]", "[2]", "[edit]", "edit]", "citation needed", "Main article", "Archived from",
             "Retrieved", "last edited", "Creative Commons", "Next", "Previous", "Copyright",
             "Built with", "Edit on GitHub", "¶", "http", "](", "»", "parsekit.example")


def _planned(embed: Any, html: str, url: str, title: str, focus: str) -> tuple[Any, list[str]]:
    """The plan of one page extracted by the project's extractor, and its planned sentences."""
    doc = extract(html, "text/html", url)
    assert doc is not None
    plan = build_plan(make_pack([doc.text], title, focus), schema(), embed, PlanSettings(topic_floor=0.2))
    return plan, [s.text for u in plan.units for s in u.sentences]


@pytest.mark.parametrize(("html", "title", "focus", "kept"), [
    (MEDIAWIKI, "The Mozilla Firefox web browser", "its history", "renamed Firefox in February 2004"),
    (SPHINX, "Installing the parsekit parser", "what the parser does", "builds a syntax tree"),
])
def test_page_furniture_and_links_never_reach_the_plan_or_the_article(
        embed: Any, html: str, title: str, focus: str, kept: str) -> None:
    """Wiki and docs markup (edit links, footnotes, hatnotes, references, navigation, links) stays out."""
    plan, said = _planned(embed, html, "http://127.0.0.1/page", title, focus)
    assert any(kept in s for s in said), plan.to_markdown()
    for text in said:
        assert not any(f in text for f in FURNITURE), text
    records = Composer(ScriptedLLM({}), Verifier(OverlapSupport(), 0.5), RESTATING).run(plan)
    body = assemble(plan, records, headings=True)
    prose = "\n".join(line for line in body.splitlines() if not line.startswith("#"))
    ours = re.sub(r" \[\d+\](?=[.!?])", "", prose)  # the plan's markers: ` [n].` at a sentence's end
    assert ours and not any(f in ours for f in FURNITURE) and not re.search(r"\[\d+\]", ours), body


def test_inline_markers_and_links_are_cleaned_and_a_url_sentence_is_left_out() -> None:
    """A `[n]` of the page never becomes a marker; a Markdown link becomes its text; a URL is never said."""
    assert clean_inline("The pump failed in 2019[3] and again in 2020.[citation needed]") == (
        "The pump failed in 2019 and again in 2020.")
    assert clean_inline("See [the guide](https://x.example/guide) for details.") == "See the guide for details."
    assert clean_inline("Read it ![logo](logo.png) now [note 2] [a].") == "Read it now."
    # a health page's reference numbers and summary box label; years, list numbers and words stay
    assert clean_inline("Support may reduce stress (32, 33).") == "Support may reduce stress."
    assert clean_inline("Yoga reduced binging (12), one study found (4-6).") == "Yoga reduced binging, one study found."
    assert clean_inline("Summary: Mindfulness can help.") == clean_inline("Summary Mindfulness can help.") == (
        "Mindfulness can help.")
    for kept in ("The plant opened in (2019).", "Two parts: (1) a tax and (2) a rebate.",
                 "Summary statistics were published in May."):
        assert clean_inline(kept) == kept
    assert furniture_reason("Buy them at https://pumpco-deals.example today.") == "holds a URL or link"
    assert furniture_reason("Visit www.pumpco-deals.example for the offer.") == "holds a URL or link"
    assert furniture_reason("Retrieved 5 May 2020.").startswith("page furniture")
    assert furniture_reason("Next year the company will open a plant in Ohio.") == ""
    assert unlink("Pumps [fail](http://x.example) rarely, see http://y.example.") == "Pumps fail rarely, see."


def test_a_sentence_that_leans_is_planned_with_its_sentence_or_left_out(embed: Any) -> None:
    """"It ..." joins the sentence it leans on; without it, it is no unit; in the article it follows
    a sentence of the same source or is left out."""
    page = ("Firefox was released by Mozilla in November 2004 as a free web browser.\n"
            "It quickly gained market share from Internet Explorer in Europe and North America.")
    plan = build_plan(make_pack([page], "The Firefox web browser", "its release"), schema(), embed)
    pair = next(u for u in plan.units if any(s.text.startswith("It quickly") for s in u.sentences))
    assert pair.sentences[0].text.startswith("Firefox was released")
    alone = build_plan(make_pack([page.split("\n")[1]], "The Firefox web browser", "its release"), schema(), embed)
    assert not alone.units
    assert next(s for s in alone.sentences if s.text.startswith("It")).reason.startswith("leans on")
    verdict = Verifier(OverlapSupport(), 0.5).check("It was released by Mozilla in November 2004 as a free browser.",
                                                    [page.split("\n")[0]])
    assert 'leans on a sentence before it (opens with "It")' in verdict.reasons
    records = Composer(ScriptedLLM({}), Verifier(OverlapSupport(), 0.5), RESTATING).run(plan)  # echoes the pair
    body = assemble(plan, records, headings=True)
    assert "It quickly gained" in body and body.index("Firefox was released") < body.index("It quickly")


def test_relative_time_is_anchored_to_the_page_date_or_left_out() -> None:
    """'Earlier this year' takes the page's year; with no date the sentence is not said."""
    assert anchor("Earlier this year, NASA found water vapour.", "2019-11-19") == (
        "Earlier in 2019, NASA found water vapour.")
    assert anchor("Sony said on Tuesday that sales rose last year.", "2019-11-21T08:00:00Z") == (
        "Sony said on 19 November 2019 that sales rose in 2018.")
    assert anchor("Sales rose last week.", "") is None
    assert anchor("Sales rose in 2018.", "") == "Sales rose in 2018."
    assert anchor("Super Tuesday results came in.", "") == "Super Tuesday results came in."
    # a weekday goes the way of its verb; a present verb could mean either way, so it is not said
    assert anchor("Omar asked for compassion in a letter posted Tuesday.", "2019-11-21") == (
        "Omar asked for compassion in a letter posted on 19 November 2019.")
    assert anchor("Google said Tuesday it will ship the phone.", "2019-11-21") == (
        "Google said on 19 November 2019 it will ship the phone.")
    assert anchor("Apple will release the laptop on Friday.", "2019-11-21") == (
        "Apple will release the laptop on 22 November 2019.")
    # time counted back from the page's date: a number of units is written as a date, a vague count is not said
    assert anchor("A year ago, NASA picked nine companies.", "2019-11-19") == "In 2018, NASA picked nine companies."
    assert anchor("Prices fell three months ago.", "2019-11-19") == "Prices fell in August 2019."
    assert anchor("The plant opened two weeks ago.", "2019-11-19") == (
        "The plant opened in the week of 5 November 2019.")
    assert anchor("Several years ago, the plant closed.", "2019-11-19") is None
    # a day or week said as a possessive has no date to stand in its place: not said (a quotation's is its speaker's)
    assert anchor("He managed last week’s rollout of the service.", "2019-11-19") is None
    assert anchor("Tuesday's hearing was delayed.", "2019-11-19") is None
    assert anchor('"Today\'s second hearing is over," Grisham said.', "2019-11-19") == (
        '"Today\'s second hearing is over," Grisham said.')
    assert anchor("Today's children read less than their parents.", "2019-11-19") == (
        "Today's children read less than their parents.")
    assert anchor("More than a year ago, the plant closed.", "2019-11-19") is None
    assert anchor("A year ago, NASA picked nine companies.", "") is None
    # a month without its year: the page's year for the past, the next such month for what will happen
    assert anchor("In July, NASA awarded three contracts.", "2019-11-19") == (
        "In July 2019, NASA awarded three contracts.")
    assert anchor("The rover will land on July 22.", "2019-11-19") == "The rover will land on July 22, 2020."
    assert anchor("In November, the air over Delhi gets still.", "2019-11-19") == (
        "In November, the air over Delhi gets still.")                   # present: a habit, not a date
    assert anchor("In December, the firm cut jobs.", "2019-11-19") == "In December, the firm cut jobs."
    # a planned event's day still ahead of the page's date is of the page's year, whatever the clause's verb
    assert anchor("Trump has decided that cancelling a scheduled Dec. 15 imposition of tariffs needs more.",
                  "2019-11-20") == (
        "Trump has decided that cancelling a scheduled Dec. 15, 2019, imposition of tariffs needs more.")
    assert anchor("The envoy will face questions about Trump's July 25 call.", "2019-11-20") == (
        "The envoy will face questions about Trump's July 25 call.")  # a noun's day, not a plan's: no year to write
    assert anchor("The tour stops at Blossom Music Center on July 22.", "2019-11-20") == (
        "The tour stops at Blossom Music Center on July 22.")  # present: a timetable or a habit, left as it is
    assert anchor("In 2017, the firm opened a plant in July.", "2019-11-19") == (
        "In 2017, the firm opened a plant in July.")
    assert anchor("She said, “We met in July and agreed.”", "2019-11-19") == "She said, “We met in July and agreed.”"
    assert anchor("In July, NASA awarded three contracts.", "") == "In July, NASA awarded three contracts."
    assert anchor("Stadia's launch day is Tuesday.", "2019-11-18") is None
    assert anchor("The vote is scheduled for Thursday.", "2019-11-18") == (  # a planned event points forward
        "The vote is scheduled for 21 November 2019.")
    # the page's present is said as of its date, never inside a quotation; "now" counted to stays
    assert anchor("Analysts expect EV models to grow from 16 currently to 80 by 2022.", "2019-11-20") == (
        "As of 20 November 2019, analysts expect EV models to grow from 16 to 80 by 2022.")
    assert anchor("Kathleen DelGiorno, now a staff scientist at Salk, showed it.", "2019-11-15") == (
        "As of 15 November 2019, Kathleen DelGiorno, a staff scientist at Salk, showed it.")
    assert anchor("Currently, NASA tests the rover.", "2019-11-15") == "As of 15 November 2019, NASA tests the rover."
    assert anchor("NASA is now planning a mission.", "") is None
    quoted = '"For a while now hibernation has been proposed," explains Jennifer Ngo-Anh.'
    assert anchor(quoted, "2019-11-15") == quoted
    assert anchor("But currently there are more factors.", "2019-11-15") == (
        "But as of 15 November 2019, there are more factors.")  # the opener stays first, for the leaning check
    assert anchor("The deal could be pushed into next year.", "2019-11-15") == "The deal could be pushed into 2020."
    assert anchor("The court ruled on Tuesday that there will now be no appeal.", "2019-11-21") == (
        "The court ruled on 19 November 2019 that there will be no appeal.")  # dated once, not twice
    for kept in ("Now, the company sells phones.", "Until now, nobody knew.", "Now that the vote is over, we rest."):
        assert anchor(kept, "2019-11-15") == kept


@pytest.mark.parametrize(("sentence", "published", "said"), [
    ("The service launched last Tuesday.", "2019-11-19", "The service launched on 12 November 2019."),  # a Tuesday
    ("The service launched last Monday.", "2019-11-21", "The service launched on 18 November 2019."),
    ("The service launched Tuesday.", "2019-11-19", "The service launched on 19 November 2019."),  # that day
    ("Staff will get notice Monday.", "2019-11-18", "Staff will get notice on 18 November 2019."),
    ("Apple will release the laptop on Friday.", "2019-11-21", "Apple will release the laptop on 22 November 2019."),
    ("The vote is next Tuesday.", "2019-11-19", "The vote is on 26 November 2019."),  # "next": the way is said
    ("The vote is next Thursday.", "2019-11-19", "The vote is on 21 November 2019."),
    ("The vote is Thursday.", "2019-11-19", None),  # a present verb and no "next": which Thursday is not said
])
def test_a_weekday_is_dated_the_way_its_words_point(sentence: str, published: str, said: str | None) -> None:
    """"last Tuesday" on a Tuesday's page is the week before, "next Tuesday" the week after; a bare weekday
    the page's own day, or the nearest one its verb points to (reading labelled "last Tuesday" dated as the
    page's own day, and "will begin ... Monday" on a Monday's page dated a week on, false)."""
    assert anchor(sentence, published) == said


def test_a_long_page_title_is_cut_at_a_word_where_a_sentence_is_framed_as_its_pages() -> None:
    """"According to “... Jupiter's Moon…”", never "“... Moon E”"."""
    def unit(title: str) -> Unit:
        return Unit([SourceSentence("c0.s0", "Water vapour was found.", 0, 0, "http://127.0.0.1/x", title, "p", 1.0)])

    long = "NASA Just Confirmed There Are Water Plumes Above The Surface of Jupiter's Moon Europa"
    assert source_name(unit(long)) == (
        "“NASA Just Confirmed There Are Water Plumes Above The Surface of Jupiter's Moon…”")
    assert source_name(unit("15 Tips to Overcome Binge Eating")) == "“15 Tips to Overcome Binge Eating”"
    assert source_name(unit("")) == "the source"



def test_a_name_the_pages_capitalise_keeps_its_capital_after_a_frame() -> None:
    """"Clipper" (the pages' "NASA's Europa Clipper mission") stays a name after "According to ...,", whatever
    the parse took it for; a common word capitalised in a name ("Pew Research Center") does not."""
    pages = ["NASA's Europa Clipper mission will launch in 2024.", "Data came from the Pew Research Center.",
             "Clipper will orbit Jupiter, and it will probably study Europa up close.",
             "Research will probably show more plumes."]
    names = page_names(pages)
    assert "Clipper" in names and "Research" not in names and "Europa" not in names
    def unit(text: str) -> Unit:
        return Unit([SourceSentence("c0.s0", text, 0, 0, "http://127.0.0.1/x", "Space | space.com", "p", 1.0)])
    assert own_words(unit(pages[2]), 40, names)[2].startswith("According to space.com, Clipper will orbit")
    assert own_words(unit(pages[3]), 40, names)[2].startswith("According to space.com, research will")

def test_what_the_tune_reading_found_unattributed_is_dated_or_said_as_its_pages() -> None:
    """The tune split's blind reading (docs/writing.md) labelled these `unattributed`: a prediction whose only
    speech-verb word is a noun ("Trump's July 25 call" names nobody's view), an inference "almost certainly",
    "so far" and "year-to-date" with no date, and a month with no year that a planned event is "scheduled to"
    take place in."""
    envoy = "The envoy is likely to face tough questions about Trump's July 25 call with Zelenskiy."
    assert opinion(envoy) == "prediction: is likely to"
    assert opinion("The claims were likely to fail in court.") == "speculation: likely"  # a noun "claims"
    assert opinion("Analysts expect the deal to fail.") == ""  # a holder the sentence names
    assert opinion("The find almost certainly means the moon has liquid water.") == "speculation: almost certainly"
    assert opinion("Getting Disney+ right will be a key test of Mayer’s mettle.") == "prediction: will be a key test"
    assert anchor("Trump hasn't committed to any specifics so far, White House advisers say.", "2019-11-20") == (
        "As of 20 November 2019, Trump hasn't committed to any specifics, White House advisers say.")
    assert anchor("So far as we know, the plant is safe.", "2019-11-20") == "So far as we know, the plant is safe."
    assert anchor("Shares are up 39 percent year-to-date.", "2019-11-19") == (
        "Shares are up 39 percent from 1 January to 19 November 2019.")
    assert anchor("Year-to-date, shares are up 39 percent.", "2019-11-19") == (
        "From 1 January to 19 November 2019, shares are up 39 percent.")
    assert anchor("It is the most detailed model of the universe to date.", "2019-11-19") == (
        "As of 19 November 2019, it is the most detailed model of the universe.")
    assert anchor("Keep the software up to date.", "2019-11-19") == "Keep the software up to date."
    hearing = "a judge rejected his bid to delay the hearing, which is scheduled to take place in February"
    assert anchor(f"Last month, {hearing}.", "2019-11-19") == f"In October 2019, {hearing} 2020."
    assert keeps_case("Trump is the final decision-maker on any deal.")  # a name the tagger reads as a noun
    assert not keeps_case("The European Space Agency said so.") and not keeps_case("Sales rose in May.")


def test_an_opinion_names_whose_it_is(embed: Any) -> None:
    """A verdict in the source's own voice is said as its source's, never in the article's voice."""
    assert opinion("The Xbox One X is the ultimate video game system.").startswith("verdict")
    assert opinion("Engadget's review calls the Xbox One X the ultimate video game system.") == ""
    assert opinion("The Xbox One X went on sale in November 2017.") == ""
    assert opinion("Sadly, Delhi's smog has become a feature of every winter.") == "stance: sadly"
    assert opinion("The launch, unfortunately, slipped to 2021.") == "stance: unfortunately"
    assert opinion("Foreign leaders have a duty to remind China that they are watching.").startswith("recommendation")
    assert opinion("The minister spoke clearly about the plan.") == ""
    # a hedge in the page's own voice is its writer's guess: said as the page's
    assert opinion("The song probably does not refer to a duvet.") == "speculation: probably"
    assert opinion("The smog appears to be thicker than in 2018.") == "speculation: appears to"
    assert opinion("The minister appeared in court on Monday.") == ""
    # a speech verb that only describes a noun says nothing of whose the claim is
    assert opinion("The plan appears consistent with another announced by the ministry in March 2019.") == (
        "speculation: appears consistent")
    assert opinion("The device, called the Pixel, is the best phone of the year.") == "verdict: best"
    assert opinion("The ministry announced that the plan is the best in Asia.") == ""
    assert opinion_page("Why Beijing will crush Hong Kong", "https://example.com/opinion/why-beijing")
    assert opinion_page("The Guardian view on Hong Kong | Editorial", "http://127.0.0.1/world/hong-kong")
    assert not opinion_page("Hong Kong protests grow", "https://example.com/news/world/hong-kong")
    assert site_name("Xbox One X review: the ultimate console | Engadget", "http://127.0.0.1/x") == "Engadget"
    assert site_name("Xbox One X review", "https://www.engadget.com/x") == "engadget.com"
    assert site_name("Xbox One X review", "http://127.0.0.5/x") == ""
    # a site that calls itself by its address is named by its host (a frame's URL would be cut as furniture);
    # a platform's word for itself ("Hosted") names no one, so the page's title does
    assert site_name("Telescope spots vapor", "http://127.0.0.5/x", "https://www.hawaiinewsnow.com") == (
        "hawaiinewsnow.com")
    assert site_name("Sondland faces questions", "http://127.0.0.5/x", "Hosted") == ""
    assert site_name("Sondland faces questions", "http://127.0.0.5/x", "Wired") == "Wired"
    assert according_to("The Xbox One X is the best console.", "Engadget", False) == (
        "According to Engadget, the Xbox One X is the best console.")
    page = "The Xbox One X is the ultimate video game system for anyone with a 4K television."
    pack = make_pack([page], "The Xbox One X console", "what reviewers found")
    pack.research[0].chunk.title = "Xbox One X review | Engadget"
    plan = build_plan(pack, schema(), embed)
    records = Composer(ScriptedLLM({}), Verifier(OverlapSupport(), 0.5), RESTATING).run(plan)
    rec = next(r for r in records if "ultimate" in r.unit.text)
    assert rec.made == "verbatim" and rec.text == (
        "According to Engadget, the Xbox One X is the ultimate video game system for anyone with a 4K television.")
    assert [a.kind for a in rec.attempts] == ["verbatim"]  # a verdict never goes to the model
    column = "Beijing has run out of patience with the protesters in Hong Kong."
    pack = make_pack([column], "Beijing and the Hong Kong protests", "what Beijing wants")
    pack.research[0].chunk.title = "Why Beijing will crush Hong Kong | Washington Examiner"
    pack.research[0].chunk.url = "http://127.0.0.1/opinion/why-beijing-will-crush-hong-kong"
    plan = build_plan(pack, schema(), embed)
    records = Composer(ScriptedLLM({}), Verifier(OverlapSupport(), 0.5), RESTATING).run(plan)
    rec = next(r for r in records if "patience" in r.unit.text)  # a column's sentence is its author's view
    assert rec.text == f"According to Washington Examiner, {column}"


def test_two_sentences_saying_the_same_are_one_too_many() -> None:
    """4+ shared content words at a content-word cosine of 0.75+: the later one fails."""
    a = "NASA confirmed water vapour on Jupiter's moon Europa for the first time."
    b = "For the first time NASA has confirmed water vapour on Europa, a moon of Jupiter."
    assert near_repeat(stems(a), stems(b))
    assert not near_repeat(stems(a), stems("Europa Clipper will fly past Jupiter's moon 45 times."))
    verifier = Verifier(OverlapSupport(), 0.5)
    verifier.accept(a)
    assert "says what an earlier sentence says" in verifier.check(b, [b], quoted=True).reasons



def test_a_quotation_that_says_again_one_of_its_sentences_is_a_repeat() -> None:
    """A later quotation of two sentences, one of which the article already quoted, repeats it (the
    whole is longer, so only the sentence compared alone shows it); a new quotation of two does not."""
    said = "Martins said: “The public should be informed about both benefits and harms of marijuana products.”"
    again = ("Martins said: “Given our findings on problematic use across age groups, legalization should coincide "
             "with prevention and treatment in every state that changes its laws. The public should be "
             "informed about both benefits and harms of marijuana products.”")
    fresh = ("Martins said: “Legalization should coincide with prevention and treatment. Surveys of 505,796 "
             "people showed a rise in problematic use.”")
    verifier = Verifier(OverlapSupport(), 0.5)
    verifier.accept(said)
    assert "says what an earlier sentence says" in verifier.check(again, [again], quoted=True).reasons
    assert verifier.check(fresh, [fresh], quoted=True).ok


def test_an_abbreviation_and_its_long_form_say_the_same() -> None:
    """Two pages' "the NYAG declined to comment" and "the New York State Attorney General's office had no
    comment": the second repeats the first once the abbreviation is read as the long form its page gives."""
    said = "A spokesperson for the NYAG declined to comment."
    again = "The New York State Attorney General’s office had no comment."
    plain = Verifier(OverlapSupport(), 0.5)
    plain.accept(said)
    assert plain.check(again, [again], quoted=True).ok
    verifier = Verifier(OverlapSupport(), 0.5)
    verifier.aliases = definitions(["The New York State Attorney General (NYAG) is investigating WeWork."])
    verifier.accept(said)
    assert "says what an earlier sentence says" in verifier.check(again, [again], quoted=True).reasons


def test_the_composer_reads_abbreviations_as_the_plans_pages_spell_them_out(embed: Any) -> None:
    """The writer's verifier learns each abbreviation's long form from the plan's pages before it checks."""
    page = ("The New York State Attorney General (NYAG) is investigating WeWork over its cancelled IPO.\n"
            "The NYAG is examining whether the founder enriched himself through property deals.")
    plan = build_plan(make_pack([page], "WeWork investigated", "what the NYAG examines"), schema(), embed)
    verifier = Verifier(OverlapSupport(), 0.5)
    Composer(ScriptedLLM({}), verifier, RESTATING).run(plan)
    assert verifier.aliases.get("NYAG") == "New York State Attorney General"


def test_made_counts_and_the_review_rows(embed: Any) -> None:
    """Counts by how sentences were made; the review lists restated sentences first, beside the page's words."""
    page = ("Scientists using the W. M. Keck Observatory in Hawaii detected water vapour above Europa.\n"
            "The team saw about 2,300 tons of water vapour on one of 17 nights of observations [4].")
    plan = build_plan(make_pack([page]), schema(), embed)
    script = {"Keck": ["Scientists detected water vapour above Europa with the W. M. Keck Observatory in Hawaii."]}
    records = Composer(ScriptedLLM(script), Verifier(OverlapSupport(), 0.5), RESTATING).run(plan)
    made = counts(records)
    assert set(made) == {"quoted", "verbatim", "restated"} and made["restated"] == 1 and made["verbatim"] >= 1
    rows = review(records)
    assert rows[0]["made"] == "restated" and rows[0]["sources"][0]["text"].startswith("Scientists using")
    assert any("[4]" in src["text"] for r in rows for src in r["sources"])  # the page's own words
    assert all("[4]" not in r["sentence"] for r in rows)


def test_the_summary_line_quotes_the_reading_of_the_writer_that_made_the_sentences() -> None:
    """An article in its sources' words quotes the default's reading; one with a restated sentence, the
    reading of the restating writer (never the better figure of the other)."""
    from nonseq.writing.quality import AUDIT, AUDIT_RESTATING, summary_line

    kept = summary_line({"quoted": 1, "verbatim": 9, "restated": 0}, 1.0)
    assert f"of {AUDIT['sentences']} test-split sentences kept {float(str(AUDIT['keep_share'])):.0%}" in kept
    assert "an estimate" in kept and "restating" not in kept
    restated = summary_line({"quoted": 0, "verbatim": 5, "restated": 5}, 1.0)
    assert (f"of {AUDIT_RESTATING['sentences']} test-split sentences with the model restating kept "
            f"{float(str(AUDIT_RESTATING['keep_share'])):.0%}") in restated


def test_the_review_shows_the_words_the_writer_wrote_in() -> None:
    """What a sentence says that its source sentence does not say there (a frame, a year, a name, a speaker moved
    before the quotation), case and punctuation aside: what a person checks first; the review lists such
    sentences after the restated ones and before the source's own words."""
    from nonseq.text.edits import written_in

    source = "The highest pollution levels occur at the transition."
    assert written_in("According to Vox, the highest pollution levels occur at the transition.", [source]) == [
        "According to Vox,"]
    assert written_in("Trump cancelled a scheduled Dec. 15, 2019, imposition of tariffs.",
                      ["Trump cancelled a scheduled Dec. 15 imposition of tariffs."]) == ["2019,"]
    quoted = '"We found the next best thing," Paganini added.'
    assert written_in('Paganini added: “We found the next best thing”', [quoted]) == ["Paganini added:"]
    swapped = "Firefox is a web browser, and is Mozilla's flagship product."
    assert written_in("Mozilla is a web browser.", [swapped]) == ["Mozilla"]
    assert written_in(source, [source]) == [] and written_in(source.upper(), [source]) == []
    unit = Unit([SourceSentence("c0.s0", source, 0, 0, "http://127.0.0.1/vox", "Delhi", "p", 1.0)])
    framed = SentenceRecord(0, unit, "verbatim", f"According to Vox, {source[0].lower()}{source[1:]}")
    kept = SentenceRecord(0, unit, "verbatim", source)
    restated = SentenceRecord(0, unit, "restated", "Pollution peaks at the transition.")
    rows = review([kept, framed, restated])
    assert [(r["made"], r["written_in"]) for r in rows] == [
        ("restated", ["peaks"]), ("verbatim", ["According to Vox,"]), ("verbatim", [])]


def test_a_sentence_that_says_whose_it_is_is_not_framed_again() -> None:
    """Each sentence of a pair that is someone's view is framed as its page's, except one whose own words already
    say whose it is ("..., Prakash said"): framed, it would be attributed twice and lose its "But"."""
    view = ("The highest pollution levels occur at the transition from an agrarian economy to an industrial "
            "economy, when a city is getting the worst of both worlds.")
    said = "But Delhi and cities like it are not doomed to follow this curve, Prakash said."
    unit = Unit([SourceSentence("c0.s0", view, 0, 0, "http://127.0.0.1/vox", "Delhi's air", "p", 1.0, site="Vox"),
                 SourceSentence("c0.s1", said, 0, 1, "http://127.0.0.1/vox", "Delhi's air", "p", 1.0, site="Vox")])
    kind, checked, text = own_words(unit, 40)
    assert (kind, checked) == ("verbatim", f"{view} {said}")
    assert text == f"According to Vox, the highest pollution levels{view[len('The highest pollution levels'):]} {said}"
    unsaid = Unit([unit.sentences[0], SourceSentence("c0.s1", "But Delhi is not doomed to follow this curve.", 0, 1,
                                                     "http://127.0.0.1/vox", "Delhi's air", "p", 1.0, site="Vox")])
    assert own_words(unsaid, 40)[2].endswith(" According to Vox, Delhi is not doomed to follow this curve.")


def test_a_reaction_in_the_pages_voice_is_framed_as_its_pages() -> None:
    """A tune article said "The lack of resolution has been discouraging, given that many analysts believe ..."
    in its own voice (read `unattributed`): a verb of emotion's "-ing" form said of a thing (Levin's amuse verbs)
    is its writer's reaction, and the analysts' "believe" does not reach it. One whose holder says it, or an
    "-ing" that is a verb, is no reaction."""
    lack = ("The lack of resolution has been discouraging, given that many analysts believe that the "
            "administration is tackling only the easiest issues.")
    assert opinion(lack) == "reaction: discouraging"
    assert opinion("It is astounding that the prince went ahead with the interview.") == "reaction: astounding"
    assert opinion("The roller-coaster ride has been exasperating for businesses.") == "reaction: exasperating"
    for none in ("Analysts said the delay has been discouraging.", "The delay has been discouraging, analysts said.",
                 "According to analysts, the delay has been discouraging.",
                 "WeWork is now engaging in major cost-cutting measures.", "The storm is threatening the coast.",
                 "If it gets bad enough, it can be life threatening.", "Bloomberg is moving into the race.",
                 "The crowd was cheering loudly.", "Investors are worrying about the deal.",
                 "She is agonizing over the decision."):  # what a subject feels is no reaction to it
        assert opinion(none) == "", none
    unit = Unit([SourceSentence("c0.s0", lack, 0, 0, "http://127.0.0.1/nyt", "Trade war", "p", 1.0, site="NYTimes")])
    assert own_words(unit, 40)[2] == f"According to NYTimes, the lack{lack[len('The lack'):]}"


def test_a_pages_order_is_given_as_its_advice_and_verified_in_its_words() -> None:
    """An order ("Start by ...", "To get started, simply start ...", "Don't forget ...") is a recommendation: it
    is framed as its page's advice in its words, never said in the article's voice (and not as a quotation, so a
    how-to article of steps stays prose); a statement is not an order."""
    for text in ("Start by clearing out processed snack foods like chips and candies.",
                 "To get started, simply start recording what you eat each day using a journal.",
                 "Keep saving and investing, but don't forget to live in the present while you can."):
        assert order(text), text
    for text in ("Time and discipline are all you need to execute your plan.", "Go to bed early?",
                 "Practicing mindfulness can help you recognise when you are no longer hungry.",
                 "Researchers found that sleep helps."):
        assert not order(text), text
    step = "Start by clearing out processed snack foods like chips and candies."
    unit = Unit([SourceSentence("c0.s0", step, 0, 0, "http://127.0.0.1/x", "15 tips", "p", 1.0,
                                site="Healthline")])
    kind, checked, said = own_words(unit, 40)
    assert (kind, checked) == ("verbatim", step)
    assert said == "Healthline advises: start by clearing out processed snack foods like chips and candies."
    assert unframed(said) == step
    verifier = Verifier(OverlapSupport(), 0.5, allow_imperative=True)
    assert verifier.check(checked, [step], quoted=True).ok
