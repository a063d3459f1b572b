"""Out-of-fold figures of a cross-encoder recipe: each fold's pairs scored by the model trained without them.

A fold's items are scored by a head trained without that fold's groups, through the product's own
features (nonseq.verify.crossenc: a claim's best window), calibrated by a logistic (Platt) fit on the other
folds' AttributionBench dev logits (class-balanced), so no reported figure is read through a calibration
fitted on its own rows.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.support import auroc, macro_f1
from training.support_ce.data import SCIFACT, WICE_DEV, Pair, fold_of, read_jsonl, scifact_groups

SETS = ("ab", "wice", "scifact", "swaps", "sentence")
SENTENCE_KINDS = ("wice_oracle", "wice_tokens", "scifact_rationale", "scifact_other")


def platt(logits: np.ndarray, y: np.ndarray, iters: int = 100) -> tuple[float, float]:
    """(a, b) of P = sigmoid(a * logit + b), class-balanced maximum likelihood (Newton steps, a small ridge)."""
    x, t = np.asarray(logits, float), np.asarray(y, float)
    w = np.where(t > 0, 0.5 / max(1, t.sum()), 0.5 / max(1, (1 - t).sum()))
    a, b = 1.0, 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(a * x + b)))
        g = np.array([np.sum(w * (p - t) * x), np.sum(w * (p - t))]) + 1e-4 * np.array([a, b])
        h = np.sum(w * p * (1 - p) * np.stack([x * x, x, x, np.ones_like(x)]), axis=1).reshape(2, 2)
        step = np.linalg.solve(h + 1e-4 * np.eye(2), g)
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-8:
            break
    return float(a), float(b)


def eval_items(pairs: list[Pair], swaps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What is judged: AttributionBench dev, WiCE dev and SciFact train claims against their whole source,
    the swap sets; each item with its set, subset, label and group."""
    out = [{"set": "ab", "sub": p.ds.split(":", 1)[1], "claim": p.claim, "source": p.source, "y": p.label,
            "group": p.group} for p in pairs if p.kind == "ab"]
    out += [{"set": "sentence", "sub": p.kind, "claim": p.claim, "source": p.source, "y": p.label,
             "group": p.group} for p in pairs if p.kind in SENTENCE_KINDS]
    for r in read_jsonl(WICE_DEV):
        out.append({"set": "wice", "sub": r["label"], "claim": r["claim"], "source": r["evidence"],
                    "y": int(r["label"] == "supported"), "group": "wice:" + r["meta"]["claim_title"]})
    sf = read_jsonl(SCIFACT)
    groups = scifact_groups(sf)
    for r in sf:
        out.append({"set": "scifact", "sub": r["label"], "claim": r["claim"], "source": r["sentences"],
                    "y": int(r["label"] == "SUPPORT"), "group": groups[f"c{r['id']}"]})
    for r in swaps:
        out.append({"set": "swaps", "sub": r["src_dataset"], "claim": r["claim"], "source": r["references"],
                    "y": int(r["attribution_label"] == "attributable"), "group": r["question"]})
    return out


def figures(items: list[dict[str, Any]], prob: np.ndarray) -> dict[str, Any]:
    """Macro-F1 at 0.5 per subset and averaged, and AUROCs, per judged set."""
    y = np.array([it["y"] for it in items], bool)
    sets = np.array([it["set"] for it in items])
    subs = np.array([it["sub"] for it in items])
    out: dict[str, Any] = {}
    for s in SETS:
        m = sets == s
        if not m.any():
            continue
        fig: dict[str, Any] = {"n": int(m.sum()), "auroc": auroc(prob[m], y[m])}
        if s in ("ab", "swaps"):
            per = {str(k): macro_f1(prob[m & (subs == k)] >= 0.5, y[m & (subs == k)]) for k in sorted(set(subs[m]))}
            fig |= {"macro_f1_average": round(float(np.mean(list(per.values()))), 1), "macro_f1_per_set": per}
        if s == "wice":
            near = m & (y | (subs == "partially_supported"))
            fig["auroc_supported_vs_partial"] = auroc(prob[near], y[near])
        if s == "scifact":
            near = m & (y | (subs == "CONTRADICT"))
            fig["auroc_support_vs_contradict"] = auroc(prob[near], y[near])
        if s == "sentence":
            for cut in (0.5, 0.7):
                called = m & (prob >= cut)
                fig[f"at_{cut}"] = {"precision": round(float(y[called].mean()), 4) if called.any() else None,
                                    "recall": round(float(called[m & y].mean()), 4)}
        fig["macro_f1_at_0.5"] = macro_f1(prob[m] >= 0.5, y[m])
        out[s] = fig
    return out


