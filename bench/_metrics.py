"""IR metrics for the benchmarks: nDCG@k (trec_eval's linear gain) and Recall@k, hand-written."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

Qrels = dict[str, dict[str, int]]


def ndcg_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int = 10) -> float:
    """nDCG@k with gain = relevance and discount 1/log2(rank + 1), as trec_eval/pytrec_eval."""
    dcg = sum(relevant.get(doc, 0) / math.log2(i + 2) for i, doc in enumerate(ranking[:k]))
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranking: Sequence[str], relevant: Mapping[str, int], k: int = 100) -> float:
    """Share of the relevant documents found in the top k."""
    wanted = {d for d, g in relevant.items() if g > 0}
    if not wanted:
        return 0.0
    return len(wanted.intersection(ranking[:k])) / len(wanted)


def evaluate(runs: Mapping[str, Sequence[str]], qrels: Qrels) -> dict[str, float]:
    """Mean nDCG@10 and Recall@100 over the queries of a run (a missing query scores 0)."""
    ids = [q for q in runs if q in qrels]
    if not ids:
        return {"ndcg@10": 0.0, "recall@100": 0.0}
    return {
        "ndcg@10": sum(ndcg_at(runs[q], qrels[q], 10) for q in ids) / len(ids),
        "recall@100": sum(recall_at(runs[q], qrels[q], 100) for q in ids) / len(ids),
    }


def self_check() -> None:
    """Check nDCG against hand-computed values (raises AssertionError when wrong)."""
    # two relevant docs, found at ranks 1 and 3: (1 + 1/log2 4) / (1 + 1/log2 3) = 0.919721
    assert abs(ndcg_at(["a", "x", "b"], {"a": 1, "b": 1}) - 0.9197207891481876) < 1e-12
    assert ndcg_at(["x", "y"], {"a": 1}) == 0.0
    assert ndcg_at(["a"], {"a": 2}) == 1.0
    assert recall_at(["a", "x"], {"a": 1, "b": 1}, 100) == 0.5


def load_beir(folder: Path, qrels_path: Path | None = None) -> tuple[
        dict[str, tuple[str, str]], dict[str, str], Qrels]:
    """A BEIR data set: corpus {id: (title, text)}, queries {id: text}, qrels {qid: {doc: rel}}."""
    corpus: dict[str, tuple[str, str]] = {}
    with (folder / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            corpus[str(row["_id"])] = (row.get("title") or "", row.get("text") or "")
    queries: dict[str, str] = {}
    with (folder / "queries.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            queries[str(row["_id"])] = row["text"]
    qrels: Qrels = {}
    path = qrels_path or folder / "qrels" / "train.tsv"
    with path.open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            qrels.setdefault(str(row["query-id"]), {})[str(row["corpus-id"])] = int(row["score"])
    return corpus, queries, qrels
