"""What the writer's steps made of the 119 local-web pages no bench topic uses (`../shared/data/web`): every
sentence anchored to its page's date, and single-page articles read for mechanical faults (docs/writing.md,
"The twentieth round"). Each case is a sentence those pages hold, or one written like it."""

from __future__ import annotations

from typing import Any

import pytest

from nonseq.research.extract import extract
from nonseq.text.definite import opening_points_back, unnamed_speaker
from nonseq.text.furniture import clean_inline, furniture_reason
from nonseq.text.language import language
from nonseq.text.leaning import leaning_reason, surname_referent
from nonseq.text.names import full_names
from nonseq.text.parse import fragment
from nonseq.text.prose import reject_reason
from nonseq.text.sentences import split, strip_dateline
from nonseq.text.voice import according_to, site_name, speech, unframed
from nonseq.text.when import anchor
from nonseq.verify.roles import same_claim
from nonseq.writing.compose import (
    SentenceRecord,
    named_in_full,
    named_institution,
    own_words,
    page_names,
    quotation,
    standing,
)
from nonseq.writing.plan import PlanSettings, SourceSentence, Unit, build_plan, language_reason, sentence_reason


@pytest.mark.parametrize(("sentence", "published", "said"), [
    # a name or an edition is no date ("USA Today", "Saturday publication"); nor is a weekday a written date names
    ("Richardson, via USA Today, said he was fine.", "2019-11-19", "Richardson, via USA Today, said he was fine."),
    ("The Today show aired it on Monday.", "2019-11-19", "The Today show aired it on 18 November 2019."),
    ("McClatchy plans to end Saturday publication next year.", "2019-11-19",
     "McClatchy plans to end Saturday publication in 2020."),
    ("Webb grabbed the girl at 6:38 p.m. on Saturday, May 18.", "2019-11-19",
     "Webb grabbed the girl at 6:38 p.m. on Saturday, May 18, 2019."),
    ("They met at 2:30pm on a Monday.", "2019-11-19", "They met at 2:30pm on a Monday."),
    # a year or a day after "of" reads as a date, never "of in 2020"; after "the" it counts from what the page tells of
    ("Sales fell in the first half of next year.", "2019-11-19", "Sales fell in the first half of 2020."),
    ("The group set a deadline of Tuesday.", "2019-11-20", "The group set a deadline of 19 November 2019."),
    ("He visited my profile in the last week.", "2019-11-15", "He visited my profile in the last week."),
    ("They used cannabis in the past month.", "2019-11-13", "They used cannabis in the past month."),  # a survey's
    ("The award is given in the last weekend of the festival.", "2018-09-15",
     "The award is given in the last weekend of the festival."),
    # a span counted from a time the page tells of is no count from its date
    ("The next year, the Taliban released two videos.", "2019-11-19",
     "The next year, the Taliban released two videos."),
    ("Sales rose 4 percent from the previous year.", "2019-11-20", "Sales rose 4 percent from the previous year."),
    ("The next two months were tough.", "2019-11-13", None),
    ("Sales will rise over the next two years.", "2019-11-13",
     "Sales will rise over the two years after 13 November 2019."),
    # "now" in a word and "even now"; "year-to-date" said of a thing has no span to stand in for it
    ("Ford's now-deceased father built it.", "2019-11-15", "Ford's now-deceased father built it."),
    ("Even now, the team struggles.", "2019-11-18", "As of 18 November 2019, the team struggles."),
    ("Sales fell 5 percent from the year-to-date period last year.", "2019-11-20", None),
    ("Barely a week ago, Parise had scored once.", "2019-11-19", None),  # how much less than a week is not said
    ("In 2015, sales had doubled over the previous two years.", "2019-11-20",
     "In 2015, sales had doubled over the previous two years."),
    # a month or a season counted from the page's; a winter spans two years, and "this may" is no month
    ("The final spots come down to next March's playoffs.", "2019-11-19",
     "The final spots come down to the March 2020 playoffs."),
    ("Sales fell last March, and the plant will shut in June.", "2019-11-19",
     "Sales fell in March 2019, and the plant will shut in June 2020."),
    ("This spring, sales rose.", "2019-11-19", "In spring 2019, sales rose."),
    ("It snowed last winter.", "2019-11-19", None),
    ("This may be the reason.", "2019-11-19", "This may be the reason."),
    # a sport's season has no years to write: said as of the page's date, its words kept
    ("Williams has been solid in run support this season.", "2019-11-18",
     "As of 18 November 2019, Williams has been solid in run support this season."),
    # a past weekday that is the day after the page's date: six days back, or the next day in another time zone
    ("Asian indexes were mixed in early trading Tuesday.", "2019-11-18", None),
    ("Thursday night's fight led to suspensions.", "2019-11-19", None),
])
def test_relative_time_that_is_no_count_from_the_page_is_left_as_it_is(sentence: str, published: str,
                                                                        said: str | None) -> None:
    """Written before: "USA on 19 November 2019", "on 16 November 2019, May 18", "the end of in 2018", "The in
    2020, the Taliban ...", "Ford's -deceased father", "Barely in the week of 12 November 2019"."""
    assert anchor(sentence, published) == said


def test_a_wire_services_codes_leave_the_sentence_whole_and_go() -> None:
    """" .MIWD00000PUS" had split "... across the globe ." from "MIWD00000PUS gained 0.02%", so the article
    said "MSCI's gauge of stocks across the globe [1]." with no verb of its own."""
    text = ("The STOXX 600 index lost 0.12% while MSCI’s gauge of stocks across the globe .MIWD00000PUS gained "
            "0.02%. The S&P 500 .SPX lost 1.85 points.")
    assert [clean_inline(s) for s in split(text)] == [
        "The STOXX 600 index lost 0.12% while MSCI’s gauge of stocks across the globe gained 0.02%.",
        "The S&P 500 lost 1.85 points."]
    assert clean_inline("U.S. crude CLc1 fell 3.38% and Apple (AAPL.O) rose.") == (
        "U.S. crude fell 3.38% and Apple rose.")
    assert clean_inline("#Browns Greedy Williams was the #1 pick.") == "Browns Greedy Williams was the #1 pick."
    for kept in ("It runs on the .NET framework.", "Version 2.0 shipped.", "It costs $5.99 in the U.S. today."):
        assert clean_inline(kept) == kept


