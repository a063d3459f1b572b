"""The writer's seventh round of reading rules (issue 47): vague recency, reviews and intensified verdicts
said as their page's, abbreviations and surnames put back from the whole page, text pointing at other
parts of the page, and a sentence an earlier one already supports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from test_writer import RESTATING, OverlapSupport, ScriptedLLM, make_pack, schema

from nonseq.text.abbreviations import definitions, long_form, spelled_out
from nonseq.text.leaning import leaning_reason, surname_referent
from nonseq.text.parse import keeps_case
from nonseq.text.voice import opinion, opinion_page, page_title, site_name, unframed
from nonseq.text.when import anchor
from nonseq.verify.rules import Verifier
from nonseq.writing.compose import Composer, assemble, named_institution, source_name
from nonseq.writing.plan import SourceSentence, Unit, build_plan


def test_recency_with_no_count_cannot_be_dated_so_it_is_not_said() -> None:
    """"A recent report", "in recent years", "the past few years", "in the next few weeks": no date to write."""
    for sentence in ("A recent report put capacity at 8.69 GW.", "Prices rose in recent years.",
                     "Neo-banks have been all the rage for the past few years.", "Sales fell recently.",
                     "The sides could sign a deal in the next few weeks.", "More games come in the coming months."):
        assert anchor(sentence, "2019-11-19") is None, sentence
    assert anchor("The next day, the plant closed.", "2019-11-19") == "The next day, the plant closed."
    assert anchor("The report was released in 2018.", "2019-11-19") == "The report was released in 2018."


def test_a_review_is_its_reviewers_view() -> None:
    """A review, by its address or title, is framed as its page's like an opinion piece; news of a review is not."""
    assert opinion_page("", "https://digg.com/2019/is-stadia-good-worth-it-reviews")
    assert opinion_page("", "https://appleinsider.com/articles/19/11/18/16-inch-macbook-pro-review-the-keyboard")
    assert opinion_page("Stadia review: a stroll, not a charge", "http://127.0.0.1/a")
    assert opinion_page("Review: Stadia", "http://127.0.0.1/a")
    assert not opinion_page("Judge orders review of the case", "https://example.com/news/judge-orders-case")
    assert not opinion_page("", "https://example.com/news/a-peer-reviewed-study")


def test_a_section_name_is_not_the_sites_name_nor_part_of_the_title_in_a_frame() -> None:
    """"... | Editorial" names a section: the frame quotes the title without it."""
    title = "The Guardian view on Hong Kong: a city on the brink | Editorial"
    assert site_name(title, "http://127.0.0.1/x") == ""
    assert page_title(title) == "The Guardian view on Hong Kong: a city on the brink"
    assert page_title("Hawks - Doves") == "Hawks - Doves"
    assert site_name("Xbox One X review | Engadget", "http://127.0.0.1/x") == "Engadget"


def test_an_intensified_adjective_or_a_could_is_the_pages_view() -> None:
    """"very unhealthy", "so bad" are verdicts; "could offer" a guess; "could not" and "so far" are neither."""
    assert opinion("Fad diets can often be very unhealthy.") == "verdict: very unhealthy"
    assert opinion("Delhi's air wasn't always so bad.") == "verdict: so bad"
    assert opinion("Research on tuft cells could offer a glimpse of how organs work.") == "speculation: could"
    assert opinion("The patient might recover.") == "speculation: might"
    assert opinion("Doctors could not find the cause.") == ""
    assert opinion("Retention so far met the company's plan.") == ""
    assert opinion("The very first map of Titan was released.") == ""
    # two or more words in quotation marks, in lower case and not named as a term: somebody's, unnamed
    assert opinion('The goal is to deliver a "seamless experience" to Stadia users.') == (
        "quoted words: seamless experience")
    assert opinion("When it is feathers on a bird, the term often used is “bird fancier’s lung”.") == ""
    assert opinion("Disney+ is stocked with “Star Wars” films.") == ""
    assert opinion("Noem later tweeted that the epidemic “needs to be a dinner table conversation”.") == ""


