"""Tests for the support cross-encoder: the product's check_support, its training recipe's made pairs, the
bench's AttributionBench report, and one code path for training-time and run-time scores."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nonseq.verify.crossenc import encode, windows
from nonseq.verify.support import check_support, support_scores

REPO = Path(__file__).resolve().parent.parent
FIREFOX = "Firefox is a web browser, and is Mozilla's flagship software product."


@pytest.fixture(scope="module")
def nlp() -> Any:
    """The packaged spaCy English pipeline the recipe parses with."""
    from training.support_ce.data import nlp as load

    return load()


def sentence(nlp: Any, text: str) -> Any:
    """The first sentence of a parsed text."""
    return next(iter(nlp(text).sents))


def test_made_pairs_swap_roles_and_keep_faithful_forms(nlp: Any) -> None:
    """The recipe's corruptions: a role swap, a foreign swap, a negation; faithful: cut and active voice."""
    from training.support_ce import corrupt

    rng = random.Random(0)
    s = sentence(nlp, "Firefox was created by Mozilla in 2002.")
    assert corrupt.role_swap(s, rng) == "Mozilla was created by Firefox in 2002."
    assert corrupt.passive_to_active(s) == ("Mozilla created Firefox in 2002.", "Firefox created Mozilla in 2002.")
    assert corrupt.negate(s, rng) == "Firefox was not created by Mozilla in 2002."
    doc = nlp("Netscape released Navigator in 1994. Firefox was created by Mozilla in 2002.")
    sents = list(doc.sents)
    swapped = corrupt.foreign_swap(sents[1], corrupt.pools(sents), 1, rng)
    assert swapped in ("Netscape was created by Mozilla in 2002.", "Navigator was created by Mozilla in 2002.")
    cut = corrupt.cut(sentence(nlp, "Paris, the capital of France, hosted the games in 2024."), rng)
    assert cut == "Paris hosted the games in 2024."
    # an exchange that keeps the meaning is no role swap: a list's conjuncts, a copula turned round, one phrase
    for kept in ("On Monday, Switzerland and Denmark clinched.",
                 "Top speed is an electronically-limited 124 mph.",
                 "A breakthrough in the US-China trade deal has remained out of reach."):
        assert corrupt.role_swap(sentence(nlp, kept), random.Random(0)) is None, kept
    assert corrupt.role_swap(sentence(nlp, "Wales beat Hungary 2-0 on Tuesday in Cardiff."), random.Random(0))


def test_check_support_without_the_head_is_the_stack_at_half() -> None:
    """Until a head ships, check_support is the word-overlap stack with its cut moved to 0.5 (order kept),
    read with who does what: the stack's decisions here, the verbatim claim raised over its stack score."""
    from nonseq.verify.support import SupportChecker, at_half

    assert at_half(0.2, 0.4) == 0.25 and at_half(0.4, 0.4) == 0.5 and at_half(0.7, 0.4) == 0.75
    checker = SupportChecker()
    pairs = [("Heat pump sales fell by 21 percent in 2024.", "Heat pump sales fell by 21 percent in 2024."),
             ("Heat pump sales rose by 40 percent in 1990.", "Heat pump sales fell by 21 percent in 2024.")]
    got, stack = support_scores(pairs), support_scores(pairs, who=False)
    results = checker.check_many(pairs)
    assert [g >= 0.5 for g in got] == [r.supported for r in results] == [True, False]
    assert stack[1] == pytest.approx(got[1]) and got[0] == pytest.approx(0.5 + 0.5 * stack[0])
    assert check_support(*pairs[0]) == pytest.approx(got[0], abs=1e-6)


def test_the_parse_check_puts_a_role_swap_under_the_decision_point() -> None:
    """With `roles`, a claim whose names trade places ("Mozilla was created by Firefox") falls under 0.5, where
    the word-overlap stack alone passes it; the faithful claim keeps its score."""
    source = ["Firefox was created by Mozilla in 2002.", "It was released in 2004."]
    pairs = [("Mozilla was created by Firefox in 2002.", source), ("Firefox was created by Mozilla in 2002.", source)]
    plain, parsed = support_scores(pairs, who=False), support_scores(pairs, roles=True)
    assert plain[0] >= 0.5 and parsed[0] < 0.5
    assert parsed[1] == pytest.approx(plain[1]) and parsed[1] >= 0.5


def test_windows_pack_a_long_source() -> None:
    """A long source is packed into windows that fit beside the claim; at most 8, those sharing most words."""
    filler = [f"The committee met on day {i} to discuss the budget of the town library." for i in range(60)]
    source = [*filler[:30], "Marie Curie won the Nobel Prize in Physics in 1903.", *filler[30:]]
    wins = windows("Marie Curie won the Nobel Prize in Physics in 1903.", source)
    assert 1 < len(wins) <= 8 and sum("Marie Curie" in w for w in wins) == 1
    assert windows("A claim.", []) == [] and windows("A claim.", ["One sentence."]) == ["One sentence."]


