"""Topic-floor bench: how the plan's topic relevance separates a topic's own sentences from others'.

On the tune topics of bench/writing_topics.json only. Every tune page is extracted (the project's
extractor), split by the writer's splitter, and its prose sentences (what `text.prose.reject_reason`
lets through, second person allowed) scored against each tune topic with the plan's relevance
(mean cosine of the sentence and of the sentence with its neighbours to "title. focus", bundled
MiniLM). Printed per floor: the share of a topic's own sentences that pass, of same-category
sentences of other topics, and of other-category sentences; and the percentiles of the last
(`short_floor` = their 99th percentile, docs/writing.md).

    python bench/topic_floor.py [--floors 0.25,0.27,0.3,0.35] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the repository: nonseq, devkit, bench


def page_sentences(page_id: str) -> tuple[list[str], list[str]]:
    """A page's prose sentences and each with its neighbours (the plan's window)."""
    from bench._localweb import DATA
    from nonseq.research.extract import extract
    from nonseq.text.prose import reject_reason
    from nonseq.text.sentences import split, strip_dateline

    doc = extract(gzip.decompress((DATA / "html" / f"{page_id}.html.gz").read_bytes()))
    sents = [strip_dateline(s) for s in split(doc.text if doc else "")]
    keep = [i for i, s in enumerate(sents) if not reject_reason(s, allow_second_person=True, max_words=45)]
    return [sents[i] for i in keep], [" ".join(sents[max(0, i - 1):i + 2]) for i in keep]


def relevances(topics: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Relevance of own, same-category and other-category sentences, over every tune topic."""
    from devkit.web import vector_cache_from_env
    from nonseq.config import EmbeddingSettings
    from nonseq.index.embed import build_embedder, normalize_rows
    from nonseq.writing.plan import topic_relevance

    embed = build_embedder(EmbeddingSettings(**vector_cache_from_env())).embed
    pages: dict[str, tuple[str, np.ndarray, np.ndarray]] = {}
    for t in topics:
        for pid in t["pages"]:
            if pid not in pages:
                sents, wins = page_sentences(pid)
                pages[pid] = (t["category"], normalize_rows(np.asarray(embed(sents))),
                              normalize_rows(np.asarray(embed(wins))))
    out: dict[str, list[float]] = {"own": [], "same_category": [], "other_category": []}
    for t in topics:
        q = normalize_rows(np.asarray(embed([" ".join(f"{t['title']}. {t['focus']}".split())])))[0]
        for pid, (cat, sv, wv) in pages.items():
            kind = "own" if pid in t["pages"] else "same_category" if cat == t["category"] else "other_category"
            out[kind] += list(topic_relevance(sv, wv, q))
    return {k: np.asarray(v) for k, v in out.items()}


def main() -> int:
    """Print the pass rates per floor and the other-category percentiles."""
    from bench.writing import load_topics

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--floors", default="0.25,0.27,0.3,0.35")
    ap.add_argument("--limit", type=int, default=0, help="a smoke run: the first N tune topics, one page each")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    topics = load_topics("tune")
    if args.limit:  # a smoke run: the first N topics, one page each
        topics = [t | {"pages": t["pages"][:1]} for t in topics[:args.limit]]
    rel = relevances(topics)
    report: dict[str, Any] = {
        "n": {k: len(v) for k, v in rel.items()},
        "other_category_percentiles": {p: round(float(np.percentile(rel["other_category"], p)), 3)
                                       if len(rel["other_category"]) else None for p in (90, 95, 99, 99.9)},
        "pass": {f: {k: round(float((v >= float(f)).mean()), 4) if len(v) else None for k, v in rel.items()}
                 for f in args.floors.split(",")}}
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"sentences: {report['n']}")
    print(f"other-category percentiles: {report['other_category_percentiles']}")
    for f, row in report["pass"].items():
        print(f"  floor {f}: own {row['own']:.1%}  same category {row['same_category']:.2%}  "
              f"other category {row['other_category']:.2%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
