"""A monotone gradient-boosted stacker blended with the LR, judged by a protocol fixed first.

    SUPPORT_WORK=... python stack_gbm.py   # after train_support.py cv and stack_support.py today

Every stacker so far is a logistic regression. Trees under a-priori monotone constraints can take
thresholds and interactions the LR cannot (a claim that is well covered *and* lacks no number),
while the constraints and the blend with the LR keep them from memorising. Nothing is shipped by
this command: its judgement is written to WORK/gbm.json.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stack_support as st  # noqa: E402
import train_support as ts  # noqa: E402

GBM_PROTOCOL = (
    "Fixed before any figure of this candidate was read: sklearn HistGradientBoostingClassifier("
    "max_depth=2, learning_rate=0.05, max_iter=200, min_samples_leaf=40, l2_regularization=1.0, "
    "early_stopping=False, random_state=0) with monotone signs fixed a priori (+1 cos_top2, part_cos_min, "
    "cov_pair, part_mean, tok_recall, whole, whole_rel; -1 missing_numbers, missing_names, missing_mass, "
    "missing_max, negation); the candidate's score is the mean of the LR's and the GBM's probabilities, both "
    "fitted on the same training folds. Claim level: today+tok+rule, LR vs blend (the rule's cut chosen on the "
    "training folds' blended scores); sentence setting: head+today (head member 0), LR vs blend. Judged once on "
    "all five folds, each scored by models fitted on the other four (every fold has been read by earlier "
    "candidates). Claim passes if pooled WiCE supported-vs-rest rises >= 0.005, supported-vs-partial falls "
    "<= 0.005 and WiCE supported-vs-rest falls on at most 2 of 5 folds; sentence passes by the seed ensemble's rule "
    "(AUROC +0.005, WiCE AUROC falls <= 0.005, pooled precision at the cross-fitted cut does not fall) with the "
    "AUROC falling on at most 2 of 5 folds. Nothing is shipped by this command.")
SIGNS = {"cos_top2": 1, "part_cos_min": 1, "cov_pair": 1, "part_mean": 1, "tok_recall": 1, "whole": 1,
         "whole_rel": 1, "missing_numbers": -1, "missing_names": -1, "missing_mass": -1, "missing_max": -1,
         "negation": -1}
CANDIDATES = {"claim": "today+tok+rule", "sentence": "head+today"}


def blend_scorer(names: list[str]) -> st.Scorer:
    """A scorer whose probabilities are the mean of the shipped LR's and a monotone GBM's over columns `names`."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    def fit(x: np.ndarray, y: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        lr = st.lr_scorer(x, y)
        gbm = HistGradientBoostingClassifier(
            max_depth=2, learning_rate=0.05, max_iter=200, min_samples_leaf=40, l2_regularization=1.0,
            early_stopping=False, random_state=0, monotonic_cst=[SIGNS[n] for n in names],
        ).fit(x, y.astype(int))
        return lambda z: (lr(z) + gbm.predict_proba(z)[:, 1]) / 2

    return fit


def judge_setting(setting: str, t: dict[str, Any]) -> dict[str, Any]:
    """Both stackers' out-of-fold figures in one setting: pooled, per fold and (sentence) at the cut."""
    name = CANDIDATES[setting]
    names = st.feature_names(name, setting)
    assert st.columns(t, name).shape[1] == len(names), "feature names out of step with the columns"
    return {stacker: st.all_folds(t, name, setting, scorer)
            for stacker, scorer in (("lr", st.lr_scorer), ("blend", blend_scorer(names)))}


def main() -> int:
    """Judge the blend at both levels by GBM_PROTOCOL; write WORK/gbm.json and print the verdict."""
    claim, sent = st.claim_table(), st.tables()["sentence"]
    report: dict[str, Any] = {"protocol": GBM_PROTOCOL, "claim": judge_setting("claim", claim),
                              "sentence": judge_setting("sentence", sent)}
    c, s = report["claim"], report["sentence"]
    verdict = st.all_folds_verdict((c["lr"], c["blend"]), (s["lr"], s["blend"]))
    report["folds_fallen"], report["passed"] = verdict["folds_fallen"], verdict["passed"]
    wice, sent_folds = verdict["claim_wice_per_fold"], verdict["sentence_per_fold"]
    (ts.WORK / "gbm.json").write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    print(json.dumps({"claim_wice": {k: c[k]["pooled"]["wice"] for k in c},
                      "claim_wice_per_fold": dict(zip(("lr", "blend"), wice, strict=True)),
                      "sentence": {k: s[k]["pooled"] | {"at_cut": s[k]["at_cut"]["pooled"]} for k in s},
                      "sentence_per_fold": dict(zip(("lr", "blend"), sent_folds, strict=True)),
                      "folds_fallen": report["folds_fallen"], "passed": report["passed"]}, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
