"""Choose and fit what the support check ships: today's features, the head, or a stack of both.

    python stack_support.py today     # today's features (nonseq.verify.support) on every record and item
    python stack_support.py select    # grouped OOF figures of every candidate -> WORK/stack.json
    python stack_support.py ship      # fit the chosen LRs on all OOF rows -> nonseq/data/support_head.json
    python stack_support.py claim     # the claim level alone (no head needed): token recall judged, refit, shipped
    python stack_support.py sentence  # the sentence setting's token recall judged; shipped only if it passed
    python stack_support.py ensemble  # the sentence setting over the head's seed ensemble: judged, shipped if passed
    python stack_support.py snli      # the head trained with SNLI pairs, judged (nothing shipped)
    python stack_support.py ce        # the SNLI-tuned cross-encoder as a column, judged (nothing shipped)

Needs the out-of-fold head predictions of `train_support.py cv` (WORK/pred_fold*_e6.json) and the
final head (`train_support.py final-train` + `final`). Folds: train_support's (5, grouped, seed 0).
Selection rule, fixed before any candidate was scored: the claim level (a source of three or more
sentences) ships the candidate with the highest pooled out-of-fold WiCE supported-vs-rest AUROC; the
sentence setting (one or two source sentences) the one with the highest pooled out-of-fold AUROC.
Every figure is cross-fitted: each fold is scored by an LR (and a cut) fitted on the other folds.

The claim level's token recall (nonseq.verify.alignment.TokenEncoder.recall) came later, with its
own protocol, fixed before any figure was read: designed on folds 0-2 (cross-fitted among
themselves: the recall of the claim's word pieces was the best of five token-state features there),
judged once on folds 3-4 (each scored by an LR fitted on the other four), shipped only if WiCE
supported-vs-rest rose there by >= 0.005 and supported-vs-partial fell by no more than 0.005.
`claim` reproduces that judgement and ships the claim level; the sentence setting is left as it is.

The sentence setting's token recall (the same feature over the one or two source sentences) was
judged after the claim level's, with its protocol fixed before any figure was read: the head's
out-of-fold predictions recomputed (`train_support.py states` and `cv`); one candidate, the shipped head+today plus
tok_recall; folds 0-2 reported only; judged once on folds 3-4 (each scored by an LR fitted on the
other four); shipped only if there the sentence AUROC rose by >= 0.005, the WiCE sentence AUROC
fell by no more than 0.005 and precision at the cross-fitted cut did not fall. `sentence` reproduces
that judgement (it failed) and would ship the sentence setting alone only if it passed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
import head_report as hr  # noqa: E402
import train_support as ts  # noqa: E402
from support_data import HEADLINE, assign_folds, load_records, sentence_items  # noqa: E402
from support_metrics import apply_lr, auroc, claim_stack_figures, cut_for, fit_lr, prec_rec, sentence_stack_figures  # noqa: E402

TODAY = ("cos_top2", "part_cos_min", "cov_pair", "part_mean", "missing_numbers", "missing_names",
         "missing_mass", "missing_max")
TODAY_X = (*TODAY, "negation")
HEAD_C = ("whole", "max_single", "max_set", "max_rel")
HEAD_S = ("whole", "whole_rel")
TOKEN = ("tok_recall",)  # the claim level's token recall (a later candidate: see the module docstring)
TUNE_FOLDS, TEST_FOLDS = (0, 1, 2), (3, 4)  # the token recall's design and judgement folds
RULE = ("missing_numbers", "missing_names", "negation")  # today's rule: such a pair is scaled under the cut
OPPOSITE = ("opposite",)  # a fit-free rule on both settings (opposite_rule.py), named when shipped
EPOCH = 6
ENSEMBLE = 3  # members of the head's seed ensemble (train_support.py --member 0..2)
ENSEMBLE_PROTOCOL = (
    "Fixed before any figure was read: members trained with seeds 13+fold, 113+fold, 213+fold "
    "(same examples, architecture, epochs), logits averaged; candidate head+today over the mean, baseline "
    "head+today over member 0; folds 0-2 reported only; judged once on folds 3-4: shipped only if the "
    "sentence AUROC rises >= 0.005, the WiCE sentence AUROC falls <= 0.005 and precision at the "
    "cross-fitted cut does not fall.")


def today_features() -> None:
    """Today's feature rows for every record and sentence item -> WORK/today_features.json."""
    from nonseq.verify.support import SupportChecker

    recs = load_records()
    items = [it for r in recs for it in sentence_items(r)]
    checker = SupportChecker()
    started = time.perf_counter()
    item_rows = checker.feature_rows([(it["claim"], it["source"]) for it in items])
    rec_rows = checker.feature_rows([(r.claim, r.sentences) for r in recs])
    out = {"items": [{"features": f} for f in item_rows], "records": [{"features": f} for f in rec_rows],
           "seconds": round(time.perf_counter() - started, 1)}
    ts.WORK.mkdir(parents=True, exist_ok=True)
    (ts.WORK / "today_features.json").write_text(json.dumps(out), encoding="utf-8")


