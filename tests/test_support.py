"""Tests for nonseq.verify.support: does this source text support this claim? (with the real models)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nonseq.config import WritingSettings, load_settings
from nonseq.verify.support import SupportChecker, checker_for, claim_parts, names, source_units
from nonseq.workspace import Workspace

REPO = Path(__file__).resolve().parent.parent
WICE = REPO.parent / "shared" / "data" / "wice" / "dev.jsonl"
SOURCE = (
    "Heat pump sales in Europe fell by 21 percent in 2024 compared with the previous year, "
    "according to the European Heat Pump Association. The association counted about 2.3 million "
    "units sold across 14 countries. Germany saw the steepest decline, with sales roughly halving "
    "after a heated political debate over the country's building energy law. Installers say the "
    "upfront cost remains the main barrier for households."
)


@pytest.fixture(scope="module")
def checker(request: pytest.FixtureRequest) -> SupportChecker:
    """The checker with the bundled embedder and the BM25 tokenizer."""
    return SupportChecker()


def test_paraphrase_with_the_same_figures_is_supported(checker: SupportChecker) -> None:
    """A paraphrase keeping the figures is supported, and its evidence is the right sentence."""
    r = checker.check("About 2.3 million heat pumps were sold in 14 countries, the association "
                      "counted.", SOURCE)
    assert r.supported and 0 <= r.score <= 1 and not r.missing, r.to_dict()
    assert r.evidence[0].index == 1 and r.evidence[0].text.startswith("The association counted")
    r = checker.check("In Germany, sales roughly halved amid a political fight over the building "
                      "energy law.", SOURCE)
    assert r.supported and r.evidence[0].index == 2, r.to_dict()


@pytest.mark.parametrize(("claim", "flag", "missing"), [
    ("Heat pump sales in Europe fell by 35 percent in 2024.", "missing_number", "35"),
    ("In France, sales roughly halved after a heated political debate over the energy law.",
     "missing_name", "France"),
    ("Heat pump sales in Europe did not fall in 2024.", "negation", None),
    ("Heat pumps can also cool homes in summer by running the cycle in reverse.", None, None),
])
def test_changed_facts_are_not_supported(checker: SupportChecker, claim: str, flag: str | None,
                                         missing: str | None) -> None:
    """A changed number, a swapped name, a negation or an unmentioned topic is not supported."""
    r = checker.check(claim, SOURCE)
    assert not r.supported, r.to_dict()
    if flag:
        assert flag in r.flags
    if missing:
        assert missing in r.missing


def test_a_direction_turned_around_is_not_supported_and_the_same_direction_in_other_words_is(
        checker: SupportChecker) -> None:
    """"Rose" where the source says "fell" is flagged and not supported; "dropped" for "fell" is supported."""
    r = checker.check("Heat pump sales in Europe rose by 21 percent in 2024.", SOURCE)
    assert not r.supported and "opposite" in r.flags and r.missing == ["rose"], r.to_dict()
    r = checker.check("Heat pump sales in Europe dropped by 21 percent in 2024.", SOURCE)
    assert r.supported and "opposite" not in r.flags, r.to_dict()


def test_check_many_matches_check_and_accepts_sentence_lists(checker: SupportChecker) -> None:
    """Batched checks score like single ones; a list of sentences is a source too."""
    sentences = source_units(SOURCE)
    assert len(sentences) == 4
    claims = ["Heat pump sales in Europe fell by 21 percent in 2024.",
              "Installers say the upfront cost is the main barrier."]
    many = checker.check_many([(c, sentences) for c in claims])
    for claim, got in zip(claims, many, strict=True):
        one = checker.check(claim, SOURCE)
        assert got.score == pytest.approx(one.score, abs=1e-5)
        assert [e.index for e in got.evidence] == [e.index for e in one.evidence]
    assert [r.evidence[0].index for r in many] == [0, 3]
    assert checker.check("Anything at all here.", []).supported is False
    d = many[0].to_dict()
    assert set(d) >= {"score", "supported", "evidence", "missing", "flags"}


def test_token_recall_orders_a_copy_a_paraphrase_and_other_topics(checker: SupportChecker) -> None:
    """The claim level's token recall: 1 for a sentence the source holds, high for a paraphrase,
    low for another topic; the shipped claim model scores a pair higher the more it recalls."""
    claims = ["The association counted about 2.3 million units sold across 14 countries.",
              "About 2.3 million heat pumps were sold in 14 countries, the association counted.",
              "Heat pumps can also cool homes in summer by running the cycle in reverse.",
              "The novel follows a young wizard through his first year at a boarding school."]
    got = [checker.check(c, SOURCE, setting="claim") for c in claims]
    recall = [r.features["tok_recall"] for r in got]
    assert recall[0] == pytest.approx(1.0, abs=1e-4)
    assert recall[0] > recall[1] > 0.8 > 0.6 > recall[2] > recall[3], recall
    claim_model = checker.stacks["claim"]
    assert "tok_recall" in claim_model.features
    feats = dict(got[1].features)
    low = claim_model.score(feats | {"tok_recall": recall[2]})
    assert claim_model.score(feats) > low, (claim_model.score(feats), low)
    assert "tok_recall" not in checker.check(claims[0], [claims[0]]).features  # the sentence setting skips it


def test_text_helpers() -> None:
    """Claim parts, names."""
    parts = claim_parts("Arnold is the publisher of Media Play News, one of five Hollywood trades "
                        "and the only one dedicated to home entertainment.")
    assert len(parts) >= 2
    assert names("The association met Marta Lindqvist in Berlin.") == ["Marta", "Lindqvist",
                                                                       "Berlin"]


def test_checker_for_a_workspace_is_cached(ws) -> None:  # noqa: ANN001
    """One checker per workspace, built from its embedder and tokenizer."""
    c = checker_for(ws)
    assert checker_for(ws) is c and c.dense
    assert c.check("Heat pump sales fell by 21 percent in 2024.", SOURCE).supported


@pytest.mark.parametrize("threads", ["1", "2"])
def test_checker_for_a_workspace_runs_on_the_embedding_threads(threads: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`[embedding] threads` reaches the check's encoder (the writer's check on two cores), whose idle threads sleep."""
    monkeypatch.setenv("NONSEQ_EMBEDDING__THREADS", threads)
    ws = Workspace(load_settings())
    try:
        c = checker_for(ws)
        assert c.check("Heat pump sales fell by 21 percent in 2024.", SOURCE).supported
        opts = c.encoder.sess.get_session_options()
        assert opts.intra_op_num_threads == int(threads)
        assert opts.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    finally:
        ws.close()