def test_a_quotation_opened_with_a_single_mark_and_no_speaker_is_not_said() -> None:
    """A chunk that began inside a quotation within a quotation gave "According to IndieWire, ‘Rose-Lynn sings
    ... uplifted." as the page's words."""
    reason = sentence_reason("‘Rose-Lynn sings an incredible song and it conveys everything that she wants to "
                             "express to her mom and kids and everyone’s uplifted.",
                             PlanSettings(), second_person=False)
    assert reason == "quotation with no speaker"
    assert sentence_reason("The singer’s ‘Wild Rose’ soundtrack came out in June.", PlanSettings(), False) == ""


def test_a_common_word_the_pages_write_as_a_name_on_its_own_keeps_its_capital() -> None:
    """A hockey page's "the Wild" had become "According to Twin Cities, wild defenseman Ryan Suter ..."."""
    pages = ["Wild defenseman Ryan Suter could see it.", "The Wild beat the Sabres 4-1.",
             "It was a big night for the Wild.", "Data came from the Pew Research Center."]
    names = page_names(pages)
    assert "Wild" in names and "Research" not in names
    assert "Research" not in page_names([*pages, "Pew Research Center said the group grew."])


def test_a_quoted_question_and_its_speaker_are_one_sentence() -> None:
    """A split after "?”" had left "Brooke tearfully asked before apologizing to the actor." to be said."""
    assert split("She offered her spot. “Can I give it to James?” Brooke tearfully asked before apologizing. "
                 "Bergeron chimed in.") == [
        "She offered her spot.", "“Can I give it to James?” Brooke tearfully asked before apologizing.",
        "Bergeron chimed in."]
    assert split("He paused. “Why not?” The crowd roared.") == ["He paused.", "“Why not?”", "The crowd roared."]
    assert split("Braun is unhappy, according to a new report by E! News. An insider said so.") == [
        "Braun is unhappy, according to a new report by E! News.", "An insider said so."]  # was "... by E [2]!"


def test_a_dateline_of_a_place_and_a_dash_is_not_said() -> None:
    """"Indianapolis – Several thousand teachers ..." opened an article with the page's dateline."""
    assert strip_dateline("Indianapolis – Several thousand teachers rallied.") == "Several thousand teachers rallied."
    assert strip_dateline("New York — The city voted.") == "The city voted."
    for kept in ("Apple – the firm – sold phones.", "It was big – Very big."):
        assert strip_dateline(kept) == kept


def test_furniture_the_local_pages_hold_is_cleaned_or_left_out() -> None:
    """A footnote's star ("*A draw will decide ..."), a sentence said whole in brackets, and a sentence about
    a chart the article does not hold ("The following chart summarizes ...")."""
    assert clean_inline("*A draw will decide who fills the slot.") == "A draw will decide who fills the slot."
    assert clean_inline("The highest-graded player* was Joe Schobert.") == "The highest-graded player was Joe Schobert."
    assert clean_inline("(His office did not provide PolitiFact with further information.)") == (
        "His office did not provide PolitiFact with further information.")
    for kept in ("He rated it 5*5 stars.", "The plant opened in (2019).", "Two parts: (1) a tax and (2) a rebate."):
        assert clean_inline(kept) == kept
    assert reject_reason("The following chart summarizes the value of the seizures.").startswith("text about the page")
    assert reject_reason("The table below shows prices.").startswith("text about the page")
    assert reject_reason("The map was based on radar data.") == ""


def test_a_noun_phrase_or_an_unfinished_sentence_is_no_statement() -> None:
    """"According to BIG Brand System, people who were accomplished in other areas of their lives." and "The
    next BIG challenge is …" were said as sentences."""
    assert fragment("People who were accomplished in other areas of their lives.") == (
        "a noun phrase with no verb of its own")
    assert fragment("The next BIG challenge is …") == "unfinished"
    for statement in ("He said he would think about it…", "On Titan, clouds spew hydrocarbons like methane.",
                      "The Founder’s Editions, which come with a Chromecast, launch on 19 November 2019."):
        assert fragment(statement) == ""


def test_a_source_run_into_the_first_word_is_a_dateline_and_a_connective_leaves_a_name_its_capital() -> None:
    """"(CNN)President Donald Trump ..." opened an article; "Yet Schiff seems ..." became "According to National
    Review, schiff seems ..." (the case was read from "Yet")."""
    assert strip_dateline("(CNN)President Donald Trump made a trip.") == "President Donald Trump made a trip."
    assert strip_dateline("(AP) The vote passed.") == "The vote passed."
    unit = Unit([SourceSentence("c0.s0", "Yet Schiff seems to have no sense of it.", 0, 0, "http://127.0.0.1/x",
                                "The Impeachment Clock | National Review", "p", 1.0)])
    said = own_words(unit, 40, page_names(["Time is not on Adam Schiff's side."]))[2]
    assert said == "According to National Review, Schiff seems to have no sense of it."


INDONESIAN = ("Para ilmuwan NASA menemukan uap air di permukaan Europa, salah satu bulan Jupiter. Temuan ini "
              "menunjukkan bahwa bulan itu mungkin memiliki air cair di bawah lapisan esnya. Pengamatan dilakukan "
              "dengan teleskop Keck di Hawaii selama beberapa malam pada tahun 2016 dan 2017.")


def test_a_page_in_another_language_is_left_out_of_the_plan(embed: Any) -> None:
    """A page in Indonesian was written as an article, unchecked: the parser, stop words and rules read
    English only. Its sentences now say why they are not planned; with `english_only` off they are read."""
    from test_writer import EUROPA, make_pack, schema

    pack = make_pack([*EUROPA, INDONESIAN])
    plan = build_plan(pack, schema(), embed, PlanSettings())
    foreign = [s for s in plan.sentences if s.url.endswith(f"/{len(EUROPA)}")]
    assert foreign and all(s.reason.startswith("page in another language (id)") for s in foreign)
    assert plan.units and all(not s.url.endswith(f"/{len(EUROPA)}") for u in plan.units for s in u.sentences)
    alone = build_plan(make_pack([INDONESIAN]), schema(), embed, PlanSettings())
    assert not alone.units and language_reason(alone) == (
        "3 source sentence(s) left out: on a page in another language (the checks read English only)")
    kept = build_plan(pack, schema(), embed, PlanSettings(english_only=False))
    assert not any(s.reason.startswith("page in another language") for s in kept.sentences)
    assert language(" ".join(EUROPA)) == "en" and language("Too short to tell.") == ""


