"""Metrics of the support recipe: AUROC, precision at a cut, cross-fitted logistic regressions."""

from __future__ import annotations

from typing import Any

import numpy as np

PRECISION_TARGET = 0.85  # the cut: the lowest with this precision on the out-of-fold sentence pairs


def auroc(scores: np.ndarray, positive: np.ndarray) -> float | None:
    """Area under the ROC curve (ties averaged); None when a class is missing."""
    from scipy.stats import rankdata

    s, y = np.asarray(scores, float), np.asarray(positive, bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if not n_pos or not n_neg:
        return None
    ranks = rankdata(s)
    return round(float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)), 4)


def prec_rec(scores: np.ndarray, positive: np.ndarray, cut: float) -> dict[str, Any]:
    """Precision and recall of score >= cut, with the counts."""
    pred = np.asarray(scores) >= cut
    y = np.asarray(positive, bool)
    tp = int((pred & y).sum())
    return {"precision": round(tp / pred.sum(), 4) if pred.any() else None,
            "recall": round(tp / y.sum(), 4) if y.any() else None, "flagged": int(pred.sum()),
            "positives": int(y.sum()), "n": int(len(y))}


def cut_for(scores: np.ndarray, positive: np.ndarray, target: float = PRECISION_TARGET) -> float:
    """The lowest cut whose precision is at least target (over cuts at observed scores)."""
    order = np.argsort(-scores, kind="stable")
    tp = np.cumsum(positive[order])
    prec = tp / np.arange(1, len(order) + 1)
    ok = np.nonzero(prec >= target)[0]
    return float(scores[order][ok[-1]]) if len(ok) else float(scores.max() + 1)


def fit_lr(x: np.ndarray, y: np.ndarray, c: float = 1.0) -> dict[str, Any]:
    """Standardised L2 logistic regression; its parameters as plain lists."""
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(0), x.std(0)
    scale[scale == 0] = 1.0
    lr = LogisticRegression(C=c, max_iter=1000).fit((x - mean) / scale, y.astype(int))
    return {"mean": mean.tolist(), "scale": scale.tolist(), "coef": lr.coef_[0].tolist(),
            "intercept": float(lr.intercept_[0])}


def apply_lr(m: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """Logits of a fitted logistic regression."""
    return ((x - np.array(m["mean"])) / np.array(m["scale"])) @ np.array(m["coef"]) + m["intercept"]


def claim_stack_figures(t: dict[str, Any], s: np.ndarray, mask: np.ndarray) -> dict[str, Any]:
    """Claim-level AUROCs of stacked scores for the rows in mask."""
    out = {}
    for ds, pos, part in (("wice", "supported", "partially_supported"), ("scifact", "SUPPORT", "CONTRADICT")):
        m = mask & (t["ds"] == ds)
        lab = t["label"][m]
        two = (lab == pos) | (lab == part)
        other = "auroc_supported_vs_" + ("partial" if ds == "wice" else "contradict")
        out[ds] = {"n": int(m.sum()), "auroc_supported_vs_rest": auroc(s[m], lab == pos),
                   other: auroc(s[m][two], lab[two] == pos)}
    return out


def sentence_stack_figures(t: dict[str, Any], s: np.ndarray, mask: np.ndarray) -> dict[str, Any]:
    """Sentence-setting AUROCs of stacked scores for the rows in mask."""
    y, cat = t["y"][mask], t["cat"][mask]
    sm = s[mask]
    out = {"n": int(mask.sum()), "auroc": auroc(sm, y)}
    for ds in ("scifact", "wice"):
        m = t["ds"][mask] == ds
        out[f"auroc_{ds}"] = auroc(sm[m], y[m])
    for name, pos, neg in (("sf_support_vs_contradict", "sf_support_rationale", "sf_contradict_rationale"),
                           ("wice_supported_vs_partial", "wice_supported_oracle", "wice_partially_supported_oracle")):
        m = (cat == pos) | (cat == neg)
        out[name] = auroc(sm[m], cat[m] == pos)
    return out


def target_table(s: np.ndarray, y: np.ndarray, fold: np.ndarray) -> dict[str, Any]:
    """Cross-fitted precision and recall for several precision targets of the cut."""
    out = {}
    for target in (0.6, 0.7, 0.8, 0.85, 0.9):
        pred = np.zeros(len(s), bool)
        for f in np.unique(fold):
            pred[fold == f] = s[fold == f] >= cut_for(s[fold != f], y[fold != f], target)
        out[str(target)] = prec_rec(pred.astype(float), y, 0.5)
    return out


def cut_report(s: np.ndarray, y: np.ndarray, fold: np.ndarray, ds: np.ndarray) -> dict[str, Any]:
    """Precision at a cut chosen on the other folds (cross-fitted), per fold and per data set."""
    pred = np.zeros(len(s), bool)
    per_fold = {}
    for f in np.unique(fold):
        cut = cut_for(s[fold != f], y[fold != f])
        pred[fold == f] = s[fold == f] >= cut
        per_fold[str(f)] = {"cut_logit": round(cut, 3), **prec_rec(s[fold == f], y[fold == f], cut)}
    out = {"per_fold": per_fold, "cross_fitted": prec_rec(pred.astype(float), y, 0.5),
           "targets": target_table(s, y, fold)}
    for d in ("scifact", "wice"):
        out[f"cross_fitted_{d}"] = prec_rec(pred[ds == d].astype(float), y[ds == d], 0.5)
    return out


def figures_of(t: dict[str, Any], setting: str, s: np.ndarray, tune_fold: int) -> dict[str, Any]:
    """Pooled, clean-fold and per-fold figures of some scores (plus the cut in the sentence setting)."""
    figs = claim_stack_figures if setting == "claim" else sentence_stack_figures
    out = {"pooled": figs(t, s, np.ones(len(s), bool)), "clean_folds": figs(t, s, t["fold"] != tune_fold),
           "per_fold": {str(f): figs(t, s, t["fold"] == f) for f in np.unique(t["fold"])}}
    if setting == "sentence":
        out["cut"] = cut_report(s, t["y"].astype(bool), t["fold"], t["ds"])
        cut = cut_for(s, t["y"].astype(bool))
        cats = {}
        for c in np.unique(t["cat"]):
            m = t["cat"] == c
            cats[str(c)] = {"n": int(m.sum()), "called_supported": round(float((s[m] >= cut).mean()), 4)}
        out["categories_at_pooled_cut"] = cats
    return out