def tables(members: int = 1) -> dict[str, dict[str, Any]]:
    """Per setting: head outputs (out of fold; members' mean) and today's features, labels, folds, data sets."""
    recs = load_records()
    rows, items = ts.merged(EPOCH, members)
    today = json.loads((ts.WORK / "today_features.json").read_text())
    all_items = [it for r in recs for it in sentence_items(r)]
    by_key = {(it["claim"], it["cat"], tuple(it["source"])): x["features"]
              for it, x in zip(all_items, today["items"], strict=True)}
    ri = sorted(rows)
    head = [it for it in items if it["cat"] in HEADLINE]
    claim_today = [today["records"][i]["features"] for i in ri]
    sent_today = [by_key[(it["claim"], it["cat"], tuple(it["source"]))] for it in head]
    return {
        "claim": {"head": np.array([[ts.record_head(rows[i])[k] for k in HEAD_C] for i in ri]),
                  **claim_columns([recs[i] for i in ri], claim_today),
                  "fold": np.array([rows[i]["fold"] for i in ri])},
        "sentence": {"head": np.array([[it["s"], it["r"]] for it in head]),
                     "today": np.array([[f[k] for k in TODAY_X] for f in sent_today]),
                     "tok": np.array([[f[k] for k in TOKEN] for f in sent_today]),
                     "y": np.array([it["y"] for it in head]), "fold": np.array([it["fold"] for it in head]),
                     "ds": np.array([it["ds"] for it in head]), "cat": np.array([it["cat"] for it in head])},
    }


def claim_columns(recs: list[Any], feats: list[dict[str, float]]) -> dict[str, np.ndarray]:
    """The claim level's feature columns (today's, the token recall) with labels and data sets."""
    return {"today": np.array([[f[k] for k in TODAY_X] for f in feats]),
            "tok": np.array([[f[k] for k in TOKEN] for f in feats]),
            "y": np.array([r.positive for r in recs]), "ds": np.array([r.ds for r in recs]),
            "label": np.array([r.label for r in recs])}


def claim_table() -> dict[str, Any]:
    """The claim level without the head: every record's columns and its fold (train_support's folds)."""
    recs = load_records()
    today = json.loads((ts.WORK / "today_features.json").read_text())
    fold_of = assign_folds(recs, ts.FOLDS)
    return claim_columns(recs, [r["features"] for r in today["records"]]) | \
        {"fold": np.array([fold_of[r.group] for r in recs])}


def flagged(t: dict[str, Any]) -> np.ndarray:
    """Rows that today's rule scales under the cut (a number or name the source lacks, a lone negation)."""
    return (t["today"][:, [TODAY_X.index(r) for r in RULE]] > 0).any(axis=1)


def columns(t: dict[str, Any], name: str) -> np.ndarray:
    """The feature matrix of a candidate: today's features, the head's outputs, or both."""
    parts = {"today": ("today8",), "today+tok": ("today8", "tok"), "head": ("head",), "head+today": ("head", "today"),
             "head+today+tok": ("head", "today", "tok"), "ens+today": ("ens", "today"),
             "today+tok+ce": ("today8", "tok", "ce"), "head+today+ce": ("head", "today", "ce")}
    table = t | {"today8": t["today"][:, :len(TODAY)]}
    return np.column_stack([table[k] for k in parts[name.removesuffix("+rule")]])


Scorer = Callable[[np.ndarray, np.ndarray], Callable[[np.ndarray], np.ndarray]]


