"""Tests for who does what in the support check: a name given another name's role (verify.roles.exchanged_role),
a claim in its source's own words (verify.verbatim), and check_support reading both (PROTOCOL.md, sixth
amendment)."""

from __future__ import annotations

import pytest

from nonseq.verify.roles import exchanged, exchanged_role
from nonseq.verify.support import check_support, support_scores
from nonseq.verify.verbatim import verbatim

FIREFOX = "Firefox is a web browser, and is Mozilla's flagship software product."
TRADE_MARK = "MNT is the registered trade mark of Healthline Media."


@pytest.mark.parametrize(("claim", "source"), [
    ("Healthline Media is the registered trade mark of MNT.", TRADE_MARK),
    ("Mozilla is a web browser.", FIREFOX),  # a name of the sentence takes the subject's place
    ("The UK wants the US to extradite Assange over his alleged role in the release.",
     "The US wants the UK to extradite Assange over his alleged role in the release."),
    ("The office referred the call to FBI, who worked with the U.S. Capitol Police to investigate.",
     "The office referred the call to U.S. Capitol Police, who worked with the FBI to investigate."),
    ("Firefox created Blake Ross.", "Firefox was created by Blake Ross."),
    ("Washington's foreign ministry said it viewed Russia's move as a measure contradicting the deal.",
     "Russia's foreign ministry said it viewed Washington's move as a measure contradicting the deal."),
])
def test_a_name_given_another_names_role_is_found(claim: str, source: str) -> None:
    """Two names trading places, or a name of the sentence taking the subject's place, changes who does what."""
    assert exchanged_role(claim, source).startswith("who does what changed"), claim


@pytest.mark.parametrize(("claim", "source"), [
    (TRADE_MARK, TRADE_MARK),
    ("MNT is a trade mark of Healthline Media.", TRADE_MARK),  # cut
    ("Firefox is a web browser.", FIREFOX),
    ("Blake Ross created Firefox.", "Firefox was created by Blake Ross."),  # the passive made active
    ("Bob and Alice met in Paris.", "Alice and Bob met in Paris."),  # conjuncts share their role
    ("DUSP4 increases apoptosis.", "DUSP4 overexpression increased chemotherapy-induced apoptosis."),
    ("Top speed is an electronically-limited 124 mph.", "An electronically-limited 124 mph is top speed."),
    ("Rome hosted the games.", "Paris hosted the games in 2024."),  # a name the source lacks: not judged here
])
def test_faithful_forms_keep_who_does_what(claim: str, source: str) -> None:
    """The sentence, a cut, the passive made active, reordered conjuncts, a name standing for its own phrase
    and an equative copula turned round keep every name's role."""
    assert exchanged_role(claim, source) == "", claim


def test_exchanged_reads_each_sentence_against_each_evidence_sentence() -> None:
    """A multi-sentence claim and evidence are read sentence by sentence; footnote markers are no words."""
    evidence = ["The browser was released in 2004.[2] " + TRADE_MARK]
    assert exchanged("It was released in 2004. Healthline Media is the registered trade mark of MNT.", evidence)
    assert exchanged("It was released in 2004. MNT is the registered trade mark of Healthline Media.", evidence) == ""


@pytest.mark.parametrize(("claim", "expected"), [
    ("The former minister did not sign the treaty in Geneva in 2019.", True),  # the sentence itself
    ("The former minister did not sign the treaty.", True),  # a trailing phrase cut
    ("The minister did not sign the treaty in Geneva.", False),  # "former" cut inside
    ("The former minister did sign the treaty in Geneva.", False),  # the negation cut
    ("Minister did not sign the treaty in Geneva in 2019.", False),  # "former" just before the kept words
    ("In Geneva the former minister did not sign the treaty.", False),  # reordered
    ("Not sign the treaty.", True),
    ("The treaty.", False),  # under MIN_WORDS
])
def test_verbatim_claims_are_the_sources_words_with_words_only_cut(claim: str, expected: bool) -> None:
    """A claim is verbatim when it is a source sentence with words only cut, and no cut word that carries
    meaning (a negation, a qualifier) lies inside the kept words or right beside them."""
    source = ["The former minister did not sign the treaty in Geneva in 2019.", "It was signed later."]
    assert verbatim(claim, source) is expected, claim


def test_check_support_puts_swapped_roles_under_the_decision_point() -> None:
    """check_support sees who does what: the word-overlap stack alone passes the role swap and the
    subject taken from elsewhere in the sentence; check_support puts both under 0.5 and keeps the faithful
    claims over it."""
    pairs = [("Mozilla is a web browser.", FIREFOX), ("Firefox is a web browser.", FIREFOX),
             ("Healthline Media is the registered trade mark of MNT.", TRADE_MARK),
             ("MNT is the registered trade mark of Healthline Media.", TRADE_MARK)]
    stack, who = support_scores(pairs, who=False), support_scores(pairs)
    assert all(s >= 0.5 for s in stack), stack
    assert [w >= 0.5 for w in who] == [False, True, False, True], who
    assert check_support(*pairs[0]) == pytest.approx(who[0], abs=1e-6)


def test_a_long_source_is_decided_at_the_claim_point() -> None:
    """A source of more than two sentences is read in the claim setting and decided at CLAIM_POINT (moved to
    0.5, order kept); a one-sentence source keeps the who-read score."""
    from nonseq.verify.support import CLAIM_POINT, at_half, read_with_who, stack_results

    long_source = ["Firefox was released in 2004.", "It quickly gained users.", "Mozilla develops it.",
                   "It runs on Windows, macOS and Linux."]
    pairs = [("Mozilla develops Firefox, which was released in 2004.", long_source),
             ("Firefox is a web browser.", FIREFOX)]
    results, stack = stack_results(pairs, 1)
    who = read_with_who(pairs, results, stack)
    got = support_scores(pairs)
    assert "whole" not in results[0].features and "whole" in results[1].features
    assert got[0] == pytest.approx(at_half(who[0], CLAIM_POINT)) and got[0] != pytest.approx(who[0])
    assert got[1] == pytest.approx(who[1])
