"""The support head's cross-validated report: figures per data set and per fold -> WORK/cv.json.

    SUPPORT_WORK=... python head_report.py [--epochs 6]   # after train_support.py cv

From the saved out-of-fold predictions of `train_support.py cv`: feature tables for the claim level
(records) and the sentence setting (items), each stacking variant's cross-fitted figures, the variant
of each setting chosen on the tuning fold (train_support.TUNE_FOLD) only, the hard rules kept there,
the LRs fitted on all out-of-fold rows (in-sample cut, so fitted), and today's check on the same
rows when WORK/baseline.json exists.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import train_support as ts  # noqa: E402
from support_data import HEADLINE, assign_folds, load_records, sentence_items  # noqa: E402
from support_metrics import (  # noqa: E402
    apply_lr,
    auroc,
    claim_stack_figures,
    cross_fit,
    cut_for,
    cut_report,
    fit_lr,
    prec_rec,
    sentence_stack_figures,
)
from support_runtime import CLAIM_FEATURES, LEXICAL, SENTENCE_FEATURES  # noqa: E402


def stack_row(claim: str, units: list[str], head: dict[str, float]) -> dict[str, float]:
    """Every stacking feature of one (claim, source sentences) pair."""
    from support_runtime import dense, lexical

    st = ts.states()
    return head | lexical(claim, units) | dense(st[claim], [st[u] for u in units])


def stack_tables(epoch: int) -> dict[str, Any]:
    """Feature tables for the claim level (records) and the sentence setting (items), with folds."""
    recs = load_records()
    rows, items = ts.merged(epoch)
    ri = sorted(rows)
    claim = [stack_row(recs[i].claim, recs[i].sentences, ts.record_head(rows[i])) for i in ri]
    head = [it for it in items if it["cat"] in HEADLINE]
    sent = [stack_row(it["claim"], it["source"], {"whole": it["s"], "whole_rel": it["r"]}) for it in head]
    return {"claim": {"x": np.array([[f[k] for k in CLAIM_FEATURES] for f in claim]), "features": CLAIM_FEATURES,
                      "y": np.array([recs[i].positive for i in ri]), "fold": np.array([rows[i]["fold"] for i in ri]),
                      "ds": np.array([recs[i].ds for i in ri]), "label": np.array([recs[i].label for i in ri]),
                      "index": np.array(ri)},
            "sentence": {"x": np.array([[f[k] for k in SENTENCE_FEATURES] for f in sent]),
                         "features": SENTENCE_FEATURES, "y": np.array([it["y"] for it in head]),
                         "fold": np.array([it["fold"] for it in head]), "ds": np.array([it["ds"] for it in head]),
                         "cat": np.array([it["cat"] for it in head]), "claim": [it["claim"] for it in head],
                         "source": [it["source"] for it in head]}}


VARIANTS = ("raw", "head", "lexical", "all")
RULE_SHIFT = 20.0  # a hard rule puts a flagged pair under every unflagged one
RAW = {"claim": "whole", "sentence": "whole"}


def variant_features(features: tuple[str, ...], setting: str, variant: str) -> list[str]:
    """The features of a variant: the head's raw logit, the head's outputs, the lexical/dense ones, all."""
    if variant == "raw":
        return [RAW[setting]]
    return [f for f in features if variant == "all" or (f in LEXICAL) == (variant == "lexical")]


def variant_scores(t: dict[str, Any], setting: str, variant: str) -> np.ndarray:
    """Out-of-fold scores of a variant: the raw head logit, or a cross-fitted LR's logit."""
    cols = [t["features"].index(f) for f in variant_features(t["features"], setting, variant)]
    return t["x"][:, cols[0]] if variant == "raw" else cross_fit(t["x"][:, cols], t["y"], t["fold"])