def test_training_reads_pairs_as_the_product_does() -> None:
    """The recipe's inputs are the product's: the same window text and the same token arrays."""
    from training.support_ce.data import Pair
    from training.support_ce.train import texts

    pairs = [Pair("Firefox is a browser.", [FIREFOX], 1, "same", "web", "g"),
             Pair("Mozilla makes Firefox.", [FIREFOX, "It was released in 2004."], 1, "join", "web", "g")]
    got = texts(pairs)
    assert got == [(p.claim, windows(p.claim, p.source)[0]) for p in pairs]
    assert got[1][1] == f"{FIREFOX} It was released in 2004."
    feed = encode(got)
    assert feed["input_ids"].shape == feed["token_type_ids"].shape == feed["attention_mask"].shape
    assert int(feed["token_type_ids"][0].max()) == 1
    assert int(feed["attention_mask"][0].sum()) < feed["input_ids"].shape[1]


def test_training_time_and_run_time_scores_agree(tmp_path: Path) -> None:
    """A head fitted by the recipe scores pairs the same at training time (features from the recipe, logits
    in torch) and at run time (the product's CrossEncoder from the raw texts, numpy)."""
    from nonseq.verify.crossenc import CrossEncoder
    from training.support_ce.train import features, fit_head, save_head, torch_logits

    pairs = [("Firefox is a web browser.", FIREFOX), ("Mozilla is a web browser.", FIREFOX),
             ("The sky is green.", FIREFOX), ("Mozilla makes Firefox.", FIREFOX)]
    x = features(pairs, threads=1)
    head = fit_head(x, np.array([1, 0, 0, 1]), seed=0, epochs=3)
    save_head(head, tmp_path / "h.npz")
    (tmp_path / "c.json").write_text(json.dumps({"head": "h.npz", "max_len": 256,
                                                 "calibration": {"a": 1.0, "b": 0.0}}))
    run_time = CrossEncoder(1, tmp_path / "c.json").logits(pairs)
    assert np.allclose(run_time, torch_logits(head, x), atol=1e-4), (run_time, torch_logits(head, x))
    assert len(set(np.round(run_time, 4))) == 4


def test_bench_reads_attributionbench(tmp_path: Path) -> None:
    """bench/support.py on AttributionBench-format rows reports macro-F1 per set and averaged, AUROC and
    the published rows; references may be a list or a Python-literal string."""
    rows = [{"claim": "Firefox is a web browser.", "references": [FIREFOX], "attribution_label": "attributable",
             "src_dataset": "A", "question": "q1", "id": "1"},
            {"claim": "Mozilla is a web browser.", "references": repr([FIREFOX]),
             "attribution_label": "not attributable", "src_dataset": "A"},
            {"claim": "Paris hosted the 2024 games.", "references": ["Paris hosted the Olympic Games in 2024."],
             "attribution_label": "attributable", "src_dataset": "B"},
            {"claim": "Rome hosted the 2024 games.", "references": ["Paris hosted the Olympic Games in 2024."],
             "attribution_label": "not attributable", "src_dataset": "B"}]
    path = tmp_path / "ab.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = subprocess.run([sys.executable, str(REPO / "bench" / "support.py"), "--data", str(path), "--json"],
                         capture_output=True, text=True, timeout=600, check=True)
    got = json.loads(out.stdout)
    assert got["claims"] == 4 and set(got["macro_f1"]["per_set"]) == {"A", "B"}
    per = got["macro_f1"]["per_set"]
    assert got["macro_f1"]["average"] == round((per["A"] + per["B"]) / 2, 1)
    assert 0 <= got["auroc"] <= 1
    assert got["published"]["zero-shot GPT-4"] == {"id": 67.2, "ood": 78.0}


def test_macro_f1() -> None:
    """The bench's macro-F1: both classes' F1 averaged, in percent."""
    spec = importlib.util.spec_from_file_location("bench_support", REPO / "bench" / "support.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.macro_f1([True, True, False, False], [True, False, False, False]) == round(100 * (2 / 3 + 0.8) / 2, 1)
    assert bench.macro_f1([True, True], [True, True]) == 50.0




def test_the_trained_candidate_reads_who_does_what_from_the_parse() -> None:
    """The ninth amendment's inputs: a name given another's role, a subject the source holds in another role,
    and a name the source lacks are each read; the faithful sentence reads clean."""
    from training.support_ce.learned import ROLE_FEATURES, role_features

    def read(claim: str) -> dict[str, float]:
        return dict(zip(ROLE_FEATURES, role_features(claim, [FIREFOX]), strict=True))

    faithful, swapped, foreign = read("Firefox is a web browser."), read("Mozilla is a web browser."), \
        read("Google is a web browser.")
    assert (faithful["exchanged"], faithful["subject_held"], faithful["name_share"]) == (0.0, 1.0, 1.0)
    assert (swapped["exchanged"], swapped["subject_elsewhere"]) == (1.0, 1.0)
    assert swapped["role_share"] < 1.0 and foreign["name_share"] < 1.0 and foreign["exchanged"] == 0.0
