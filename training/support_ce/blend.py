"""The blend's judgement (PROTOCOL.md, fifth amendment): the stack's logit, ce-ft's logit and the parse's flag
read together by a logistic regression fitted on fold 1's items of every set, judged on fold 0's items beside
the stack, on the same rows.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from training.support_ce import judge, tuned
from training.support_ce.data import fold_of, load, read_jsonl

FIT_FOLD = tuned.CALIBRATION_FOLD
CLIP = 1e-4


def fold_items(work: Path, k: int, seed: int, fold: int) -> list[dict[str, Any]]:
    """A fold's items of every judged set, the swap set of that fold included."""
    every = judge.eval_items(load(work / "pairs.jsonl"), read_jsonl(work / f"swaps_fold{fold}.jsonl"))
    return [it for it in every if it["set"] == "swaps" or fold_of(it["group"], k, seed) == fold]


def features(work: Path, rows: list[dict[str, Any]], max_len: int, threads: int) -> tuple[np.ndarray, np.ndarray]:
    """Per item: the logit of the stack's probability, ce-ft's best-window logit, the parse's swap flag; and
    the stack's own probabilities."""
    from nonseq.verify.support import stack_scores

    scores, swapped = stack_scores([(it["claim"], it["source"]) for it in rows], threads, roles=True)
    p = np.clip(np.asarray(scores, float), CLIP, 1 - CLIP)
    ce = np.maximum(tuned.logits(work / "support_ce.onnx", rows, max_len, threads), -20.0)
    return np.column_stack([np.log(p / (1 - p)), ce, np.asarray(swapped, float)]), np.asarray(scores, float)


def weights(rows: list[dict[str, Any]]) -> np.ndarray:
    """Sample weights: every set weighs the same, and within a set both classes weigh the same."""
    sets = sorted({it["set"] for it in rows})
    w = np.zeros(len(rows))
    for s in sets:
        for y in (0, 1):
            idx = [i for i, it in enumerate(rows) if it["set"] == s and it["y"] == y]
            if idx:
                w[idx] = 1.0 / (2 * len(sets) * len(idx))
    return w * len(rows)


def judge_blend(work: Path, k: int, seed: int, max_len: int, threads: int) -> dict[str, Any]:
    """Fit the blend on fold 1, and read fold 0's figures of the blend and of the stack on the same rows."""
    from sklearn.linear_model import LogisticRegression

    fit_rows, judged = fold_items(work, k, seed, FIT_FOLD), fold_items(work, k, seed, tuned.JUDGED_FOLD)
    started = time.time()
    x_fit, _ = features(work, fit_rows, max_len, threads)
    model = LogisticRegression(C=1.0, solver="lbfgs").fit(x_fit, [it["y"] for it in fit_rows],
                                                          sample_weight=weights(fit_rows))
    x, stack = features(work, judged, max_len, threads)
    prob = model.predict_proba(x)[:, 1]
    return {"blend": judge.figures(judged, prob), "stack": judge.figures(judged, stack),
            "weights": {"intercept": round(float(model.intercept_[0]), 4),
                        "stack_logit": round(float(model.coef_[0][0]), 4),
                        "ce_logit": round(float(model.coef_[0][1]), 4),
                        "swapped": round(float(model.coef_[0][2]), 4)},
            "fit_rows": len(fit_rows), "judged_rows": len(judged), "seconds": round(time.time() - started, 1)}


def write(work: Path, figs: dict[str, Any]) -> None:
    """Keep the figures in the work folder."""
    (work / "judge_blend.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")