def figures_of(t: dict[str, Any], setting: str, s: np.ndarray) -> dict[str, Any]:
    """Pooled, clean-fold and per-fold figures of some scores (plus the cut in the sentence setting)."""
    figs = claim_stack_figures if setting == "claim" else sentence_stack_figures
    out = {"pooled": figs(t, s, np.ones(len(s), bool)), "clean_folds": figs(t, s, t["fold"] != ts.TUNE_FOLD),
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


def tune_value(t: dict[str, Any], setting: str, s: np.ndarray) -> float:
    """The tuning fold's figure: WiCE supported-vs-rest (claim level) or the sentence AUROC."""
    m = t["fold"] == ts.TUNE_FOLD
    if setting == "claim":
        m &= t["ds"] == "wice"
    return auroc(s[m], t["y"][m]) or 0.0


def evaluate(epoch: int) -> dict[str, Any]:
    """Every figure from the saved out-of-fold predictions; the variant of each setting chosen on the tuning fold."""
    tab = stack_tables(epoch)
    report: dict[str, Any] = {"tune_fold": ts.TUNE_FOLD, "epoch": epoch, "tuning": {}, "chosen": {}}
    scores: dict[str, dict[str, np.ndarray]] = {}
    for setting, t in tab.items():
        scores[setting] = {v: variant_scores(t, setting, v) for v in VARIANTS}
        report["tuning"][setting] = {v: tune_value(t, setting, s) for v, s in scores[setting].items()}
        report["chosen"][setting] = max(VARIANTS, key=lambda v: report["tuning"][setting][v])
        report[setting] = {v: figures_of(t, setting, s) for v, s in scores[setting].items()}
    report["rules"] = {}
    for setting, t in tab.items():
        s = scores[setting][report["chosen"][setting]]
        for rule in (("missing_numbers",), ("missing_names",), ("missing_numbers", "missing_names")):
            hit = (t["x"][:, [t["features"].index(r) for r in rule]] > 0).any(axis=1)
            report["rules"][f"{setting}/{'+'.join(rule)}"] = figures_of(t, setting, np.where(hit, s - RULE_SHIFT, s))
    report["chosen"]["rules"] = choose_rules(report)
    report["ship"] = ship(tab, report["chosen"])
    report["baseline"] = baseline_figures()
    contradiction_examples(tab, scores["sentence"][report["chosen"]["sentence"]], report)
    return report


HARD_RULES = ("missing_numbers", "missing_names")


def choose_rules(report: dict[str, Any]) -> dict[str, list[str]]:
    """Hard rules per setting, kept when they help on the tuning fold: the claim level's AUROC, or
    the sentence setting's recall at the cross-fitted cut without losing precision."""
    key = "+".join(HARD_RULES)
    f = str(ts.TUNE_FOLD)
    claim_with = report["rules"][f"claim/{key}"]["per_fold"][f]["wice"]["auroc_supported_vs_rest"]
    claim_without = report["claim"][report["chosen"]["claim"]]["per_fold"][f]["wice"]["auroc_supported_vs_rest"]
    sent_with = report["rules"][f"sentence/{key}"]["cut"]["per_fold"][f]
    sent_without = report["sentence"][report["chosen"]["sentence"]]["cut"]["per_fold"][f]
    sent_ok = sent_with["recall"] > sent_without["recall"] and sent_with["precision"] >= sent_without["precision"]
    return {"claim": list(HARD_RULES) if claim_with > claim_without else [],
            "sentence": list(HARD_RULES) if sent_ok else []}


def ship(tab: dict[str, Any], chosen: dict[str, Any]) -> dict[str, Any]:
    """Each setting's LR fitted on all out-of-fold rows, and its cut (chosen on them, so fitted),
    with the setting's hard rules applied before the cut is chosen."""
    out: dict[str, Any] = {}
    for setting, t in tab.items():
        names = variant_features(t["features"], setting, chosen[setting])
        x = t["x"][:, [t["features"].index(f) for f in names]]
        lr = fit_lr(x, t["y"]) | {"features": names, "hard_rules": chosen["rules"][setting]}
        logit = apply_lr(lr, x)
        if lr["hard_rules"]:
            hit = (t["x"][:, [t["features"].index(r) for r in lr["hard_rules"]]] > 0).any(axis=1)
            logit = np.where(hit, logit - RULE_SHIFT, logit)
        cut = cut_for(logit, t["y"].astype(bool))
        out[setting] = lr | {"cut_logit": round(cut, 4), "cut": round(1 / (1 + math.exp(-cut)), 4),
                             "at_cut_in_sample": prec_rec(logit, t["y"].astype(bool), cut)}
    return out


def baseline_figures() -> dict[str, Any] | None:
    """Today's check (work/baseline.json from bench_baseline.py) on the same records and sentence pairs."""
    path = ts.WORK / "baseline.json"
    if not path.is_file():
        return None
    base = json.loads(path.read_text())
    recs = load_records()
    fold_of = assign_folds(recs, ts.FOLDS)
    t = {"ds": np.array([r.ds for r in recs]), "label": np.array([r.label for r in recs]),
         "fold": np.array([fold_of[r.group] for r in recs])}
    s = np.array(base["records"])
    per_fold = {str(f): claim_stack_figures(t, s, t["fold"] == f) for f in range(ts.FOLDS)}
    out: dict[str, Any] = {"claim": {"pooled": claim_stack_figures(t, s, np.ones(len(s), bool)), "per_fold": per_fold}}
    items = [it for r in recs for it in sentence_items(r)]
    keep = [i for i, it in enumerate(items) if it["cat"] in HEADLINE]
    items_t = {"y": np.array([items[i]["y"] for i in keep]), "ds": np.array([items[i]["ds"] for i in keep]),
          "cat": np.array([items[i]["cat"] for i in keep]),
          "fold": np.array([fold_of[items[i]["group"]] for i in keep])}
    ss = np.array([base["items"][i]["score"] for i in keep])
    out["sentence"] = {"pooled": sentence_stack_figures(items_t, ss, np.ones(len(ss), bool)),
                       "at_its_cut": prec_rec(ss, items_t["y"].astype(bool), base["cut"]), "cut": base["cut"]}
    for d in ("scifact", "wice"):
        m = items_t["ds"] == d
        out["sentence"][f"at_its_cut_{d}"] = prec_rec(ss[m], items_t["y"][m].astype(bool), base["cut"])
    cats = {}
    for c in np.unique(items_t["cat"]):
        m = items_t["cat"] == c
        cats[str(c)] = {"n": int(m.sum()), "called_supported": round(float((ss[m] >= base["cut"]).mean()), 4)}
    out["sentence"]["categories"] = cats
    out["ms_per_item"], out["ms_per_record"] = base["ms_per_item"], base["ms_per_record"]
    return out


def contradiction_examples(tab: dict[str, Any], s: np.ndarray, report: dict[str, Any]) -> None:
    """SciFact contradictions that today's check calls supported and the new one (out of fold) does not."""
    path = ts.WORK / "baseline.json"
    if not path.is_file():
        return
    base = json.loads(path.read_text())
    items = [it for r in load_records() for it in sentence_items(r)]
    old = {(it["claim"], it["cat"], tuple(it["source"])): b["score"]
           for it, b in zip(items, base["items"], strict=True)}
    t = tab["sentence"]
    cut = cut_for(s, t["y"].astype(bool))
    found, n_old = [], 0
    for i, cat in enumerate(t["cat"]):
        key = (t["claim"][i], str(cat), tuple(t["source"][i]))
        if cat != "sf_contradict_rationale" or old[key] < base["cut"]:
            continue
        n_old += 1
        if s[i] < cut:
            found.append({"claim": t["claim"][i], "source": t["source"][i], "old_score": round(old[key], 4),
                          "old_cut": base["cut"], "new_oof_logit": round(float(s[i]), 3),
                          "new_cut_logit": round(cut, 3)})
    report["contradictions_old_calls_supported"] = n_old
    report["contradictions_fixed"] = len(found)
    report["contradiction_examples"] = found[:20]


def main() -> int:
    """Command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=ts.EPOCHS, help="which saved epoch's predictions")
    args = p.parse_args()
    report = evaluate(args.epochs)
    (ts.WORK / "cv.json").write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    print(json.dumps(report["chosen"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