def test_words_in_a_marked_span_inside_a_sentence_stay_in_the_extracted_text() -> None:
    """trafilatura's precision mode drops a class="link" element wherever it stands: a page's "has reported that
    <span class="link"><a>the NFL will fine Rudolph</a></span> for his role in the fight" was extracted as "has
    reported that for his role in the fight", a sentence the page never said. A block so marked still goes."""
    filler = "".join(f"<p>Paragraph {i} of the report says the teams met again on a cold afternoon in the "
                     f"stadium, and the crowd watched every play with close attention.</p>" for i in range(6))
    html = (f"<html><head><title>Fight fallout</title></head><body><article><h1>Fight fallout</h1>{filler}"
            "<p>CBS Sports Insider Jason La Canfora has reported that <span class=\"link\"><a href=\"/x\">the NFL "
            "will fine Rudolph</a></span> for his role in the fight.</p>"
            "<p><span class=\"link\"><a href=\"/more\">More fight coverage from our team</a></span></p>"
            f"{filler}</article></body></html>")
    text = extract(html, url="http://127.0.0.1/fight").text
    assert "has reported that the NFL will fine Rudolph for his role in the fight." in text
    assert "More fight coverage" not in text


def test_a_place_and_a_source_run_into_the_first_word_are_a_dateline() -> None:
    """"According to CNN, Hong Kong (CNN Business)A muddled view ..." opened an article."""
    assert strip_dateline("Hong Kong (CNN Business)A muddled view of the talks weighs on investors.") == (
        "A muddled view of the talks weighs on investors.")
    for kept in ("The firm (Apple) said so.", "Apple (AAPL) rose."):
        assert strip_dateline(kept) == kept


def test_a_place_in_capitals_and_a_colon_is_a_dateline_and_a_label_is_not() -> None:
    """"NEW DELHI: Their American dream shattered ..." reached a multi-page article with its dateline."""
    assert strip_dateline("NEW DELHI: Nearly 150 Indians returned home.") == "Nearly 150 Indians returned home."
    assert strip_dateline("BEIJING: China said no.") == "China said no."
    for kept in ("DEAR ABBY: My husband left.", "READ MORE: Hong Kong protests: students under siege",
                 "SOURCE: Al Jazeera News", "NASA: The probe flew."):
        assert strip_dateline(kept) == kept


def test_sentences_run_together_with_no_space_are_two_and_a_clock_time_runs_on_into_its_day() -> None:
    """"... as a chief physician.Police arrested a 57-year-old man" was said as one sentence, and "at 10 a.m."
    cut "Friday, Dec. 6." off into a sentence of its own."""
    assert split("He worked as a chief physician.Police arrested a 57-year-old man.") == [
        "He worked as a chief physician.", "Police arrested a 57-year-old man."]
    assert split("Write to Dear Abby at www.DearAbby.com or P.O. Box 69440.") == [
        "Write to Dear Abby at www.DearAbby.com or P.O. Box 69440."]
    assert split("He met Mrs.Smith before Chelsea vs.Arsenal.") == ["He met Mrs.Smith before Chelsea vs.Arsenal."]
    assert split("Tickets go on sale at 10 a.m. Friday, Dec. 6. No checks were made from 10:30 p.m. Aug. 9 "
                 "to dawn. It ended at 10 p.m. Authorities said so.") == [
        "Tickets go on sale at 10 a.m. Friday, Dec. 6.", "No checks were made from 10:30 p.m. Aug. 9 to dawn.",
        "It ended at 10 p.m.", "Authorities said so."]
    assert split("Lawan raised a motion on the deaths of Rt. Hon. B. U. Nzeribe and Hon. Funke Adedoyin. "
                 "Amb. Gordon Sondland spoke.") == [
        "Lawan raised a motion on the deaths of Rt. Hon. B. U. Nzeribe and Hon. Funke Adedoyin.",
        "Amb. Gordon Sondland spoke."]  # a title before a name is no sentence end ("... Representatives Rt [1].")


