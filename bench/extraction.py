"""Extraction quality: shingle/token F1 of extracted text against articleBody, and pages per second.

Data: the Scrapinghub article-extraction-benchmark (181 pages, ground-truth.json + html/*.html.gz).
Scores follow the benchmark's method: per page, tp/fp/fn over n-gram shingles of \\w+ tokens
(normalised per page), then mean precision, mean recall and F1 of those means; --ngram 1 gives
plain token F1. The mean of per-page F1 is reported too.

    python bench/extraction.py [--data DIR] [--favor precision|balanced|recall] [--fast]
                               [--ngram N] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from nonseq.config import ResearchSettings
from nonseq.research.extract import Extractor, extract_html

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: nonseq, devkit, bench
from devkit.data import DATA as SHARED  # noqa: E402 - after the path setup

DEFAULT_DATA = SHARED / "web" / "scrapinghub-aeb"
_TOKEN = re.compile(r"\w+", re.UNICODE)


def shingles(text: str, n: int) -> Counter[tuple[str, ...]]:
    """The n-gram shingles of a text's \\w+ tokens, counted."""
    tokens = _TOKEN.findall(text or "")
    if n <= 1:
        return Counter((t,) for t in tokens)
    return Counter(tuple(tokens[i:i + n]) for i in range(max(1, len(tokens) - n + 1)) if tokens)


def tp_fp_fn(true: str, pred: str, n: int) -> tuple[float, float, float]:
    """True/false positives and false negatives over shingles, normalised to sum 1."""
    gold, got = shingles(true, n), shingles(pred, n)
    tp = float(sum((gold & got).values()))
    fp = float(sum((got - gold).values()))
    fn = float(sum((gold - got).values()))
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def page_scores(counts: tuple[float, float, float]) -> tuple[float | None, float | None, float]:
    """Precision (None when nothing was predicted), recall (None when nothing is true), F1."""
    tp, fp, fn = counts
    if fp == fn == 0:
        return 1.0, 1.0, 1.0
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    p, r = precision or 0.0, recall or 0.0
    return precision, recall, (2 * p * r / (p + r) if p + r else 0.0)


def load(data: Path, limit: int = 0) -> list[tuple[str, str, bytes, str]]:
    """(key, url, html bytes, articleBody) for every page of the benchmark (the first `limit`, when given)."""
    truth_file = data / "ground-truth.json"
    if not truth_file.is_file():
        sys.exit(f"error: {truth_file} not found (use --data DIR)")
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    pages = []
    for key, item in sorted(truth.items())[:limit or None]:
        html = gzip.decompress((data / "html" / f"{key}.html.gz").read_bytes())
        pages.append((key, item.get("url", ""), html, item.get("articleBody", "")))
    return pages


def run(data: Path, *, favor: str = "precision", fast: bool = False,
        ngram: int = 4, limit: int = 0) -> dict[str, Any]:
    """Extract every page and score it; returns the figures."""
    precision, recall = favor == "precision", favor == "recall"
    pages = load(data, limit)
    extractor = Extractor(min_text_chars=0)
    counts, texts, metadata = [], [], Counter()
    start = time.perf_counter()
    for _key, url, html, _truth in pages:
        doc = extract_html(html, url, favor_precision=precision, favor_recall=recall, fast=fast)
        texts.append(doc.text if doc else "")
        if doc:
            extractor.admit(doc, url)
            metadata.update(k for k in ("title", "author", "published", "site_name")
                            if getattr(doc, k))
    seconds = time.perf_counter() - start
    for (_key, _url, _html, truth), text in zip(pages, texts, strict=True):
        counts.append(tp_fp_fn(truth, text, ngram))
    scores = [page_scores(c) for c in counts]
    mean_p = statistics.mean(p for p, _, _ in scores if p is not None)
    mean_r = statistics.mean(r for _, r, _ in scores if r is not None)
    return {
        "pages": len(pages),
        "settings": {"favor": favor, "fast": fast, "ngram": ngram},
        "precision": round(mean_p, 4),
        "recall": round(mean_r, 4),
        "f1": round(2 * mean_p * mean_r / (mean_p + mean_r), 4),
        "mean_page_f1": round(statistics.mean(f for _, _, f in scores), 4),
        "empty": sum(1 for t in texts if not t),
        "metadata_found": {k: metadata[k] for k in ("title", "author", "published", "site_name")},
        "seconds": round(seconds, 3),
        "pages_per_s": round(len(pages) / seconds, 1),
    }


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, run the benchmark, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="benchmark folder")
    parser.add_argument("--favor", choices=("precision", "balanced", "recall"),
                        default=ResearchSettings().extraction,
                        help="trafilatura's bias (default: the [research] extraction default)")
    parser.add_argument("--fast", action="store_true", help="trafilatura fast (no fallbacks)")
    parser.add_argument("--ngram", type=int, default=4, help="shingle size (1 = token F1)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N pages (a smoke run)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    figures = run(args.data.resolve(), favor=args.favor, fast=args.fast, ngram=args.ngram, limit=args.limit)
    if args.json:
        print(json.dumps(figures))
        return
    s = figures["settings"]
    print(f"extraction on {figures['pages']} pages (ngram={s['ngram']}, favor={s['favor']}, "
          f"fast={s['fast']})")
    print(f"  precision {figures['precision']:.3f}  recall {figures['recall']:.3f}  "
          f"F1 {figures['f1']:.3f}  (mean page F1 {figures['mean_page_f1']:.3f})")
    print(f"  {figures['pages_per_s']} pages/s ({figures['seconds']} s), "
          f"{figures['empty']} empty, metadata {figures['metadata_found']}")


if __name__ == "__main__":
    main()