def test_an_abbreviation_is_spelled_out_where_the_article_first_uses_it() -> None:
    """Schwartz-Hearst pairs from the pages; a quotation, or an abbreviation used before, is left alone."""
    pages = ["Dempsey came up with a diagnosis: hypersensitivity pneumonitis, or HP.",
             "South Korea's Ministry of Trade, Industry and Energy (MOTIE) set targets.",
             "Binge eating disorder (BED) is common.", "WASHINGTON (AP) — The House met."]
    defs = definitions(pages)
    assert defs["HP"] == "hypersensitivity pneumonitis"
    assert defs["MOTIE"] == "Ministry of Trade, Industry and Energy"
    assert defs["BED"] == "binge eating disorder"
    assert "AP" not in defs  # "WASHINGTON" does not spell it
    assert long_form("CDC", "data from the Centers for Disease Control") == "Centers for Disease Control"
    assert long_form("CDC", "a new report") == ""
    assert spelled_out("When HP occurs in a pigeon breeder, it has a name.", [], defs) == (
        "When hypersensitivity pneumonitis (HP) occurs in a pigeon breeder, it has a name.")
    assert spelled_out("BED affects many.", [], defs) == "Binge eating disorder (BED) affects many."
    assert spelled_out("HP is treatable.", ["The man had HP."], defs) == "HP is treatable."
    assert spelled_out("He said “HP is rare”.", [], defs) == "He said “HP is rare”."
    assert spelled_out("NASA flew past.", [], defs) == "NASA flew past."


def test_a_surname_is_named_in_full_from_the_page_even_when_the_parser_reads_it_as_a_noun() -> None:
    """"Martins said" (tagged a plural noun) and "Dempsey talked" (a person on the page) take the page's full name."""
    page = ["Dr. Silvia S. Martins, an epidemiologist at Columbia, led the study.",
            "Dr. Owen Dempsey, a respiratory physician, saw the man in Aberdeen."]
    assert surname_referent("Martins said: “The public should be informed about the harms of marijuana”.",
                            page, ["Cannabis use disorder"]) == ("Martins", "Silvia S. Martins")
    assert surname_referent("Dempsey talked with the man over the phone.", page, ["Feather duvet lung"]) == (
        "Dempsey", "Owen Dempsey")
    assert surname_referent("Dempsey talked with the man over the phone.", page, ["Owen Dempsey saw him."]) is None
    assert surname_referent("Intel said profits rose.", ["Intel Corp said profits rose."], ["Chips"]) is None


def test_text_pointing_at_another_part_of_its_page_leans() -> None:
    """"the strategies above", "as mentioned earlier": the article does not hold them."""
    assert leaning_reason("While the strategies above can be helpful, a treatment plan is often needed.")
    assert leaning_reason("As mentioned earlier, the rule holds for every plant.")
    assert leaning_reason("The aforementioned study found no effect.")
    assert leaning_reason("The clouds above the city turned dark.") is None
    assert leaning_reason("Temperatures stayed below freezing for a week.") is None


class Always:
    """A support check that says every claim is supported (to show the shared-word floor)."""

    def scores(self, pairs: Sequence[tuple[str, Sequence[str]]]) -> list[float]:
        """1.0 for every pair."""
        return [1.0] * len(pairs)


def test_a_sentence_an_earlier_one_supports_says_nothing_new() -> None:
    """The real support check at its decision point, over sentences sharing 4+ content words."""
    from nonseq.verify.support import SupportChecker

    earlier = ("The New York State Attorney General is investigating WeWork, according to two people familiar "
               "with the matter, adding to a mounting series of problems for the workspace provider.")
    verifier = Verifier(SupportChecker(), 0.5)
    verifier.accept(earlier)
    later = "WeWork is reportedly being investigated by the New York State Attorney General."
    verdict = verifier.check(later, [later], quoted=True)
    assert not verdict.ok and "says what an earlier sentence says (it supports this" in verdict.reasons[0]
    other = "WeWork was valued at $47 billion in January before its IPO collapsed."
    assert verifier.check(other, [other], quoted=True).ok
    floor = Verifier(Always(), 0.5)  # fewer than 4 shared content words is never a repeat, whatever the check says
    floor.accept("The New York State Attorney General's office had no comment.")
    assert floor.check("WeWork is headquartered in New York City.", ["WeWork is headquartered in New York City."],
                       quoted=True).ok