@pytest.mark.parametrize(("sentence", "reason"), [
    ("Four teams from there will join the field of 20.", 'place word "there"'),
    ("In fact, Nissan still believes in sedans for their practicality.", 'connective "In fact"'),
    ("The next year, the Taliban released two videos.",
     'time counted from an event the sentence does not name ("the next year")'),
    ("Sales will rise over the next year.", None),  # counted from the page's date (`text.when`)
    ("Plus, other research suggests that exercise can decrease stress.", 'connective "Plus"'),
    ("So, a little context is important.", 'connective "So"'),
    ("Even the steering wheel has had an upgrade.", 'additive "even"'),
    ("Even a small bit of dust could disable a key.", None),  # "even" at one end of a scale, no other thing
    ("The importers do, and they are usually U.S. companies.", 'elliptical "do"'),
    ("The firm did well in China.", None),
    ("After a few days, the statistics started rolling in.",
     'time counted from an event the sentence does not name ("After a few days")'),
    ("Over the years, Apple grew.", None),
    ("In addition to its order of 30 Boeing jets, it announced an order of 50 Airbus jets.",
     'pronoun "its" with nothing in the sentence it stands for'),
    # a "there" that says a place the sentence names, that says something exists, or an idiom
    ("The team flew to Antarctica and camped there for a month.", None),
    ("There are three scripts still in contention.", None),
    ("The chance is there for lower-tier candidates.", None),
    ("Work hard and you will get there.", None),
    ("In addition to the jets, Emirates said it would buy engines.", None),
    # a relative "Which" opening or a return to a topic met before (politics and markets dev articles)
    ("Which is not to say that whatever happened on 16 November 2019 wasn't minor.",
     'opens with a relative "Which"'),
    ("Which versions play on the radio will determine how big the blow is.", None),  # asks which versions
    ("Which native ad units are the most popular?", None),
    ("Coming back to the market, experts say the upside will be capped.", 'connective "Coming back to"'),
    ("Regardless, by the time the treatment ended, the patient was back to normal.", 'connective "Regardless"'),
    ("Regardless of the weather, the race will start at noon.", None),
    ("Going back to 2015, the company had 20 employees.", None),
    # "they", "them", "their" stand for many, a name, a group or a person, not for one thing (Senate dev article)
    ("The move was over their invitation by the Nigeria Police.",
     'pronoun "their" with nothing in the sentence it stands for'),
    ("The company said their plans had not changed.", None),
    ("The actor shared a clip of his wife with their children.", None),
    ("Hunters say the wildlife is hardest to fight because they come in groups.", None),
    # "so" for a clause said before (a column's "One would hope so, since ...")
    ("One would hope so, since the news business could use an injection of optimism.", 'elliptical "hope so"'),
    ("The company says so much has changed since 2010.", None),
    ("Experts say so far the market is calm.", None),
    ("Most significantly, Schiff is working against the clock.", 'connective "Most significantly"'),
    ("Yet the 302-horsepower system will take the car from zero to 60 mph in 5.8 seconds.", 'connective "Yet"'),
    ("Indeed graphical lighting is a big theme in the concept.", 'connective "Indeed"'),
    ("Yeti sightings are rare in Nepal.", None),
    # a sequence adverb on the main verb, after an event the sentence does not name (a court report, a case report)
    ("Law enforcement then acted quickly to gain entry into the hotel room.",
     '"then" after an event the sentence does not name'),
    ("The doctor subsequently prescribed the man steroids.",
     '"subsequently" after an event the sentence does not name'),
    ("Volker later said he would have objected.", '"later" after an event the sentence does not name'),
    ("The man was subsequently quarantined after the diagnosis.", None),  # the sentence names the event
    ("Officers stopped the car and later arrested the driver.", None),
    ("The company will announce the terms later on Wednesday.", None),
    ("If you start believing in yourself, then good things will happen.", None),
    # time counted from an unnamed event at the head of a reported clause (a politics dev article)
    ("Sources told CNN that a year later, Trump had made only minor changes to his diet.",
     'time counted from an event the sentence does not name ("a year later")'),
    ("Ann Lee joined the firm in May and left two months later.", None),
    # the date writer's "As of" frame hides no opening (an opinion column's "Most significantly, Schiff is now ...")
    ("As of 19 November 2019, most significantly, Schiff is working against the clock.",
     'connective "Most significantly"'),
    ("As of October 2019, Emirates had a fleet of 270 aircraft.", None),
    # a person who speaks is not the "it" of what they said (a single-page dev article on settlements)
    ("Saeb Erekat said it was only the latest move by the US to force the Palestinians to capitulate.",
     'pronoun "it" with nothing in the sentence it stands for'),
    ("Apple said it would open a store in Ohio.", None),
    ("Mr. Trump continues to insist his tactics will be worth it.", None),  # an idiom: "it" stands for nothing
    # a verb's object is not its own subject ("itself" would be): "The Arab League called it ..."
    ("The Arab League called it an extremely adverse development.",
     'pronoun "it" with nothing in the sentence it stands for'),
    ("VW has equipped it with touch panels.", 'pronoun "it" with nothing in the sentence it stands for'),
    ("McClatchy’s parlous condition has sent it on a quest for a merger partner.", None),
    ("The senator distanced himself from the decision.", None),
    # a conversational opening answers something said before (a deals page, an explainer on Delhi's air)
    ("Heck, even the brand new AirPods Pro are discounted right now!", 'connective "Heck"'),
    ("Of course, it’s not just rural pollution that’s choking Delhi.", 'connective "Of course"'),
    ("The course of the river changed in 2019.", None),
])
def test_a_sentence_leaning_on_a_place_a_connective_or_an_idioms_noun_is_found(sentence: str,
                                                                                 reason: str | None) -> None:
    """Three multi-page dev articles held "Four teams from there ...", "In fact, Nissan ..." and "In addition
    to its order ..., it announced ..." after sentences of other pages."""
    assert leaning_reason(sentence) == reason


def test_a_frame_goes_after_a_heading_the_sentence_opens_on() -> None:
    """A hockey round-up's "Blues 3, Lightning 1: ..." had become "As of 20 November 2019, blues 3, Lightning 1:"."""
    said = anchor("Blues 3, Lightning 1: Oskar Sundqvist scored, after a Stanley Cup title last season.", "2019-11-20")
    assert said == ("Blues 3, Lightning 1: As of 20 November 2019, Oskar Sundqvist scored, after a Stanley Cup "
                    "title last season.")
    assert according_to("Jets 2, Predators 1: Patrik Laine scored the best goal of the year.", "AP") == (
        "Jets 2, Predators 1: According to AP, Patrik Laine scored the best goal of the year.")
    assert unframed("Jets 2, Predators 1: According to AP, Patrik Laine scored.") == (
        "Jets 2, Predators 1: Patrik Laine scored.")  # what the checks read
    assert according_to("Star Wars Jedi: Fallen Order is a game of many things.", "VG247") == (
        "According to VG247, Star Wars Jedi: Fallen Order is a game of many things.")  # a title's colon
    assert according_to("Thunder: Hamidou Diallo missed his third straight game.", "AP") == (
        "According to AP, Thunder: Hamidou Diallo missed his third straight game.")  # a label keeps its capital
    assert according_to("Zabihullah Mujahid said: “The Americans wanted it.”", "AP") == (
        "According to AP, Zabihullah Mujahid said: “The Americans wanted it.”")


def test_a_day_named_as_a_possessive_has_no_date_to_write_and_a_name_keeps_its_inner_capital() -> None:
    """"Closer to home, NASA’s Monday announcement ..." kept its weekday undated, and "WeWork currently faces
    ..." became "As of 18 November 2019, weWork faces ..."."""
    assert anchor("NASA’s Monday announcement increased the total to 14.", "2019-11-19") is None
    assert anchor("McClatchy plans to end Saturday publication next year.", "2019-11-19") == (
        "McClatchy plans to end Saturday publication in 2020.")  # an edition, not a day
    assert anchor("WeWork currently faces a radical restructuring.", "2019-11-18") == (
        "As of 18 November 2019, WeWork faces a radical restructuring.")


def test_todays_deal_has_no_date_to_write_and_todays_teenagers_are_the_present_day() -> None:
    """A deals page's "Today’s deal is a $50 price break ..." was said with no date: "today's" on a deal, a
    game or a hearing names one day, as "Tuesday's hearing" does, so the sentence is left out."""
    assert anchor("Today’s deal is a $50 price break from the regular going rate.", "2019-11-18") is None
    assert anchor("Usually selling for $40, today’s offer is good for a 25% discount.", "2019-11-18") is None
    assert anchor("Today's teenagers spend hours online.", "2019-11-18") == "Today's teenagers spend hours online."


def test_a_day_said_twice_is_said_once_by_its_written_date() -> None:
    """"Today (Nov. 18), NASA announced ..." had become "On 18 November 2019 (Nov. 18, 2019), NASA ..."."""
    assert anchor("Today (Nov. 18), NASA announced the selection of SpaceX.", "2019-11-19") == (
        "On 18 November 2019, NASA announced the selection of SpaceX.")
    assert anchor("The band played Monday night (Nov. 18) at the Ryman Auditorium.", "2019-11-19") == (
        "The band played on 18 November 2019 at the Ryman Auditorium.")
    assert anchor("The consoles launch Tuesday (November 19) in 14 countries.", "2019-11-18") == (
        "The consoles launch on 19 November 2019 in 14 countries.")  # dated, though "launch" has no tense
    assert anchor("It aired Tuesday (Dec. 31).", "2020-01-02") == "It aired on 31 December 2019."
    assert anchor("It aired Tuesday (Dec. 31).", "") is None  # no page date, no year