def lr_scorer(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """The shipped stacker: an LR fitted on (x, y), returned as a function giving probabilities."""
    m = fit_lr(x, y)
    return lambda z: probability(m, z)


def probability(m: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """P(supported) of a fitted LR's rows."""
    return 1 / (1 + np.exp(-apply_lr(m, x)))


def fold_figures(t: dict[str, Any], p: np.ndarray, figs: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """A candidate's figures over every row and per fold."""
    return {"pooled": figs(t, p, np.ones(len(p), bool)),
            "per_fold": [figs(t, p, t["fold"] == f) for f in range(ts.FOLDS)]}


def cross_fitted(t: dict[str, Any], name: str, setting: str, scorer: Scorer = lr_scorer,
                 flags: np.ndarray | None = None) -> np.ndarray:
    """Out-of-fold probabilities of a candidate, with today's rule applied as shipped (x cut); `flags`
    (default: today's rule) marks the rows the rule scales."""
    x = columns(t, name)
    fl = flagged(t) if flags is None else flags
    p = np.zeros(len(t["y"]))
    for f in np.unique(t["fold"]):
        tr, te = t["fold"] != f, t["fold"] == f
        prob = scorer(x[tr], t["y"][tr])
        p[te] = prob(x[te])
        if name.endswith("+rule"):
            ptr = prob(x[tr])
            cut = choose_cut(setting, np.where(fl[tr], 0.0, ptr), t["y"][tr].astype(bool))
            p[te] = np.where(fl[te], p[te] * cut, p[te])
    return p


def all_folds(t: dict[str, Any], name: str, setting: str, scorer: Scorer = lr_scorer) -> dict[str, Any]:
    """A candidate judged on every fold (each scored by a model fitted on the other four): pooled, per fold,
    (sentence) precision at the cross-fitted cut, and calibration."""
    p = cross_fitted(t, name, setting, scorer)
    r = fold_figures(t, p, claim_stack_figures if setting == "claim" else sentence_stack_figures)
    if setting == "sentence":
        r["at_cut"] = cross_fitted_cut_report(t, p, "sentence")
    r["calibration"] = {d: calibration(p[t["ds"] == d], t["y"][t["ds"] == d]) for d in ("wice", "scifact")}
    return r


def folds_fallen(old: list[float], new: list[float]) -> int:
    """How many folds the candidate scores lower on than the baseline."""
    return sum(n < o for o, n in zip(old, new, strict=True))


def all_folds_verdict(claim: tuple[dict[str, Any], dict[str, Any]],
                      sentence: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    """The tree stacker's verdict on (baseline, candidate) judged by `all_folds` at both levels: the pooled rules,
    and the candidate lower on at most 2 of 5 folds (claim: WiCE supported vs the rest; sentence: AUROC)."""
    wice = [[f["wice"]["auroc_supported_vs_rest"] for f in r["per_fold"]] for r in claim]
    sent = [[f["auroc"] for f in r["per_fold"]] for r in sentence]
    fallen = {"claim_wice": folds_fallen(*wice), "sentence": folds_fallen(*sent)}
    (co, cn), (so, sn) = claim, sentence
    passed = {"claim": claim_passes(co["pooled"]["wice"], cn["pooled"]["wice"]) and fallen["claim_wice"] <= 2,
              "sentence": sentence_passes(so["pooled"], sn["pooled"], so["at_cut"]["pooled"]["precision"],
                                          sn["at_cut"]["pooled"]["precision"]) and fallen["sentence"] <= 2}
    return {"claim_wice_per_fold": wice, "sentence_per_fold": sent, "folds_fallen": fallen, "passed": passed}


def cross_fitted_cut_report(t: dict[str, Any], p: np.ndarray, setting: str = "claim",
                            mask: np.ndarray | None = None) -> dict[str, Any]:
    """Precision and recall at each fold's cut chosen on the other folds, pooled and per set, over mask.

    The claim setting's cut is the best-F1 (lenient) one; the sentence setting's the precision cut.
    """
    y = t["y"].astype(bool)
    mask = np.ones(len(y), bool) if mask is None else mask
    pred = np.zeros(len(y), bool)
    for f in np.unique(t["fold"]):
        tr, te = t["fold"] != f, t["fold"] == f
        pred[te] = p[te] >= choose_cut(setting, p[tr], y[tr])
    out = {"pooled": prec_rec(pred[mask].astype(float), y[mask], 0.5)}
    for d in ("scifact", "wice"):
        sel = mask & (t["ds"] == d)
        out[d] = prec_rec(pred[sel].astype(float), y[sel], 0.5)
    return out


def claim_passes(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """The claim-level rule: WiCE supported-vs-rest rises >= 0.005, supported-vs-partial falls <= 0.005."""
    return bool(new["auroc_supported_vs_rest"] - old["auroc_supported_vs_rest"] >= 0.005
                and new["auroc_supported_vs_partial"] - old["auroc_supported_vs_partial"] >= -0.005)


def sentence_passes(old: dict[str, Any], new: dict[str, Any], old_precision: float | None,
                    new_precision: float | None) -> bool:
    """The sentence rule: AUROC rises >= 0.005, WiCE AUROC falls <= 0.005, precision at the cut holds."""
    return bool(new["auroc"] - old["auroc"] >= 0.005 and new["auroc_wice"] - old["auroc_wice"] >= -0.005
                and (new_precision or 0) >= (old_precision or 0))


def choose_cut(setting: str, p: np.ndarray, y: np.ndarray) -> float:
    """The cut: precision >= 0.85 in the sentence setting; best F1 (today's rule) at the claim level."""
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


CANDIDATES = ("today", "today+rule", "today+tok+rule", "head", "head+today", "head+today+rule")


def select() -> dict[str, Any]:
    """Every candidate's out-of-fold figures per setting, and the chosen one by the fixed rule."""
    tab = tables()
    report: dict[str, Any] = {"epoch": EPOCH, "candidates": {}, "chosen": {}}
    for setting, t in tab.items():
        t = t | {"x": None}
        res = {}
        for name in CANDIDATES:
            p = cross_fitted(t, name, setting)
            res[name] = hr.figures_of(t, setting, np.log(np.clip(p, 1e-12, 1) / np.clip(1 - p, 1e-12, 1)))
            res[name]["scores_at_05"] = prec_rec(p, t["y"].astype(bool), 0.5)
            if setting == "sentence":
                res[name]["f1_cut_cross_fitted"] = cross_fitted_cut_report(t, p)
        report["candidates"][setting] = res
        key = (lambda r: r["pooled"]["wice"]["auroc_supported_vs_rest"]) if setting == "claim" else \
            (lambda r: r["pooled"]["auroc"])
        report["chosen"][setting] = max(CANDIDATES, key=lambda n, key=key, res=res: key(res[n]))
    (ts.WORK / "stack.json").write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    print(json.dumps(report["chosen"]))
    return report


def feature_names(name: str, setting: str) -> list[str]:
    """The runtime names of a candidate's features (support.py's today features, the head's logits)."""
    head = list(HEAD_S) if setting == "sentence" else list(HEAD_C)
    return {"today": list(TODAY), "today+tok": [*TODAY, *TOKEN], "head": head,
            "head+today": head + list(TODAY_X), "head+today+tok": [*head, *TODAY_X, *TOKEN],
            "ens+today": head + list(TODAY_X)}[name.removesuffix("+rule")]


def ship() -> None:
    """Fit each setting's chosen LR on all out-of-fold rows; write nonseq/data/support_head.json."""
    report = json.loads((ts.WORK / "stack.json").read_text())
    tab = tables()
    prev = json.loads((ts.WORK / "support_head_prev.json").read_text())
    cfg: dict[str, Any] = {"head": "support_head.onnx", "encoder": prev["encoder"],
                           "trained_on": prev["trained_on"], "size_bytes": prev["size_bytes"],
                           "stacked_on": "out-of-fold head logits (train_support.py cv, 5 grouped folds, seed 13+fold)"
                                         " and today's features; see scripts/support/stack_support.py"}
    for setting, t in tab.items():
        cfg[setting] = refit(setting, t, report["chosen"][setting])
    cfg["cut_note"] = "probabilities; claim cut: best F1; sentence cut: precision >= 0.85 (its cut_f1: best F1)"
    cfg["cv"] = {s: cv_summary(report["candidates"][s][report["chosen"][s]], s) for s in tab}
    (ts.OUT / "support_head.json").write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({s: {"candidate": cfg[s]["candidate"], "cut": cfg[s]["cut"]} for s in tab}))


def calibration(p: np.ndarray, y: np.ndarray, bins: int = 10) -> dict[str, float]:
    """Brier score and expected calibration error (equal-width bins) of out-of-fold probabilities."""
    which = np.minimum((p * bins).astype(int), bins - 1)
    ece = sum(abs(p[which == b].mean() - y[which == b].mean()) * (which == b).mean()
              for b in range(bins) if (which == b).any())
    return {"brier": round(float(np.mean((p - y) ** 2)), 4), "ece": round(float(ece), 4)}


def judged(setting: str, t: dict[str, Any], names: tuple[str, str]) -> dict[str, Any]:
    """Both candidates' figures: design folds (among themselves), judgement folds and all folds, out of fold."""
    figs = claim_stack_figures if setting == "claim" else sentence_stack_figures
    out: dict[str, Any] = {}
    tune = {k: v[np.isin(t["fold"], TUNE_FOLDS)] for k, v in t.items()}
    test = np.isin(t["fold"], TEST_FOLDS)
    for name in names:
        p_tune = cross_fitted(tune, name, setting)  # the design folds, among themselves
        p = cross_fitted(t, name, setting)  # every fold, fitted on the other four
        logit = np.log(np.clip(p, 1e-12, 1) / np.clip(1 - p, 1e-12, 1))
        r = {"tune_folds": figs(tune, p_tune, np.ones(len(p_tune), bool)), "test_folds": figs(t, p, test),
             **hr.figures_of(t, setting, logit)}
        r.pop("clean_folds")
        if setting == "sentence":  # precision at the cut (chosen on the other folds) on the judgement folds
            r["test_folds"]["at_cut"] = pooled_at_cut(r["cut"]["per_fold"], TEST_FOLDS)
            r["f1_cut_cross_fitted"] = cross_fitted_cut_report(t, p)
        r["calibration"] = {d: calibration(p[t["ds"] == d], t["y"][t["ds"] == d]) for d in ("wice", "scifact")}
        out[name] = r
    return out


def pooled_at_cut(per_fold: dict[str, Any], folds: tuple[int, ...]) -> dict[str, Any]:
    """Precision and recall at each fold's cross-fitted cut, pooled over some folds."""
    rows = [per_fold[str(f)] for f in folds]
    tp = sum(round((r["precision"] or 0) * r["flagged"]) for r in rows)
    flagged, pos = sum(r["flagged"] for r in rows), sum(r["positives"] for r in rows)
    return {"precision": round(tp / flagged, 4) if flagged else None, "recall": round(tp / pos, 4),
            "flagged": flagged, "positives": pos}


def refit(setting: str, t: dict[str, Any], name: str) -> dict[str, Any]:
    """A setting's LR on all out-of-fold rows, its features, rule and cut (as support.py reads them)."""
    x, y = columns(t, name), t["y"].astype(bool)
    lr = fit_lr(x, t["y"])
    p = probability(lr, x)
    rule = name.endswith("+rule")
    cut = choose_cut(setting, np.where(flagged(t), 0.0, p) if rule else p, y)
    final = np.where(flagged(t), p * cut, p) if rule else p
    out = lr | {"candidate": name, "features": feature_names(name, setting),
                "rule": [*RULE, *OPPOSITE] if rule else list(OPPOSITE), "cut": round(cut, 4),
                "at_cut_in_sample": prec_rec(final, y, cut)}
    if setting == "sentence":  # the lenient cut (best F1, as at the claim level) for callers that ask for it
        out["cut_f1"] = round(choose_cut("claim", p, y), 4)
    return out


def claim_token() -> dict[str, Any]:
    """Judge the token recall at the claim level by its protocol; ship the claim level it chose."""
    t = claim_table()
    report: dict[str, Any] = {"protocol": __doc__.split("\n\n")[-2].strip(),
                              "candidates": judged("claim", t, ("today+rule", "today+tok+rule"))}
    old, new = (report["candidates"][n]["test_folds"]["wice"] for n in ("today+rule", "today+tok+rule"))
    passed = claim_passes(old, new)
    report["chosen"] = "today+tok+rule" if passed else "today+rule"
    return shipped("claim", t, report, "claim_token.json")


def sentence_judgement(t: dict[str, Any], names: tuple[str, str], protocol: str,
                       out: str) -> tuple[dict[str, Any], bool]:
    """Judge a sentence-setting candidate against the baseline by the sentence rule; a failed one is recorded only.

    The rule: on folds 3-4 the sentence AUROC rises >= 0.005, the WiCE sentence AUROC falls <= 0.005
    and precision at the cross-fitted cut does not fall. A failure leaves support_head.json as it is.
    """
    report: dict[str, Any] = {"protocol": protocol, "candidates": judged("sentence", t, names)}
    old, new = (report["candidates"][n]["test_folds"] for n in names)
    passed = sentence_passes(old, new, old["at_cut"]["precision"], new["at_cut"]["precision"])
    report["chosen"] = names[1] if passed else names[0]
    if not passed:
        (ts.WORK / out).write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
        print(json.dumps({n: report["candidates"][n]["test_folds"] for n in names} | {"chosen": names[0]}))
    return report, passed


def sentence_token() -> dict[str, Any]:
    """Judge the token recall in the sentence setting by its protocol; ship the sentence setting if it passed."""
    t = tables()["sentence"]
    report, passed = sentence_judgement(t, ("head+today", "head+today+tok"), __doc__.split("\n\n")[-1].strip(),
                                        "sentence_token.json")
    return shipped("sentence", t, report, "sentence_token.json") if passed else report


def sentence_ensemble(members: int = ENSEMBLE) -> dict[str, Any]:
    """Judge the head's seed ensemble in the sentence setting by its protocol; ship it if it passed."""
    t = tables()["sentence"]
    t["ens"] = tables(members)["sentence"]["head"]  # the same items in the same order, members' mean logits
    report, passed = sentence_judgement(t, ("head+today", "ens+today"), ENSEMBLE_PROTOCOL, "sentence_ensemble.json")
    report["members"] = members
    info = ts.WORK / "head_final_ens.json"
    if not passed:
        return report
    if not info.is_file():
        raise SystemExit(f"the ensemble passed; export it first: train_support.py final-train --member k "
                         f"(k = 0..{members - 1}), then train_support.py final --members {members}")
    out = shipped("sentence", t, report, "sentence_ensemble.json")
    cfg = json.loads((ts.OUT / "support_head.json").read_text())
    ens = json.loads(info.read_text())
    cfg["size_bytes"] = ens.pop("size_bytes")
    cfg["trained_on"] = {"data": cfg["trained_on"]["data"], **ens}
    cfg["stacked_on"] = (f"out-of-fold head logits (train_support.py cv, 5 grouped folds; the mean of {members} "
                         "members, seeds 13+fold+100k) and today's features; see scripts/support/stack_support.py")
    (ts.OUT / "support_head.json").write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
    return out


SNLI_PROTOCOL = (
    "Fixed before any figure was read: the head of member 0 (seed 13+fold, 6 epochs) trained with "
    "20,000 SNLI pairs added to every fold's training part (train_support.py cv --snli) against the same "
    "head without them. 1) Judged on folds 3-4 on raw head logits: adopted for the sentence setting only "
    "if the pooled sentence AUROC rises >= 0.005 and the WiCE sentence AUROC falls <= 0.005 (it fell). "
    "2) Written after 1) was read, whose claim-level figure had moved on folds 3-4, so judged on folds 0-2: "
    "the claim level plus the SNLI head's claim columns (head+today+tok+rule; each fold scored by an LR fitted "
    "on the other four), shipped only if WiCE supported-vs-rest rises >= 0.005 and supported-vs-partial falls "
    "<= 0.005 there.")


def raw_head_figures(rows: dict[int, dict[str, Any]], items: list[dict[str, Any]],
                     folds: tuple[int, ...]) -> dict[str, Any]:
    """The head's own supported logit (no LR) on some folds: the sentence items and WiCE's whole chunks."""
    recs = load_records()
    it = [i for i in items if i["fold"] in folds]
    s, y = np.array([i["s"] for i in it]), np.array([i["y"] for i in it])
    ds, cat = np.array([i["ds"] for i in it]), np.array([i["cat"] for i in it])
    near = np.isin(cat, ("sf_support_rationale", "sf_contradict_rationale"))
    claims = [(row["whole"][0], recs[i].positive) for i, row in rows.items()
              if row["fold"] in folds and recs[i].ds == "wice"]
    return {"sentence": auroc(s, y), "sentence_wice": auroc(s[ds == "wice"], y[ds == "wice"]),
            "sentence_scifact": auroc(s[ds == "scifact"], y[ds == "scifact"]),
            "scifact_support_vs_contradict": auroc(s[near], y[near]),
            "claim_wice_whole": auroc(np.array([c[0] for c in claims]), np.array([c[1] for c in claims]))}


def snli_judgement() -> dict[str, Any]:
    """The two judgements of the head trained with SNLI pairs (recorded in WORK/snli.json only)."""
    report: dict[str, Any] = {"protocol": SNLI_PROTOCOL, "raw_folds_3_4": {}}
    for name, tag in (("head", ""), ("head_snli", "_snli")):
        ts.PRED_TAG = tag
        report["raw_folds_3_4"][name] = raw_head_figures(*ts.merged(EPOCH), TEST_FOLDS)
    t = tables()["claim"]  # PRED_TAG is "_snli": the SNLI head's claim columns
    report["claim"] = {}
    for name in ("today+tok+rule", "head+today+tok+rule"):
        p = cross_fitted(t, name, "claim")
        report["claim"][name] = {
            "judge_folds_0_2": claim_stack_figures(t, p, np.isin(t["fold"], TUNE_FOLDS)),
            "folds_3_4": claim_stack_figures(t, p, np.isin(t["fold"], TEST_FOLDS)),
            "pooled": claim_stack_figures(t, p, np.ones(len(p), bool)),
            "per_fold_wice": [claim_stack_figures(t, p, t["fold"] == f)["wice"] for f in range(ts.FOLDS)]}
    raw, claim = report["raw_folds_3_4"], report["claim"]
    old, new = (claim[n]["judge_folds_0_2"]["wice"] for n in ("today+tok+rule", "head+today+tok+rule"))
    report["passed"] = {
        "sentence": raw["head_snli"]["sentence"] - raw["head"]["sentence"] >= 0.005
        and raw["head_snli"]["sentence_wice"] - raw["head"]["sentence_wice"] >= -0.005,
        "claim": claim_passes(old, new)}
    (ts.WORK / "snli.json").write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    print(json.dumps({"raw_folds_3_4": raw, "claim_wice_judge_folds_0_2": {"today+tok+rule": old,
                      "head+today+tok+rule": new}, "passed": report["passed"]}, default=float))
    return report


CE_PROTOCOL = (
    "Fixed before any figure was read (the SNLI pilot had scored fold 0 with the cross-encoder alone): "
    "all-MiniLM-L6-v2 fine-tuned end to end (pilot_cross_encoder.py), 1 epoch on a seeded 30,000 SNLI pairs "
    "(shared by every fold), then 1 epoch on each fold's training pairs; its logit on the fold's records (claim "
    "vs the whole source) and sentence items is a column 'ce'. Claim level: today+tok+rule vs today+tok+ce+rule; "
    "sentence setting: head+today vs head+today+ce (member 0: the ensemble's other members are not on this "
    "machine). Each fold scored by an LR fitted on the other four; judged on folds 1-4. Passed only if the claim "
    "level's WiCE supported-vs-rest rises >= 0.005 with supported-vs-partial falling <= 0.005; the sentence "
    "setting's AUROC rises >= 0.005, its WiCE AUROC falls <= 0.005 and precision at the cross-fitted cut does "
    "not fall. Nothing is shipped by this command.")
CE_FOLDS = (1, 2, 3, 4)


def ce_scores() -> tuple[dict[str, float], dict[tuple[str, str, tuple[str, ...]], float]]:
    """The cross-encoder's out-of-fold logits (WORK/ce_fold*.json): by record index and by sentence item."""
    recs: dict[str, float] = {}
    items: dict[tuple[str, str, tuple[str, ...]], float] = {}
    for f in range(ts.FOLDS):
        d = json.loads((ts.WORK / f"ce_fold{f}.json").read_text())
        recs |= d["records"]
        items |= {(it["claim"], it["cat"], tuple(it["source"])): it["ce"] for it in d["items"]}
    return recs, items


def ce_judgement() -> dict[str, Any]:
    """The judgement of the cross-encoder column at both levels (recorded in WORK/ce.json only)."""
    by_rec, by_item = ce_scores()
    claim = claim_table()
    claim["ce"] = np.array([[by_rec[str(i)]] for i in range(len(claim["y"]))])
    sent = tables()["sentence"]
    _, items = ts.merged(EPOCH)
    sent["ce"] = np.array([[by_item[(it["claim"], it["cat"], tuple(it["source"]))]]
                           for it in items if it["cat"] in HEADLINE])
    report: dict[str, Any] = {"protocol": CE_PROTOCOL, "claim": {}, "sentence": {}}
    for setting, t, names, figs in (("claim", claim, ("today+tok+rule", "today+tok+ce+rule"), claim_stack_figures),
                                    ("sentence", sent, ("head+today", "head+today+ce"), sentence_stack_figures)):
        judge = np.isin(t["fold"], CE_FOLDS)
        report[setting]["ce_alone"] = {"judge_folds": figs(t, t["ce"][:, 0], judge),
                                       "fold_0": figs(t, t["ce"][:, 0], t["fold"] == 0)}
        for name in names:
            p = cross_fitted(t, name, setting)
            r = {"judge_folds": figs(t, p, judge), "fold_0": figs(t, p, t["fold"] == 0), **fold_figures(t, p, figs)}
            if setting == "sentence":
                r["judge_folds"]["at_cut"] = cross_fitted_cut_report(t, p, "sentence", judge)
            report[setting][name] = r
    old, new = (report["claim"][n]["judge_folds"]["wice"] for n in ("today+tok+rule", "today+tok+ce+rule"))
    so, sn = (report["sentence"][n]["judge_folds"] for n in ("head+today", "head+today+ce"))
    report["passed"] = {"claim": claim_passes(old, new), "sentence": sentence_passes(
        so, sn, so["at_cut"]["pooled"]["precision"], sn["at_cut"]["pooled"]["precision"])}
    (ts.WORK / "ce.json").write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    print(json.dumps({"claim_wice_judge_folds": {"today+tok+rule": old, "today+tok+ce+rule": new},
                      "sentence_judge_folds": {"head+today": so, "head+today+ce": sn},
                      "passed": report["passed"]}, default=float))
    return report


def shipped(setting: str, t: dict[str, Any], report: dict[str, Any], name: str) -> dict[str, Any]:
    """Write the judgement to WORK, refit the chosen candidate on all rows and ship that setting alone."""
    (ts.WORK / name).write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    chosen = report["candidates"][report["chosen"]]
    cfg = json.loads((ts.OUT / "support_head.json").read_text())
    cfg[setting] = refit(setting, t, report["chosen"])
    cfg["cv"][setting] = {k: chosen[k] for k in ("pooled", "per_fold", "tune_folds", "test_folds", "calibration")}
    if setting == "sentence":
        cfg["cv"][setting] |= {"cut_cross_fitted": {k: chosen["cut"][k] for k in
                                                    ("cross_fitted", "cross_fitted_scifact", "cross_fitted_wice")},
                               "cut_f1_cross_fitted": chosen["f1_cut_cross_fitted"]}
    (ts.OUT / "support_head.json").write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
    key = "wice" if setting == "claim" else "auroc"
    print(json.dumps({n: {k: r[k] if setting == "sentence" else r[k][key] for k in ("tune_folds", "test_folds")}
                      for n, r in report["candidates"].items()} | {"chosen": report["chosen"],
                                                                   "cut": cfg[setting]["cut"]}, default=float))
    return report


def cv_summary(r: dict[str, Any], setting: str) -> dict[str, Any]:
    """The chosen candidate's out-of-fold figures, pooled and per fold (the full table is WORK/stack.json)."""
    out = {"pooled": r["pooled"], "per_fold": r["per_fold"]}
    if setting == "sentence":
        keys = ("cross_fitted", "cross_fitted_scifact", "cross_fitted_wice")
        out["cut_cross_fitted"] = {k: r["cut"][k] for k in keys}
        out["cut_f1_cross_fitted"] = r["f1_cut_cross_fitted"]
    return out


def main() -> int:
    """Command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["today", "select", "ship", "claim", "sentence", "ensemble", "snli", "ce"])
    args = p.parse_args()
    {"today": today_features, "select": select, "ship": ship, "claim": claim_token,
     "sentence": sentence_token, "ensemble": sentence_ensemble, "snli": snli_judgement,
     "ce": ce_judgement}[args.command]()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