def test_a_reviews_sentences_are_framed_and_the_frames_title_is_not_read_as_the_sentence(embed: Any) -> None:
    """Every sentence of a review is said as its page's; a title ending "convince those…" makes nothing lean."""
    texts = ["The new 16-inch MacBook Pro features a redesigned scissor switch keyboard based on the Magic Keyboard.",
             "The 16-inch MacBook Pro has a physical escape key and an inverted-T arrow key layout."]
    pack = make_pack([" ".join(texts)], "The MacBook Pro's new keyboard", "the return of the scissor keyboard")
    chunk = pack.research[0].chunk
    chunk.title = "16-inch MacBook Pro review: The keyboard is probably enough to convince those waiting for it"
    chunk.url = "http://127.0.0.1/articles/19/11/18/16-inch-macbook-pro-review-the-keyboard"
    plan = build_plan(pack, schema(), embed)
    records = Composer(ScriptedLLM({}), Verifier(OverlapSupport(), 0.5), RESTATING).run(plan)
    body = assemble(plan, records, headings=True)
    frame = f"According to {source_name(plan.units[0])}, "
    assert frame.startswith("According to “16-inch MacBook Pro review: The keyboard is probably enough to")
    assert body.count(frame) == 2, body
    assert unframed(frame + "the new 16-inch MacBook Pro has a key.") == "The new 16-inch MacBook Pro has a key."
    assert not keeps_case("A soothing pillow might not lead to better rest.")
    assert keeps_case("NASA found water.")


def test_names_and_abbreviations_are_looked_up_in_the_whole_indexed_page(ws: Any, embed: Any) -> None:
    """full_pages reads every chunk research indexed of a cited page, so a full name outside the plan is found."""
    from nonseq.models import Chunk
    from nonseq.writing.writer import full_pages

    opening = ("Dr. Silvia S. Martins, an epidemiologist at Columbia University, led the study of "
               "cannabis use disorder (CUD) in states that legalised marijuana.")
    quote = ('"The public should be informed about the benefits and potential harms of marijuana products '
             'to make informed decisions," Martins said.')
    pack = make_pack([quote], "Cannabis use disorder after legalisation", "what the study found")
    target = pack.research[0].chunk
    target.position = 1
    stored = [Chunk(text=opening, topic_slug="t", category="space", url=target.url, title=target.title, position=0),
              target]
    ws.store.ensure("research_space", ws.embedder.dim, ws.embedder.name)
    ws.store.upsert("research_space", stored, np.random.default_rng(0).normal(size=(2, ws.embedder.dim)),
                    ws.sparse.encode([c.text for c in stored]))
    plan = build_plan(pack, schema(), embed)
    pages = full_pages(ws, plan)
    assert opening in pages[target.url]
    alone = assemble(plan, Composer(ScriptedLLM({}), Verifier(OverlapSupport(), 0.5), RESTATING).run(plan),
                     headings=True)  # the plan's own sentences give no full name
    assert "Silvia" not in alone, alone
    body = assemble(plan, Composer(ScriptedLLM({}), Verifier(OverlapSupport(), 0.5), RESTATING).run(plan),
                    headings=True, pages=pages)
    assert "Silvia S. Martins said" in body, body


def test_grounding_reads_a_framed_sentence_without_its_frame(ws: Any, embed: Any) -> None:
    """A frame's page title is the article's words: the sentence it frames is grounded on its own."""
    from nonseq.verify.grounding import check_grounding
    from nonseq.writing.sources import FactChunk

    fact = ("Since 1989, when it crushed the pro-reform protests that began in Tiananmen Square, Beijing has "
            "calculated that bloody suppression should be avoided if possible.")
    body = ("# Hong Kong\n\nAccording to “Hong Kong chaos: China deploys troops and warns SURRENDER is only option”, "
            f"{fact[0].lower()}{fact[1:-1]} [1].\n")
    facts = [FactChunk(1, fact, "http://127.0.0.1/a", "Hong Kong chaos", "research", 0)]
    result = check_grounding(body, facts, tokenize=ws.sparse.tokenize, embed=embed)
    assert result.sentences == 1 and result.unsupported == 0, result.details