def test_a_sites_disclaimer_is_furniture_and_a_space_before_a_possessive_goes() -> None:
    """A markets page's "Disclaimer: The views ... are their own ..." and a deals page's "BGR may receive a
    commission on orders placed through this article." were sayable; "the Senate ’s session" kept its space."""
    for furniture in ("Disclaimer: The views and tips expressed by experts on the site are their own.",
                      "The site advises users to check with certified experts before investing.",
                      "The views expressed in this column do not necessarily reflect those of CNN.",
                      "BGR may receive a commission on orders placed through this article.",
                      "This post contains affiliate links."):
        assert furniture_reason(furniture), furniture
    for said in ("Experts' views of the economy differ.", "Sellers earn a commission on each sale."):
        assert not furniture_reason(said), said
    assert clean_inline("The details of the Senate ’s session were shared.") == (
        "The details of the Senate’s session were shared.")


def test_lets_is_the_authors_own_voice() -> None:
    """A gadget round-up's "Let's be honest, distilling down the past year's worth of gadget launches ..."
    opened an explainer's short answer."""
    assert reject_reason("Let's be honest, choosing the year's best gadgets for a short list is hard.") == (
        "first person: the source author's own voice")
    assert reject_reason("Let it be said that the firm grew fast in China that year.") != (
        "first person: the source author's own voice")


def test_a_place_a_state_and_a_dash_are_a_dateline() -> None:
    """A press release opened "New York, NY – With content engagement migrating ..."."""
    assert strip_dateline("New York, NY – With engagement migrating, the firm grew.") == (
        "With engagement migrating, the firm grew.")
    assert strip_dateline("Sacramento, Calif. — The state sued.") == "The state sued."


def test_a_frame_takes_away_or_goes_after_a_word_tying_the_sentence_to_the_one_before() -> None:
    """Single-page dev articles said "According to Reuters, separately, Norway's ..." and "As of 19 November
    2019, meanwhile, Wild goalie ...": the frame had been put before the connective."""
    assert according_to("Separately, Norway’s October oil production beat forecasts.", "Reuters") == (
        "According to Reuters, Norway’s October oil production beat forecasts.")
    assert anchor("Meanwhile, Wild goalie Alex Stalock looked strong in his 10th outing this season.",
                  "2019-11-19") == ("Meanwhile, as of 19 November 2019, Wild goalie Alex Stalock looked strong in "
                                    "his 10th outing this season.")  # a capital mid-sentence stays one
    assert anchor("But the team is currently third.", "2019-11-19") == "But as of 19 November 2019, the team is third."


def test_a_sentence_ending_on_a_single_capital_letter_ends_there() -> None:
    """A single-page dev article said "... to win Group D. The day before, Portugal made it ..." as one sentence:
    pysbd took "D." for a name's initial."""
    assert split("Switzerland beat Gibraltar 6-0 to win Group D. The day before, Portugal made it.") == [
        "Switzerland beat Gibraltar 6-0 to win Group D.", "The day before, Portugal made it."]
    assert split("They play in Group B. It starts on Monday.") == ["They play in Group B.", "It starts on Monday."]
    for one in ("The letter was signed by John F. Kennedy in 1961.", "George W. Bush and Laura Bush spoke.",
                "Rep. David B. McKinley of West Virginia said so."):  # an initial before a name stays
        assert split(one) == [one]


def test_an_office_before_a_name_is_not_put_back_as_part_of_it() -> None:
    """An explainer said "State Mike Pompeo said that after legal consultation ...": the surname's full name was
    read from "US Secretary of State Mike Pompeo" as its run of capitalised words after "of"."""
    page = ["The Arab League condemned the move announced by US Secretary of State Mike Pompeo.",
            "Pompeo said that after legal consultation Washington had changed its view."]
    assert surname_referent(page[1], page, []) == ("Pompeo", "Mike Pompeo")


def test_a_place_or_a_team_before_a_name_is_not_put_back_as_part_of_it() -> None:
    """Dev articles put back "Ukraine Marie Yovanovitch" and "Browns Greedy Williams": a word that stands on its
    own elsewhere on the page is no part of the three-word run before the name; a middle initial is."""
    page = ["Former U.S. Ambassador to Ukraine Marie Yovanovitch testified on Friday.",
            "The envoy said aid to Ukraine was held back.", "Yovanovitch said she felt threatened."]
    assert surname_referent(page[2], page, []) == ("Yovanovitch", "Marie Yovanovitch")
    page = ["Browns Greedy Williams was flagged once.", "The Browns lost.", "Williams said he would learn from it."]
    assert surname_referent(page[2], page, []) == ("Williams", "Greedy Williams")
    page = ["Patrick W. Carlineo pleaded guilty.", "Patrick's lawyer spoke.", "Carlineo said he was sorry."]
    assert surname_referent(page[2], page, []) == ("Carlineo", "Patrick W. Carlineo")


def test_a_surname_its_page_never_gives_in_full_is_named_as_another_page_of_the_article_names_it() -> None:
    """A page that says only "Noem" had its sentence left out of a multi-page article whose other page names
    "Kristi Noem"; two full names elsewhere ("Mary Noem", "Kristi Noem") name no one."""
    text = ("The tagline drew a mix of criticism and ridicule, but Noem cited the backlash as proof that efforts "
            "to raise awareness around South Dakota's methamphetamine crisis were working.")
    others = ["South Dakota Gov. Kristi Noem launched the campaign.", "Noem said the goal is to reach everyone."]
    named, naming = named_in_full(text, text, [text], [], others)
    assert "but Kristi Noem cited" in named and naming == others[0]  # cited beside the source
    assert named_in_full(text, text, [text], [], ["Mary Noem spoke.", "Kristi Noem spoke."]) == (text, "")
    assert named_in_full(text, text, [text], []) == (text, "")


def _record(section: int, n: int, text: str, url: str = "http://127.0.0.1/0") -> SentenceRecord:
    """A kept sentence of source n."""
    s = SourceSentence(f"c{n}.s{len(text)}", text, 0, 0, url, "Page", f"p{n}", 1.0)
    return SentenceRecord(section, Unit([s], n=n), made="verbatim", text=text)