def judge(work: Path, k: int, seed: int) -> dict[str, Any]:
    """Out-of-fold figures: fold i's items scored by a head trained on the other folds' pairs, calibrated on
    the other folds' AttributionBench logits; then the head on all pairs, calibrated on all those logits."""
    from training.support_ce.data import load
    from training.support_ce.train import fit_head, save_head, torch_logits

    pairs = load(work / "pairs.jsonl")
    if (work / "train_idx.npy").is_file():
        pairs = [pairs[i] for i in np.load(work / "train_idx.npy")]
    items = json.loads((work / "items.json").read_text(encoding="utf-8"))
    x, ex, owner = np.load(work / "train_x.npy"), np.load(work / "eval_x.npy"), np.load(work / "eval_owner.npy")
    y_train = np.array([p.label for p in pairs])
    train_fold = np.array([fold_of(p.group, k, seed) for p in pairs])
    fold = np.array([fold_of(it["group"], k, seed) for it in items])
    logits = np.full(len(items), -20.0)
    started = time.time()
    for i in range(k):
        head = fit_head(x[train_fold != i], y_train[train_fold != i], seed + i)
        mine = np.isin(owner, np.nonzero(fold == i)[0])
        np.maximum.at(logits, owner[mine], torch_logits(head, ex[mine]))
    ab = np.array([it["set"] == "ab" for it in items])
    y = np.array([it["y"] for it in items])
    prob = np.zeros(len(items))
    cal: dict[str, Any] = {}
    for i in range(k):  # calibrate each fold on the other folds' AttributionBench logits
        a, b = platt(logits[ab & (fold != i)], y[ab & (fold != i)])
        prob[fold == i] = 1 / (1 + np.exp(-(a * logits[fold == i] + b)))
        cal[f"fold{i}"] = {"a": round(a, 4), "b": round(b, 4)}
    a, b = platt(logits[ab], y[ab])
    save_head(fit_head(x, y_train, seed), work / "head.npz")
    per_fold = {f"fold{i}": figures([items[j] for j in np.nonzero(fold == i)[0]], prob[fold == i])
                for i in range(k)}
    (work / "oof.json").write_text(json.dumps(
        [{"set": it["set"], "sub": it["sub"], "y": it["y"], "fold": int(f), "logit": float(v), "prob": float(q)}
         for it, f, v, q in zip(items, fold, logits, prob, strict=True)]))
    return {"pooled": figures(items, prob), "per_fold": per_fold, "calibration_cross_fitted": cal,
            "calibration": {"a": round(a, 4), "b": round(b, 4)}, "seconds": round(time.time() - started, 1),
            "items": len(items), "groups": len({it["group"] for it in items}), "training_pairs": len(pairs),
            "note": f"out of fold ({k} grouped folds); each fold calibrated on the other folds' AttributionBench dev"}


def by_kind(pairs: list[Pair]) -> dict[str, int]:
    """How many pairs of each (kind, label)."""
    out: dict[str, int] = defaultdict(int)
    for p in pairs:
        out[f"{p.kind}:{p.label}"] += 1
    return dict(sorted(out.items()))



def latency(pairs: list[Pair], n: int, threads: int,
            score: Callable[[str, Any, int], float] | None = None) -> dict[str, Any]:
    """Milliseconds of a check (check_support unless `score` is given) on one- or two-sentence sources, one
    call per pair (median, p90)."""
    from nonseq.verify.support import check_support

    check = score or check_support
    items = [p for p in pairs if p.kind in ("scifact_rationale", "wice_oracle") and len(p.source) <= 2][:n]
    check("Warm up.", "Warm up.", threads)
    times = []
    for p in items:
        started = time.perf_counter()
        check(p.claim, p.source, threads)
        times.append(1000 * (time.perf_counter() - started))
    return {"pairs": len(times), "threads": threads, "median_ms": round(float(np.median(times)), 1),
            "p90_ms": round(float(np.percentile(times, 90)), 1)}


def sentence_cut(work: Path, target: float = 0.85, default: float = 0.7) -> dict[str, Any]:
    """PROTOCOL.md rule 2's cut of the writer's setting: `default` when its precision on fold 0's sentence
    pairs reaches `target`, else the lowest cut that does there; its precision and recall on the other folds."""
    rows = [r for r in json.loads((work / "oof.json").read_text(encoding="utf-8")) if r["set"] == "sentence"]
    prob, y = np.array([r["prob"] for r in rows]), np.array([r["y"] for r in rows], bool)
    tune = np.array([r["fold"] == 0 for r in rows])

    def precision(m: np.ndarray, cut: float) -> float:
        """Precision of prob >= cut among rows m (0 when none are called)."""
        called = m & (prob >= cut)
        return float(y[called].mean()) if called.any() else 0.0

    cut = default
    if precision(tune, default) < target:
        ok = [c for c in np.unique(prob[tune]) if precision(tune, c) >= target]
        cut = float(min(ok)) if ok else 1.0
    test = ~tune
    return {"cut": round(cut, 4), "tune_precision": round(precision(tune, cut), 4),
            "test_precision": round(precision(test, cut), 4),
            "test_recall": round(float((prob[test & y] >= cut).mean()), 4), "tune_rows": int(tune.sum()),
            "test_rows": int(test.sum())}