def test_the_eighth_rounds_rules() -> None:
    """A page announcing its own list, a comparison with nothing before it, "a further 17", "soon" after an
    unnamed event, a subordinate clause alone, short months and planned events, the shortest long form."""
    from nonseq.text.parse import fragment
    from nonseq.text.prose import reject_reason

    assert reject_reason("Here are 15 tips to help overcome binge eating.", allow_second_person=True).startswith(
        "text about the page")
    assert reject_reason("The following year, the firm closed its plant.") == ""
    assert leaning_reason("As a way of rough comparison, the SunShot Initiative aims to cut solar costs.")
    assert leaning_reason("In comparison with 2018, sales of solar panels rose by a third.") is None
    assert leaning_reason("A further 17 manufacturers had production operations ranging from 30 to 600 MW.")
    assert leaning_reason("Further research is needed on the drug's side effects.") is None
    assert leaning_reason("Answers soon began to roll in from labs across the country.")
    assert leaning_reason("The app crashed shortly after its launch in March 2019.") is None
    assert leaning_reason("Finding water vapor on Europa, he said, is the “next best thing” to liquid water.")
    assert leaning_reason("When Paganini looked at the data, he saw a signal of water vapor.") is None
    assert fragment("Because space travel and sustaining life off Earth are anything but easy.") == (
        "a subordinate clause alone")
    assert fragment("While prices rose, sales of the phone fell by a third.") == ""
    assert anchor("Sentencing is scheduled for Feb. 14.", "2019-11-19") == "Sentencing is scheduled for Feb. 14, 2020."
    assert anchor("He was arrested Oct. 3 at his home.", "2019-11-19") == "He was arrested Oct. 3, 2019, at his home."
    # a target year ("by 2030") does not stop a past month being dated; a future month's year stays open
    target = "Data released by MOTIE in August put capacity at 1.64 GW, with 30.8 GW planned by 2030."
    assert anchor(target, "2019-11-20") == target.replace("August", "August 2019")
    assert anchor("The rover, due in 2021, will land on July 22.", "2019-11-20") == (
        "The rover, due in 2021, will land on July 22.")
    # a counted span is written as the span before or after the page's date; a vague one is not said
    assert anchor("EV sales will grow during the next two years.", "2019-11-20") == (
        "EV sales will grow during the two years after 20 November 2019.")
    assert anchor("Sales fell over the past 12 months.", "2019-11-20") == (
        "Sales fell over the 12 months before 20 November 2019.")
    named = "In 2017, the firm opened a plant in July."
    assert anchor(named, "2019-11-20") == named
    defs = definitions(["NASA picked the nine companies with Commercial Lunar Payload Services (CLPS) in 2018.",
                        "Astrobotic joined its Commercial Lunar Payload Services program (CLPS)."])
    assert defs["CLPS"] == "Commercial Lunar Payload Services"


def page_chunk(html: str, url: str) -> tuple[Any, Any]:
    """A page extracted as research extracts it, and its first chunk (a word count stands in for the tokenizer)."""
    from nonseq.research.chunking import Chunker
    from nonseq.research.extract import extract

    doc = extract(html, "text/html", url)
    assert doc is not None
    chunker = Chunker(lambda text: len(text.split()))
    return doc, next(chunker.iter_chunks(doc, topic_slug="t", category="finance", domain="127.0.0.1"))


def test_a_page_filed_under_an_opinion_section_is_its_authors_view() -> None:
    """The section a page's metadata files it under ("ideas", "Opinion") reaches the plan and frames its sentences."""
    from nonseq.models import SECTION_KEY

    html = ('<html><head><title>Banks for the broke | Wired</title><script type="application/ld+json">'
            '{"@context":"http://schema.org","@type":"NewsArticle","headline":"Banks for the broke",'
            '"articleSection":"ideas","datePublished":"2019-11-14"}</script></head><body><article>'
            "<h1>Banks for the broke</h1><p>The latest wave of tech-based financial startups have a new angle on "
            "the banking sector, and it is not a kind one to their customers.</p><p>Better banking is not a bad "
            "idea, nor is it a tough sell for anyone who has tried to open an account.</p></article></body></html>")
    doc, chunk = page_chunk(html, "http://127.0.0.1/story/banks")
    assert doc.section == "ideas" and chunk.extra[SECTION_KEY] == "ideas"
    assert opinion_page("Banks for the broke", "http://127.0.0.1/story/banks", "ideas")
    assert opinion_page("x", "http://127.0.0.1/a", "Opinion")
    assert not opinion_page("x", "https://thehill.com/blogs/blog-briefing-room/news/x", "Blog Briefing Room - News")