def test_every_surname_of_a_sentence_is_named_and_a_rank_is_a_title() -> None:
    """A dev article kept "Vindman reported to him": "Lt Col Alexander Vindman" was a four-word run, so the page
    gave "Vindman" no full name. A rank is now a title, and each surname-only person is named in turn."""
    page = ["Lawmakers grilled Lt Col Alexander Vindman, a Ukraine specialist, and Jennifer Williams, an aide.",
            "Vindman and Williams told lawmakers that the request was inappropriate."]
    rec = _record(0, 1, page[1])
    assert standing([rec], "Impeachment hearings", {"http://127.0.0.1/0": page}) == [rec]
    assert rec.text == "Alexander Vindman and Jennifer Williams told lawmakers that the request was inappropriate."
    assert rec.named_from == [page[0]]


def test_a_heading_that_opens_on_a_verb_gives_no_full_name() -> None:
    """A tune article kept "... and Vindman reported to him": the page's subheading "4. Questioning Vindman's
    judgment" gave "Vindman" a second full name, "Questioning Vindman", so no one full name was put back. A
    heading's opening "-ing" verb is no first name; a sentence's opening name ending in "-ing" still is."""
    page = ["Republicans questioned the judgment of another witness, Alexander Vindman, an expert.",
            "4. Questioning Vindman's judgment",
            "After Fiona Hill left the NSC, it was Morrison who took over, and Vindman reported to him."]
    assert full_names(tuple(page))["Vindman"] == ["Alexander Vindman"]
    assert surname_referent(page[2], page, ["Tim Morrison testified."]) == ("Vindman", "Alexander Vindman")
    assert full_names(("Sterling Brown scored 20 points for the Bucks.",))["Brown"] == ["Sterling Brown"]
    assert full_names(("Manning Marable wrote the book.",))["Marable"] == ["Manning Marable"]


def test_a_surname_joined_to_a_persons_name_is_a_person() -> None:
    """A schema dev article said "Kevin King and Weeks were abducted": the recogniser does not read "Australian
    Timothy Weeks" as a person, but a name joined by "and" to a person's is one too."""
    page = ["American Kevin King and Australian Timothy Weeks, both professors, were handed over to US forces.",
            "The Australian government was relieved.", "King and Weeks were abducted by gunmen in August 2016."]
    rec = _record(0, 1, page[2])
    assert standing([rec], "The hostage swap", {"http://127.0.0.1/0": page}) == [rec]
    assert rec.text == "Kevin King and Timothy Weeks were abducted by gunmen in August 2016."


def test_a_surname_of_two_words_is_named_in_full() -> None:
    """A schema dev article said "Hawk Sawyer said she couldn't comment ...": the page names "Kathleen Hawk Sawyer"
    once and "Hawk Sawyer" after, a surname of two words; "Security Council" after "Key Security Council" is not."""
    page = ["Bureau of Prisons director Kathleen Hawk Sawyer testified on Tuesday.",
            "Hawk Sawyer said she could not comment on the ongoing criminal investigation."]
    assert surname_referent(page[1], page, []) == ("Hawk Sawyer", "Kathleen Hawk Sawyer")
    council = ["Key Security Council powers distanced themselves from the US position.",
               "The decision breaks with Security Council resolutions on settlements."]
    assert surname_referent(council[1], council, []) is None


def test_the_same_claim_from_another_page_is_said_once() -> None:
    """The demo article said three times that NASA confirmed water vapour on Europa: two pages' ledes make one
    claim (the same verb, its agents sharing NASA, its patients water vapor on Europa); two announcements with
    different figures are two events."""
    hawaii = _record(0, 1, "NASA scientists using a telescope atop Mauna Kea have confirmed the presence of water "
                           "vapor on the surface of Europa, one of Jupiter’s 79 moons.")
    alert = _record(1, 2, "A team led by researchers out of NASA's Goddard Space Flight Center has confirmed traces "
                          "of water vapor above the surface of Jupiter's icy moon Europa.", "http://127.0.0.1/1")
    assert standing([hawaii, alert]) == [hawaii]
    assert alert.made == "dropped" and alert.attempts[-1].verdict.reasons[0].startswith("makes the claim")
    first = _record(0, 1, "In 2018, NASA picked nine companies to bid for contracts to land cargo on the moon.")
    later = _record(0, 2, "On 18 November 2019, NASA picked five companies to bid for contracts to land cargo on "
                          "the moon.", "http://127.0.0.1/1")
    assert standing([first, later]) == [first, later]
    ipad = _record(0, 1, "Apple’s latest iPad Pro features a Liquid Retina edge-to-edge display with ProMotion.")
    macbook = _record(0, 2, "Apple’s 12-inch MacBook features a Retina display and USB-C connectivity.",
                      "http://127.0.0.1/1")
    assert standing([ipad, macbook]) == [ipad, macbook]  # two things, each named


def test_the_same_speakers_same_statement_is_said_once() -> None:
    """Pages of one story report one statement twice, in other words or as a paraphrase and then the quotation
    ("Volker said he had no knowledge of any efforts to urge Ukraine to investigate ..." and "“At no time was I
    aware of ... an effort to urge Ukraine to investigate ...,” Volker said"); the same speaker saying two
    things about one subject is said twice."""
    paraphrase = _record(0, 1, "Volker said he had no knowledge of any efforts to urge Ukraine to investigate "
                               "Joe and Hunter Biden.")
    quoted = _record(1, 2, "“At no time was I aware of or knowingly took part in an effort to urge Ukraine to "
                           "investigate former Vice President Biden,” Volker said in his opening statement.",
                     "http://127.0.0.1/1")
    assert standing([paraphrase, quoted]) == [paraphrase]
    assert quoted.made == "dropped" and quoted.attempts[-1].verdict.reasons[0].startswith("makes the claim")
    told = ("Sonya Zoghlin, his attorney, told the paper in a statement that her client did not intend to cause "
            "harm to the congresswoman.")
    emailed = "His attorney, Sonya Zoghlin, said in an email that Smith never intended to harm the congresswoman."
    assert same_claim(emailed, told)
    assert not same_claim(emailed.replace("Sonya Zoghlin", "Mark Lee"), told)  # another speaker
    watch = ("“When removing such a high-risk individual from suicide watch, it would be critical to do it in a "
             "step-down fashion,” said Lisa Boesky, a clinical psychologist.")
    risk = ("Boesky said Epstein was still “a high risk for suicide” because of the nature of his crimes and his "
            "prior suicide attempt.")
    assert not same_claim(risk, watch)  # one speaker, two statements (no verb shared)
    credible = "“I think the allegations against Vice President Biden are self-serving and not credible,” Volker said."
    theories = ("Volker said that he does not think that raising Vice President Biden or these things are "
                "conspiracy theories.")
    assert not same_claim(theories, credible)  # "think" is no statement's own verb