@pytest.mark.skipif(not WICE.is_file(), reason="WiCE dev data not present")
def test_bench_prints_the_figures() -> None:
    """bench/support.py on a few WiCE claims prints one JSON object with the agreed keys."""
    out = subprocess.run([sys.executable, str(REPO / "bench" / "support.py"), "--limit", "15",
                          "--json"], capture_output=True, text=True, timeout=600, check=True)
    got = json.loads(out.stdout)
    for key in ("auroc_supported_vs_rest", "auroc_supported_vs_partial"):
        assert isinstance(got[key], float) and 0 <= got[key] <= 1
    assert got["claims"] == 15 and got["published"]["auroc_supported_vs_rest"]["gpt-4"] == 0.802
    assert {"cut", "precision", "recall", "seconds_per_claim"} <= set(got)
    sentence = got["sets"]["dev"]["sentence"]
    at_writer, at_half = sentence["at_writer_min_support"], sentence["at_0.5"]
    assert at_writer["cut"] == WritingSettings().min_support > at_half["cut"] == 0.5
    # counts of the scored pairs: a higher cut calls no more of them supported, and finds no more positives
    assert at_writer["called_supported"] <= at_half["called_supported"] <= sentence["pairs"] > 0
    for at in (at_writer, at_half):
        assert round(at["recall"] * sentence["positives"]) <= at["called_supported"]


def test_bench_reads_both_scifact_formats(tmp_path: Path) -> None:
    """bench/support.py reads claims_train.jsonl rows and SciFact's own claims format (+ corpus) alike."""
    from bench import support as bench
    sentences = ["Aspirin lowers fever.", "It was tested in 40 adults.", "Side effects were rare."]
    (tmp_path / "corpus.jsonl").write_text(json.dumps({"doc_id": 7, "title": "t", "abstract": sentences}) + "\n")
    def ev(label: str) -> dict[str, list[dict[str, object]]]:
        return {"7": [{"sentences": [0], "label": label}]}

    claims = [{"id": 1, "claim": "Aspirin lowers fever.", "evidence": ev("SUPPORT"), "cited_doc_ids": [7]},
              {"id": 2, "claim": "Aspirin raises fever.", "evidence": ev("CONTRADICT"), "cited_doc_ids": [7]},
              {"id": 3, "claim": "Aspirin cures baldness.", "evidence": {}, "cited_doc_ids": [7]}]
    (tmp_path / "dev.jsonl").write_text("".join(json.dumps(c) + "\n" for c in claims))
    kind, rows = bench.load(tmp_path / "dev.jsonl", tmp_path / "corpus.jsonl")
    train = [{"id": 1, "claim": "Aspirin lowers fever.", "doc_id": "7", "label": "SUPPORT", "rationale": [0],
              "sentences": sentences}]
    (tmp_path / "train.jsonl").write_text(json.dumps(train[0]) + "\n")
    assert kind == "scifact" and [r["label"] for r in rows] == ["SUPPORT", "CONTRADICT", "NOT_ENOUGH_INFO"]
    assert rows[0] == bench.load(tmp_path / "train.jsonl", None)[1][0] | {"label": "SUPPORT"}
    pairs = bench.sentence_pairs(kind, rows)
    assert [(p[1], p[2], p[3]) for p in pairs] == [
        (sentences[:1], True, "support"), (sentences[:1], False, "contradict"),
        ([sentences[0]], False, "no_evidence_top")]
