"""The support check's general-text IDF (support_idf.json) and its fallback models (support_model.json).

    python -m training.support_head idf       # document frequencies over SciFact abstracts + the news pages
    python -m training.support_head lexical   # the "dense" and "lexical" LRs on WiCE dev (grouped CV)

support_model.json's "lexical" model scores every pair when the check runs without an embedder; its
"dense" model is the same over the dense features (kept for callers that pass their own model).
Each is an L2 logistic regression whose strength is chosen by 5-fold cross-validation grouped by
claim, refitted on all of dev; its cut is the best F1 of the out-of-fold scores after the rule
(support.adjust), so the shipped cut fits the scores the checker really returns.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from training.support_head.data import DATA, WICE, read_jsonl
from training.support_head.metrics import auroc, prec_rec

L2_GRID = (0.1, 1.0, 10.0, 30.0, 100.0, 300.0)


def build_idf(min_df: int = 5, limit: int = 0) -> dict[str, Any]:
    """General document frequencies of BM25 terms: SciFact abstracts and the news pages."""
    from nonseq.verify.support import SupportChecker

    docs = []
    for row in read_jsonl(DATA / "scifact" / "corpus.jsonl")[:limit or None]:
        docs.append(f"{row.get('title', '')} {row.get('text', '')}")
    pages = json.loads((DATA / "web" / "scrapinghub-aeb" / "ground-truth.json").read_text(encoding="utf-8"))
    docs += [v.get("articleBody", "") for v in list(pages.values())[:limit or None] if isinstance(v, dict)]
    tokenize = SupportChecker(dense=False).tokenize
    df: dict[str, int] = {}
    for doc in docs:
        for term in set(tokenize(doc)):
            df[term] = df.get(term, 0) + 1
    kept = {t: c for t, c in sorted(df.items()) if c >= min_df}
    return {"source": "SciFact corpus + scrapinghub-aeb news articles; terms with df >= "
            f"{min_df} (rarer ones count as unseen)", "documents": len(docs), "df": kept}


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
    np.random.default_rng(0).shuffle(ids)
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


def best_f1_cut(scores: np.ndarray, positive: np.ndarray) -> float:
    """The cut with the best F1 for the positive class."""
    best, cut = -1.0, 0.5
    for c in np.unique(scores):
        r = prec_rec(scores, positive, c)
        p, rec = r["precision"] or 0.0, r["recall"] or 0.0
        f1 = 2 * p * rec / (p + rec) if p + rec else 0.0
        if f1 > best:
            best, cut = f1, float(c)
    return cut


def figures(scores: np.ndarray, labels: list[str], cut: float) -> dict[str, Any]:
    """AUROCs and the cut's precision/recall for a set of scores."""
    sup = np.array([lab == "supported" for lab in labels])
    part = np.array([lab == "partially_supported" for lab in labels])
    r = prec_rec(scores, sup, cut)
    return {"auroc_supported_vs_rest": auroc(scores, sup),
            "auroc_supported_vs_partial": auroc(scores[sup | part], sup[sup | part]),
            "cut": cut, "precision": r["precision"], "recall": r["recall"]}


def fit(x: np.ndarray, labels: list[str], groups: list[str], features: tuple[str, ...],
        rows: list[dict[str, float]]) -> dict[str, Any]:
    """Choose L2 by grouped CV AUROC (supported vs rest), refit on all rows, pick the cut after the rule."""
    from nonseq.verify.support import adjust

    y = np.array([lab == "supported" for lab in labels], dtype=float)
    fold = folds(groups)
    cv = {l2: auroc(out_of_fold(x, y, fold, l2), y.astype(bool)) or 0.0 for l2 in L2_GRID}
    l2 = max(cv, key=lambda k: cv[k])
    oof = out_of_fold(x, y, fold, l2)
    cut = best_f1_cut(np.array([adjust(s, f, 0.0) for s, f in zip(oof, rows, strict=True)]), y.astype(bool))
    final = np.array([adjust(s, f, cut) for s, f in zip(oof, rows, strict=True)])
    mean, scale = standardise(x)
    coef, b = fit_logistic((x - mean) / scale, y, l2)
    return {"mean": [round(float(v), 6) for v in mean], "scale": [round(float(v), 6) for v in scale],
            "coef": [round(float(v), 6) for v in coef], "intercept": round(b, 6), "cut": round(cut, 4),
            "features": list(features), "cv": figures(final, labels, round(cut, 4))}


def support_models(limit: int = 0) -> dict[str, Any]:
    """The "dense" and "lexical" models fitted on WiCE dev (what support_model.json holds)."""
    from nonseq.verify.support import FEATURES, LEXICAL_FEATURES, SupportChecker

    rows = read_jsonl(WICE)[:limit or None]
    labels = [r["label"] for r in rows]
    groups = [r.get("meta", {}).get("id", r["claim"]) for r in rows]
    pairs = [(r["claim"], r["evidence"]) for r in rows]
    out = {}
    for kind, feats, checker in (("dense", FEATURES, SupportChecker()), ("lexical", LEXICAL_FEATURES,
                                                                          SupportChecker(dense=False))):
        res = checker.check_many(pairs, setting="claim")
        x = np.array([[r.features[f] for f in feats] for r in res])
        out[kind] = fit(x, labels, groups, feats, [r.features for r in res])
    return out
