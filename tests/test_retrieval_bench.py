"""The retrieval benchmark: metrics against hand-computed values, and a run on a tiny BEIR set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import _metrics


def test_ndcg_and_recall_known_values() -> None:
    """nDCG@10 and Recall@100 agree with values worked out by hand."""
    _metrics.self_check()
    assert _metrics.ndcg_at(["b", "a"], {"a": 1, "b": 1}) == pytest.approx(1.0)
    assert _metrics.evaluate({"q": ["x", "a"]}, {"q": {"a": 1}})["ndcg@10"] == pytest.approx(
        1 / 1.584962500721156)


def write_beir(folder: Path) -> None:
    """A tiny BEIR data set: 24 documents, 3 judged queries."""
    topics = ["solar panels convert sunlight", "wind turbines spin in storms",
              "vaccines train the immune system", "glaciers retreat as climate warms"]
    docs = [{"_id": f"d{i}", "title": f"Doc {i}", "text": f"{topics[i % 4]} variant {i}."}
            for i in range(24)]
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs))
    queries = [{"_id": "q1", "text": "how do vaccines train immunity"},
               {"_id": "q2", "text": "glaciers and a warming climate"},
               {"_id": "q3", "text": "sunlight to electricity with solar panels"}]
    (folder / "queries.jsonl").write_text("\n".join(json.dumps(q) for q in queries))
    (folder / "qrels" / "train.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td2\t1\nq1\td6\t1\nq2\td3\t1\nq3\td0\t1\n")


def test_bench_runs_every_method_and_prints_json(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """--json prints the methods with nDCG@10, Recall@100, ms per query, and names the default."""
    from bench import retrieval

    data = tmp_path / "beir"
    write_beir(data)
    code = retrieval.main(["--data", str(data), "--cache-dir", str(tmp_path / "cache"),
                           "--json", "--limit", "3", "--no-web"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    methods = result["methods"]
    for name in ("bm25", "dense", "hybrid-rrf", "bm25s", "chain-bi-encoder"):
        assert set(methods[name]) >= {"ndcg@10", "recall@100", "ms_per_query"}
        assert 0.0 <= methods[name]["ndcg@10"] <= 1.0
    assert result["default"] == "chain-bi-encoder"
    assert methods["bm25"]["ndcg@10"] > 0.5
    calib = result["details"]["calibration"]["bi-encoder"]
    assert calib["backend"] == "bi-encoder" and calib["threshold"] == 0.28
    dist = calib["distributions"]
    assert dist["relevant_pairs"]["n"] == 4 and dist["on_topic"]["n"] == dist["off_topic"]["n"] == 3
    assert dist["relevant_pairs"]["mean"] > dist["irrelevant_pairs"]["mean"]
    assert 0.0 <= calib["scifact"]["precision"] <= 1.0 and 0.0 <= calib["scifact"]["recall"] <= 1.0
