"""Support-check benchmark on WiCE: does a cited web page support a Wikipedia claim?

    python bench/support.py [--data PATH] [--limit N] [--json]
    python bench/support.py --fit   # refit nonseq/data/support_model.json on dev (grouped CV)

Scores every claim against its evidence sentences with nonseq.verify.support.SupportChecker (bundled
MiniLM embedder, BM25 tokenizer) and prints the area under the ROC curve for "supported vs the
rest" and "supported vs partially supported", the shipped cut with its precision and recall, and
seconds per claim. --fit chooses the L2 strength by 5-fold cross-validation grouped by claim,
refits on all of dev and writes the coefficients and the cut (best F1 on the out-of-fold scores).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from nonseq.verify.support import (  # noqa: E402
    FEATURES,
    IDF_PATH,
    LEXICAL_FEATURES,
    MODEL_PATH,
    Model,
    SupportChecker,
    adjust,
)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "wice" / "dev.jsonl"
PUBLISHED = {
    "source": "Kamoi et al. 2023, WiCE, test split, claim level",
    "auroc_supported_vs_rest": {"gpt-4": 0.802, "t5-3b-anli-wice": 0.947, "gpt-3.5": 0.569},
    "auroc_supported_vs_partial": {"gpt-4": 0.789, "t5-3b-anli-wice": 0.943},
}
L2_GRID = (0.1, 1.0, 10.0, 30.0, 100.0, 300.0)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="WiCE jsonl file")
    p.add_argument("--limit", type=int, default=0, help="Only the first N claims")
    p.add_argument("--json", action="store_true", help="Print one JSON object")
    p.add_argument("--fit", action="store_true", help="Refit and write the shipped model")
    p.add_argument("--build-idf", action="store_true", help="Rebuild the shipped general IDF")
    return p.parse_args(argv)


def load(path: Path, limit: int = 0) -> list[dict[str, Any]]:
    """The records of a WiCE jsonl file."""
    if not path.is_file():
        raise SystemExit(f"no WiCE data at {path}")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return rows[:limit] if limit else rows


def auroc(scores: Sequence[float], positive: Sequence[bool]) -> float:
    """Area under the ROC curve (Mann-Whitney U with tied ranks averaged)."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if not n_pos or not n_neg:
        return float("nan")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def precision_recall(scores: np.ndarray, positive: np.ndarray, cut: float) -> tuple[float, float]:
    """Precision and recall of `score >= cut` for the positive class."""
    pred = scores >= cut
    tp = int((pred & positive).sum())
    return (tp / int(pred.sum()) if pred.any() else 0.0,
            tp / int(positive.sum()) if positive.any() else 0.0)


