"""The fine-tuned cross-encoder's judgement (PROTOCOL.md, fourth amendment): trained on folds 2-4, calibrated
on fold 1's AttributionBench dev logits, judged on fold 0's items beside the stack and the stack with the
parse's check of who does what, all read on the same rows.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from training.support_ce import judge
from training.support_ce.data import Pair, fold_of, load, read_jsonl

TRAIN_FOLDS, CALIBRATION_FOLD, JUDGED_FOLD = (2, 3, 4), 1, 0


def training_pairs(work: Path, k: int, seed: int) -> list[Pair]:
    """The pairs of the training folds."""
    return [p for p in load(work / "pairs.jsonl") if fold_of(p.group, k, seed) in TRAIN_FOLDS]


def items(work: Path, k: int, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(fold 1's AttributionBench items for the calibration, fold 0's judged items)."""
    pairs = load(work / "pairs.jsonl")
    swaps = read_jsonl(work / f"swaps_fold{JUDGED_FOLD}.jsonl")
    every = judge.eval_items(pairs, swaps)
    cal = [it for it in every if it["set"] == "ab" and fold_of(it["group"], k, seed) == CALIBRATION_FOLD]
    judged = [it for it in every if it["set"] == "swaps" or fold_of(it["group"], k, seed) == JUDGED_FOLD]
    return cal, judged


def config_for(model: Path, max_len: int, a: float = 1.0, b: float = 0.0) -> Path:
    """A cross-encoder config beside the model file (a = 1, b = 0 reads raw logits)."""
    path = model.with_suffix(".json")
    path.write_text(json.dumps({"model": model.name, "max_len": max_len, "calibration": {"a": a, "b": b}}))
    return path


def logits(model: Path, rows: list[dict[str, Any]], max_len: int, threads: int) -> np.ndarray:
    """The model's best-window logit per item, through the product's CrossEncoder."""
    from nonseq.verify.crossenc import CrossEncoder, config

    config.cache_clear()
    enc = CrossEncoder(threads, config_for(model, max_len))
    return np.asarray(enc.best_logits([(it["claim"], it["source"]) for it in rows]), float)


def baseline(rows: list[dict[str, Any]], roles: bool, threads: int) -> np.ndarray:
    """The stack's check_support scores (with or without the parse's check of who does what)."""
    from nonseq.verify.support import support_scores

    return np.asarray(support_scores([(it["claim"], it["source"]) for it in rows], threads, roles=roles))


def judge_tuned(work: Path, model: Path, k: int, seed: int, max_len: int, threads: int) -> dict[str, Any]:
    """Fold 0's figures of the fine-tuned model and of both baselines; the calibration fitted on fold 1."""
    cal, judged = items(work, k, seed)
    started = time.time()
    cal_logits = logits(model, cal, max_len, threads)
    a, b = judge.platt(np.maximum(cal_logits, -20.0), np.array([it["y"] for it in cal]))
    raw = np.maximum(logits(model, judged, max_len, threads), -20.0)
    prob = 1 / (1 + np.exp(-(a * raw + b)))
    model_seconds = time.time() - started
    out: dict[str, Any] = {"ce-ft": judge.figures(judged, prob), "calibration": {"a": round(a, 4), "b": round(b, 4)},
                           "calibration_rows": len(cal), "judged_rows": len(judged),
                           "seconds": round(model_seconds, 1)}
    for name, roles in (("stack", False), ("stack+roles", True)):
        out[name] = judge.figures(judged, baseline(judged, roles, threads))
    (work / "tuned_oof.json").write_text(json.dumps(
        [{"set": it["set"], "sub": it["sub"], "y": it["y"], "logit": float(v), "prob": float(q)}
         for it, v, q in zip(judged, raw, prob, strict=True)]))
    return out