def test_a_speaker_the_article_has_not_named_leans() -> None:
    """"These 150 Indians ... were illegal immigrants, the officials said." and "The health commission said in a
    statement that ..." name their speaker as their page named it before: after another page's sentence the
    reader cannot tell whose words they are. After a sentence of its own page, or once the article has named
    the speaker, such a sentence stands; a verb that reports no clause is no saying ("the company continued")."""
    first = _record(0, 1, "Mexico deported 311 Indian nationals on Friday.", "http://127.0.0.1/9")
    officials = _record(1, 2, "Nearly 150 Indians had either violated their visa norms or were illegal immigrants, "
                              "the officials said.")
    assert standing([first, officials]) == [first]
    assert 'speaker "the officials"' in officials.attempts[-1].verdict.reasons[0]
    own = _record(0, 1, "Indian officials said the nationals were flown to New Delhi.")
    officials = _record(0, 1, "Nearly 150 Indians had either violated their visa norms or were illegal immigrants, "
                              "the officials said.")
    assert standing([own, officials]) == [own, officials]  # its own page's sentence before it
    first, officials = _record(0, 1, first.text, "http://127.0.0.1/9"), _record(1, 2, officials.text)
    assert standing([own, first, officials]) == [own, first, officials]  # the article named officials
    assert unnamed_speaker("The health commission said in a statement that a man had contracted plague.", []) == (
        'speaker "The health commission" is named nowhere before')
    assert unnamed_speaker("The utility said it will closely monitor the weather.",
                           ["The utility's mass power shutoff"]) == ""  # the headline names it
    assert unnamed_speaker("The company continued to sign up additional subscribers.", []) == ""
    assert unnamed_speaker("The police said the man was arrested on Sunday.", []) == ""  # the place's own


def test_a_definite_subject_its_pages_sentence_before_brought_in_leans_where_the_article_lacks_it() -> None:
    """"The office referred the call ..." and "The scan revealed ..." opened a paragraph, after sentences of other
    pages: the office and the scan are the ones the page's sentence before it named. The article must hold
    that sentence (or name the noun) first; a modifier that says which one ("the Indian market") stands alone."""
    page = ["A man made a phone call to Rep. Ilhan Omar's office in March.",
            "The office referred the call to U.S. Capitol Police, who worked with the FBI."]
    first = _record(0, 1, "A man pleaded guilty to threatening Ilhan Omar.", "http://127.0.0.1/9")
    office = _record(1, 2, page[1])
    assert standing([first, office], "", {"http://127.0.0.1/0": page}) == [first]
    assert office.made == "dropped" and 'definite "The office"' in office.attempts[-1].verdict.reasons[0]
    office = _record(1, 2, page[1])
    said = _record(1, 2, page[0])  # the page's own sentence before it, then the office
    assert standing([said, office], "", {"http://127.0.0.1/0": page}) == [said, office]
    market = ["Shares in India rose as the market hit a record.", "The Indian market has high valuations."]
    assert opening_points_back(market[1], market[:1]) == ""
    assert opening_points_back(page[1], page[:1]).startswith('definite "The office"')
    assert opening_points_back("Police said the office referred the call.", page[:1]) == ""  # not its subject
    police = ["The authorities arrested ten protesters on Sunday.",
              "The authorities continue to pour fuel on the fire."]
    assert opening_points_back(police[1], police[:1]) == ""  # the place's authorities, which the topic names


def test_a_date_written_inside_a_quotation_is_in_brackets_and_for_now_goes_whole() -> None:
    """The pages' sayable sentences, anchored to their dates, held a speaker's words changed ("go out and vote
    Republican on 19 November 2019,” he said"), a garble ("As of 19 November 2019, for, those big-ticket
    sports ...") and a present said as a day ("On 18 November 2019, plague infections are rare")."""
    assert anchor("“Go out and vote Republican today,” he said.", "2019-11-19") == (
        "“Go out and vote Republican [on 19 November 2019],” he said.")  # the editor's words, marked as such
    assert anchor("Maley said the stock had been clobbered until this year.", "2019-11-19") == (
        "Maley said the stock had been clobbered until 2019.")  # outside a quotation, no brackets
    assert anchor("For now, those big-ticket sports are found on broadcast networks.", "2019-11-19") == (
        "As of 19 November 2019, those big-ticket sports are found on broadcast networks.")
    assert anchor("Today, plague infections are rare, but they do happen.", "2019-11-18") == (
        "As of 18 November 2019, plague infections are rare, but they do happen.")
    assert anchor("Today, NASA announced that it found water.", "2019-11-18") == (
        "On 18 November 2019, NASA announced that it found water.")


def test_a_day_with_its_part_is_written_whole_and_a_possessives_weekday_night_has_no_date() -> None:
    """The anchored sentences held "flew to London on 7 August 2018 evening" ("yesterday evening") and "the close
    of its on 18 November 2019 performance" ("its Monday night performance")."""
    assert anchor("The 23-year-old flew to London yesterday evening.", "2018-08-08") == (
        "The 23-year-old flew to London on 7 August 2018.")
    assert anchor("He spoke this morning.", "2019-11-19") == "He spoke on 19 November 2019."
    assert anchor("The band unveiled its plans at the close of its Monday night performance.", "2019-11-19") is None


def test_a_quotation_opened_curly_and_closed_straight_is_the_speakers_words() -> None:
    """A tune page (CNBC) writes "“Our third quarter results reflected ...," Craig Menear said": the plan had left it
    out as the page author's first person, and home-depot was a draft one sentence short."""
    text = ("“Our third quarter results reflected broad-based growth across our business,\" chairman and CEO Craig "
            "Menear said in the earnings release.")
    assert reject_reason(text) == ""
    assert reject_reason("Our third quarter results reflected broad-based growth across our business.") == (
        "first person: the source author's own voice")
    # a capitalised "We" or "Me" after a word is part of a name, not the page author (tune pages)
    assert reject_reason("Job cuts were announced by The We Company’s executive chair Marcelo Claure.") == ""
    assert reject_reason("The band played its albums Toulouse Street and The Captain and Me.") == ""
    assert reject_reason("The band played its albums, and we loved them.") == (
        "first person: the source author's own voice")