def best_f1_cut(scores: np.ndarray, positive: np.ndarray) -> float:
    """The cut with the best F1 for the positive class."""
    best, cut = -1.0, 0.5
    for c in np.unique(scores):
        p, r = precision_recall(scores, positive, c)
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        if f1 > best:
            best, cut = f1, float(c)
    return cut


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float]:
    """L2-regularised logistic regression by Newton's method (intercept not penalised)."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    reg = np.full(xb.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + reg * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(reg) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w[:-1], float(w[-1])


def standardise(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means and scales (a constant column gets scale 1)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    return mean, scale


def folds(groups: Sequence[str], k: int = 5) -> np.ndarray:
    """A fold number per row; rows of one claim always share a fold."""
    ids = sorted(set(groups))
    rng = np.random.default_rng(0)
    rng.shuffle(ids)
    fold_of = {g: i % k for i, g in enumerate(ids)}
    return np.array([fold_of[g] for g in groups])


def out_of_fold(x: np.ndarray, y: np.ndarray, fold: np.ndarray, l2: float) -> np.ndarray:
    """Out-of-fold scores of a logistic regression."""
    out = np.zeros(len(y))
    for f in np.unique(fold):
        tr, te = fold != f, fold == f
        mean, scale = standardise(x[tr])
        coef, b = fit_logistic((x[tr] - mean) / scale, y[tr], l2)
        out[te] = 1 / (1 + np.exp(-(((x[te] - mean) / scale) @ coef + b)))
    return out


def fit(x: np.ndarray, labels: list[str], groups: list[str], features: tuple[str, ...],
        rows: list[dict[str, float]]) -> tuple[Model, dict[str, Any]]:
    """Choose L2 by grouped CV AUROC (supported vs rest), refit on all rows, pick the cut.

    The cut is the best F1 of the out-of-fold scores after support.adjust (FActScore's rule,
    names, negation), so the shipped cut fits the scores the checker really returns.
    """
    y = np.array([lab == "supported" for lab in labels], dtype=float)
    fold = folds(groups)
    cv = {l2: auroc(out_of_fold(x, y, fold, l2), y.astype(bool)) for l2 in L2_GRID}
    l2 = max(cv, key=lambda k: cv[k])
    oof = out_of_fold(x, y, fold, l2)
    cut = best_f1_cut(np.array([adjust(s, f, 0.0) for s, f in zip(oof, rows, strict=True)]),
                      y.astype(bool))
    final = np.array([adjust(s, f, cut) for s, f in zip(oof, rows, strict=True)])
    mean, scale = standardise(x)
    coef, b = fit_logistic((x - mean) / scale, y, l2)
    model = Model(mean=[round(float(v), 6) for v in mean],
                  scale=[round(float(v), 6) for v in scale],
                  coef=[round(float(v), 6) for v in coef], intercept=round(b, 6),
                  cut=round(cut, 4), features=features)
    return model, {"l2": l2, "cv_auroc_model_only": {str(k): round(v, 4) for k, v in cv.items()},
                   "cv": figures(final, labels, round(cut, 4))}


def build_idf(min_df: int = 5) -> dict[str, Any]:
    """General document frequencies of BM25 terms: SciFact abstracts and the news pages."""
    data = REPO.parent / "shared" / "data"
    docs = []
    with (data / "scifact" / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            docs.append(f"{row.get('title', '')} {row.get('text', '')}")
    pages = json.loads((data / "web" / "scrapinghub-aeb" / "ground-truth.json").read_text())
    docs += [v.get("articleBody", "") for v in pages.values() if isinstance(v, dict)]
    tokenize = SupportChecker(dense=False).tokenize
    df: dict[str, int] = {}
    for doc in docs:
        for term in set(tokenize(doc)):
            df[term] = df.get(term, 0) + 1
    kept = {t: c for t, c in sorted(df.items()) if c >= min_df}
    return {"source": "SciFact corpus + scrapinghub-aeb news articles; terms with df >= "
            f"{min_df} (rarer ones count as unseen)", "documents": len(docs), "df": kept}


def refit(rows: list[dict[str, Any]], results: list[Any]) -> tuple[Model, dict[str, Any]]:
    """Fit the dense model and the lexical one (no embedder), write both, return the dense one."""
    labels = [r["label"] for r in rows]
    groups = [r.get("meta", {}).get("id", r["claim"]) for r in rows]
    lexical = SupportChecker(dense=False).check_many([(r["claim"], r["evidence"]) for r in rows])
    models, info = {}, {}
    for kind, feats, res in (("dense", FEATURES, results), ("lexical", LEXICAL_FEATURES, lexical)):
        x = np.array([[r.features[f] for f in feats] for r in res])
        models[kind], info[kind] = fit(x, labels, groups, feats, [r.features for r in res])
        info[kind]["coef"] = dict(zip(feats, models[kind].coef, strict=True))
    shipped = {k: m.__dict__ | {"cv": info[k]["cv"]} for k, m in models.items()}
    MODEL_PATH.write_text(json.dumps(shipped, indent=1) + "\n", encoding="utf-8")
    return models["dense"], info


def figures(scores: np.ndarray, labels: list[str], cut: float) -> dict[str, Any]:
    """AUROCs and the cut's precision/recall for a set of scores."""
    sup = np.array([lab == "supported" for lab in labels])
    part = np.array([lab == "partially_supported" for lab in labels])
    p, r = precision_recall(scores, sup, cut)
    rest, partial = auroc(scores, sup), auroc(scores[sup | part], sup[sup | part])
    return {  # None when a sample lacks one of the classes
        "auroc_supported_vs_rest": None if np.isnan(rest) else round(rest, 4),
        "auroc_supported_vs_partial": None if np.isnan(partial) else round(partial, 4),
        "cut": cut, "precision": round(p, 4), "recall": round(r, 4),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark (or refit) and print the figures."""
    args = parse_args(argv)
    if args.build_idf:
        IDF_PATH.write_text(json.dumps(build_idf(), separators=(",", ":")) + "\n", encoding="utf-8")
        return 0
    rows = load(args.data, args.limit)
    checker = SupportChecker()
    checker.check("warm up the models.", ["Warm up the models."])
    started, cpu = time.perf_counter(), time.process_time()
    pairs = [(r["claim"], r["evidence"]) for r in rows]
    results = checker.check_many(pairs)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    labels = [r["label"] for r in rows]
    out: dict[str, Any] = {"data": str(args.data), "claims": len(rows)}
    if args.fit:
        model, out["fit"] = refit(rows, results)
        checker = SupportChecker(model=model, embed=checker.embed, tokenize=checker.tokenize)
        results = checker.check_many(pairs)
    scores = np.array([res.score for res in results])
    cut = checker.cut
    out |= figures(scores, labels, cut)
    out["seconds_per_claim"] = round(seconds / max(1, len(rows)), 4)
    out["seconds_total"] = round(seconds, 1)
    out["cpu_seconds_total"] = round(cpu, 1)  # all threads: shows the work when the machine is busy
    if MODEL_PATH.is_file():  # the honest estimate: out-of-fold scores on dev at fit time
        out["cross_validated_on_dev"] = json.loads(MODEL_PATH.read_text())["dense"].get("cv")
    out["published"] = PUBLISHED
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:28} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