def test_a_sentence_is_framed_with_the_sites_own_name_for_itself() -> None:
    """og:site_name reaches the chunk and names the source in a frame ("According to MacRumors.com, ...") where the
    page's address cannot (a page served from 127.0.0.1) or spells the same name; never a name its host contradicts."""
    from nonseq.models import SITE_KEY

    html = ('<html><head><title>13-Inch MacBook Pro With Scissor Keyboard Expected in 2020</title>'
            '<meta property="og:site_name" content="MacRumors.com"></head><body><article>'
            "<h1>13-Inch MacBook Pro With Scissor Keyboard Expected in 2020</h1><p>Following the 16-inch MacBook "
            "Pro, Apple plans to release a new 13-inch MacBook Pro with a scissor switch keyboard in the first half "
            "of 2020, according to industry sources cited by DigiTimes.</p><p>The report claims the display size "
            "will remain 13.3 inches, although we would not completely rule out hopes of a larger display.</p>"
            "</article></body></html>")
    doc, chunk = page_chunk(html, "http://127.0.0.1/2019/11/18/macbook")
    assert doc.site_name == "MacRumors.com" and chunk.extra[SITE_KEY] == "MacRumors.com"
    unit = Unit([SourceSentence("c0.s0", "The display could grow.", 0, 0, doc.url, doc.title, "p", 1.0,
                                site=chunk.extra[SITE_KEY])])
    assert source_name(unit) == "MacRumors.com"
    assert site_name("t", "https://www.macrumors.com/x", "MacRumors.com") == "MacRumors.com"
    assert site_name("t", "https://thehill.com/x", "The Hill") == "The Hill"
    assert site_name("t", "https://www.wsj.com/x", "Wall Street Journal") == "wsj.com"  # the host says otherwise
    assert site_name("t", "https://www.bbc.co.uk/news/x", "BBC News") == "BBC News"  # the name holds the host's
    assert site_name("t", "https://www.healthline.com/x", "Healthline Media") == "Healthline Media"
    assert site_name("Review | Engadget", "http://127.0.0.1/x", "Other") == "Engadget"  # the title's site part first
    assert site_name("t", "http://127.0.0.1/x", "Autoracing | F1 | Indy | MotoGP") == "Autoracing"
    assert site_name("t", "http://127.0.0.1/x", "News") == "" and site_name("t", "http://127.0.0.1/x") == ""


def test_a_definite_subject_is_named_as_its_pages_nearest_mention_names_it() -> None:
    """"The agency said" takes the page's name when the page's nearest mention of "agency" before it is a
    proper name; never when it is another mention ("Omar's office" before "The office referred the call"),
    and not again once the article has said the name."""
    agency = "The agency said Monday that its researchers examined hibernation."
    esa = ["The European Space Agency says suspended animation could help.", "It would cut the mass."]
    assert named_institution(agency, agency, esa, []) == (
        "The European Space Agency said Monday that its researchers examined hibernation.", esa[0])
    office = "The office referred the call to U.S. Capitol Police."
    page = ["A man threatened Rep. Omar, the U.S. Attorney’s Office for the Western District said.",
            "He made a March 21 phone call to Omar’s office."]
    assert named_institution(office, office, page, []) == (office, "")
    assert named_institution(agency, agency, esa, ["The European Space Agency studied it."]) == (agency, "")
    framed = "According to AP, the agency said Monday that it examined hibernation."
    assert named_institution(framed, "The agency said Monday that it examined hibernation.", esa, []) == (
        "According to AP, the European Space Agency said Monday that it examined hibernation.", esa[0])
