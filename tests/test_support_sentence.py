"""The support check in the writer's setting: one sentence against one or two source sentences.

Through the public API (nonseq.verify.support.SupportChecker); the cases were written before the
head was trained. A pair whose source has one or two sentences is scored by the stacked model (the
alignment head's logits + today's features, cut for precision), a longer one by the claim model.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from nonseq.verify.support import SupportChecker, adjust, load_model

CURIE = ["In 1903, Marie Curie was awarded the Nobel Prize in Physics."]
DRUG = ["In older patients, the medication lowered blood pressure."]
# SciFact train, claim 306 vs its rationale sentence (abstract 7821634), labelled CONTRADICT.
SF_CLAIM = "DUSP4 decreases apoptosis."
SF_SOURCE = ["DUSP4 overexpression increased chemotherapy-induced apoptosis, whereas DUSP4 depletion dampened the "
             "response to chemotherapy."]


@pytest.fixture(scope="module")
def checker() -> SupportChecker:
    """The shipped checker (bundled MiniLM, BM25 tokenizer), built once."""
    return SupportChecker()


def test_paraphrase_is_supported(checker: SupportChecker) -> None:
    """A paraphrase of the source sentence is supported, with a calibrated score."""
    r = checker.check("Marie Curie won the Nobel Prize in Physics in 1903.", CURIE)
    assert r.supported and 0.5 < r.score <= 1, r.to_dict()
    assert "whole" in r.features  # scored in the sentence setting, by the head


def test_looser_paraphrase_is_supported(checker: SupportChecker) -> None:
    """A true paraphrase in other words (drug/medication, elderly/older) clears the precision cut.

    The single head missed it (a known miss before the seed ensemble); the seed ensemble of three heads calls it
    supported. Recall at the cut is still low (about 12% out of fold): most looser paraphrases are missed.
    """
    r = checker.check("The drug reduced blood pressure in elderly patients.", DRUG)
    assert r.supported and r.score >= checker.stacks["sentence"].cut, r.to_dict()


@pytest.mark.parametrize(("claim", "source"), [
    ("Marie Curie won the Nobel Prize in Physics in 1905.", CURIE),  # changed number
    ("Albert Einstein won the Nobel Prize in Physics in 1903.", CURIE),  # swapped name
    ("Marie Curie did not win the Nobel Prize in Physics.", CURIE),  # negation
    ("The drug did not reduce blood pressure in elderly patients.", DRUG),  # negation
    ("Marie Curie won the Nobel Prize in Physics in 1903.",
     ["The river flows north through the valley before it reaches the sea."]),  # unrelated
    ("The gene is upregulated in tumour cells.", ["The gene is downregulated in tumour cells."]),  # opposite
    ("Exercise was associated with better survival.",
     ["Exercise was associated with poorer survival."]),  # opposite: the check without the opposite rule called both
], ids=["number", "name", "negation", "negation-drug", "unrelated", "opposite-regulation", "opposite-survival"])
def test_changed_facts_are_not_supported(checker: SupportChecker, claim: str, source: list[str]) -> None:
    """A changed number, a swapped name, a negation, a direction turned around and an unrelated source are not
    supported."""
    r = checker.check(claim, source)
    assert not r.supported, r.to_dict()


def test_scifact_contradiction_by_an_opposite_is_caught_in_both_settings(checker: SupportChecker) -> None:
    """SciFact train, claim 221 vs its rationale sentence (abstract 19205437), labelled CONTRADICT: the claim says
    UCP1-dependent where the source says UCP1-independent. Without the opposite rule both settings called it
    supported (0.81 against the sentence cut 0.78, 0.83 against the claim cut 0.17); the rule puts it under both."""
    claim = "Ca2+ cycling is a UCP1-dependent thermogenic mechanism."
    source = ["Here we report a robust UCP1-independent thermogenic mechanism in beige fat that involves enhanced "
              "ATP-dependent Ca2+ cycling by sarco/endoplasmic reticulum Ca2+-ATPase 2b (SERCA2b) and ryanodine "
              "receptor 2 (RyR2)."]
    for setting in ("auto", "claim"):
        r = checker.check(claim, source, setting=setting)
        assert not r.supported and "opposite" in r.flags and "dependent" in r.missing, (setting, r.to_dict())


def test_scifact_contradiction_that_the_old_check_called_supported(checker: SupportChecker) -> None:
    """A SciFact contradiction: the model before issue 22 (its features, rule and cut; the opposite rule came
    later) calls it supported, the shipped check does not."""
    old = SupportChecker(model=load_model("dense"), tokenize=checker.tokenize)
    feats = old.check(SF_CLAIM, SF_SOURCE).features
    before = float(old.model.score(np.array([[feats[f] for f in old.model.features]]))[0])
    assert adjust(before, feats, old.cut, ("missing_numbers", "missing_names", "negation")) >= old.cut
    r = checker.check(SF_CLAIM, SF_SOURCE)
    assert not r.supported and r.score < checker.stacks["sentence"].cut, r.to_dict()


def test_scores_are_probabilities_in_input_order(checker: SupportChecker) -> None:
    """scores(pairs) (the writer's interface) gives P(supported) per pair, like check_many."""
    pairs = [("Marie Curie won the Nobel Prize in Physics in 1903.", CURIE), (SF_CLAIM, SF_SOURCE),
             ("Anything at all here.", [])]
    got = checker.scores(pairs)
    assert len(got) == 3 and all(0 <= s <= 1 for s in got) and got[2] == 0.0
    assert got[0] > got[1]
    assert got[:2] == pytest.approx([r.score for r in checker.check_many(pairs[:2])], abs=1e-6)


def test_one_encoder_and_no_torch() -> None:
    """The check runs the bundled MiniLM once per text (its cosines come from the head's token states),
    and imports neither torch nor transformers."""
    code = ("import sys; from nonseq.verify.support import SupportChecker; c = SupportChecker(); "
            "c.check('a b c.', ['a b c.']); assert c._embed is None and len(c.encoder.memo) == 1; "
            "assert 'torch' not in sys.modules and 'transformers' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_claim_setting_for_grounding_and_facts(checker: SupportChecker) -> None:
    """setting="claim" (grounding's chunks, the knowledge base's quotes) scores even a one-sentence source
    with the longer-source model and its lenient cut, and its number rule."""
    r = checker.check("Marie Curie won the Nobel Prize in Physics in 1903.", CURIE, setting="claim")
    assert r.supported and "whole" not in r.features and checker.cut == checker.stacks["claim"].cut
    r = checker.check("Marie Curie won the Nobel Prize in Physics in 1905.", CURIE, setting="claim")
    assert not r.supported and "missing_number" in r.flags and r.score < checker.cut