def test_today_ending_a_sentence_on_a_state_in_the_present_is_the_present() -> None:
    """A tune-page dev article said "London ... continues to suffer air quality problems on 8 November 2019": a
    sentence-final "today" on a state in the simple present says the present, as an opening "Today," does."""
    assert anchor("London has fought dirty air since the 14th century and continues to suffer air quality problems "
                  "today.", "2019-11-08") == ("As of 8 November 2019, London has fought dirty air since the 14th "
                                              "century and continues to suffer air quality problems.")
    assert anchor("Plague infections are rare today.", "2019-11-08") == (
        "As of 8 November 2019, plague infections are rare.")
    assert anchor("NASA launched the rocket today.", "2019-11-08") == "NASA launched the rocket on 8 November 2019."
    assert anchor("“We need it today,” he said.", "2019-11-08") == "“We need it [on 8 November 2019],” he said."


def test_a_relative_year_that_is_the_subject_is_written_bare_and_this_past_month_is_in_it() -> None:
    """The anchored sentences held "In 2020 is the year of the rat" ("Next year is ...") and "This past May 2019,
    the agency selected ..."."""
    assert anchor("Next year is the year of the rat.", "2019-11-18") == "2020 is the year of the rat."
    assert anchor("He said last year was the worst on record.", "2019-11-18") == (
        "He said 2018 was the worst on record.")
    assert anchor("Sales rose last year.", "2019-11-18") == "Sales rose in 2018."
    assert anchor("This past May, the agency selected 11 companies.", "2019-11-18") == (
        "In May 2019, the agency selected 11 companies.")


def test_a_full_name_put_back_inside_a_quotation_is_in_brackets() -> None:
    """Putting back every surname's full name on the pages' sayable sentences changed a quoted letter's words:
    "“If elected, Mr. Trump, I can state ...”" became "“If elected, President Donald Trump, I can state ...”"."""
    page = ["President Donald Trump released a letter from his physician.",
            "“If elected, Mr. Trump will be the healthiest individual ever elected,” the letter said."]
    assert named_in_full(page[1], page[1], page, [])[0] == (
        "“If elected, [President Donald Trump] will be the healthiest individual ever elected,” the letter said.")
    assert named_in_full("Trump said he was healthy.", "Trump said he was healthy.", page, []) == (
        "President Donald Trump said he was healthy.", page[0])
    omar = ["A man admitted threatening to kill U.S. Rep. Ilhan Omar, D-Minn.", "He called the offices of Omar."]
    assert named_in_full(omar[1], omar[1], omar, [])[0] == "He called the offices of Ilhan Omar."  # not "U.S. Ilhan"


def test_a_straight_mark_pairs_with_a_curly_one_and_a_lone_closing_mark_joins_its_sentence() -> None:
    """Pages that mix straight and curly quotation marks had a curly mark added to a sentence already closed
    ("... saying, "I am committed ... us.”" became "“After the hearing ..."), and a lone "”" split off as a
    sentence of its own ("We’re coming in!" and "“” an officer shouts.")."""
    mixed = 'After the hearing, Hawk Sawyer issued a statement, saying, "I am committed to this agency.”'
    assert split(mixed) == [mixed]
    assert split("“We’re coming in!” an officer shouts.") == ["“We’re coming in!” an officer shouts."]


def test_a_quotation_needs_a_verb_of_saying_and_its_speaker_is_who_spoke() -> None:
    """Every direct-speech sentence of the pages, rendered as the article quotes it, held "Sounds like a tall
    order: “Become an online leader”", "Was how Ford described it to friends: “...”" and "He said, although it
    could later support preparations for human missions to Mars: “...”"."""
    assert not speech("“Become an online leader” sounds like a tall order.")  # no one says it
    assert speech('"Hands! Let me see your hands!" an officer ordered.')
    assert quotation("“The Klingon Empire has decided that we should formalize our relationship,” was how Ford "
                     "described it to friends.", 45) == (
        "Ford described it to friends: “The Klingon Empire has decided that we should formalize our relationship”")
    assert quotation("“I do not really see a required role for the Gateway in the lunar program,” he said, although "
                     "it could later support preparations for human missions to Mars.", 45) == (
        "He said: “I do not really see a required role for the Gateway in the lunar program”")
    assert quotation("“We don't want those people,” said Sowers, who is also considering Joe Biden.", 45).startswith(
        "Sowers, who is also considering Joe Biden, said: “")  # a clause about the speaker before the verb stays


def test_whose_report_a_quotation_comes_from_stays_with_its_speaker() -> None:
    """"..., said one legal expert, as reported by the Independent newspaper." had been quoted as "One legal
    expert said: “...”": the clause after the verb was cut as saying more than who spoke, and with it whose
    report the words are. "as reported by", "as quoted by", "as told to" stay; "as the union met" goes."""
    assert quotation("“Prince Andrew is not entitled to any form of immunity by virtue of his position,” said one "
                     "legal expert, as reported by the Independent newspaper.", 45) == (
        "One legal expert, as reported by the Independent newspaper, said: “Prince Andrew is not entitled to any "
        "form of immunity by virtue of his position”")
    assert quotation("“We will look at every option to keep the plant open,” he said, as the union met on Monday.",
                     45) == "He said: “We will look at every option to keep the plant open”"


def test_a_possessive_name_put_back_takes_no_the_and_one_inside_a_quotation_is_in_brackets() -> None:
    """Putting back every definite subject's name on the pages held "The Ford’s Mustang Mach E was unveiled ..."
    and a quotation's words changed ("“The US President wants the option ...”")."""
    mach = "The Mach E was unveiled ahead of the Los Angeles show."
    assert named_institution(mach, mach, ["Ford’s Mustang Mach E will be on display."], [])[0] == (
        "Ford’s Mustang Mach E was unveiled ahead of the Los Angeles show.")
    said = '"The president wants a bigger deal with China," said Derek Scissors.'
    assert named_institution(said, said, ["US President Donald Trump spoke on Monday."], [])[0] == (
        '"[The US President] wants a bigger deal with China," said Derek Scissors.')
    esa = "The agency said its researchers examined hibernation."
    assert named_institution(esa, esa, ["The European Space Agency studied hibernation."], [])[0] == (
        "The European Space Agency said its researchers examined hibernation.")


def test_a_quotation_a_headline_ends_on_is_no_sites_name() -> None:
    """Every page's source name, listed, held "‘The plague is coming’" for Express.co.uk's page: the headline's
    last part, after a dash, was read as the site's name."""
    title = "Bubonic plague: Third case of plague in China as panic begins - ‘The plague is coming’"
    assert site_name(title, "https://www.express.co.uk/news/world/1", "Express.co.uk") == "Express.co.uk"
    assert site_name("Review | Engadget", "https://www.engadget.com/x") == "Engadget"
