"""The seventh amendment's judgement (PROTOCOL.md): the claim setting's decision point chosen on AttributionBench
dev, read out of fold (folds grouped by question), with WiCE dev and SciFact beside `who` at the shipped point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from bench.support import macro_f1
from training.support_ce import judge
from training.support_ce.data import fold_of, load

GRID = [round(0.40 + 0.01 * i, 2) for i in range(41)]


def ab_average(prob: np.ndarray, y: np.ndarray, subs: np.ndarray) -> float:
    """The plain mean over AttributionBench's sets of macro-F1 at 0.5."""
    return float(np.mean([macro_f1(prob[subs == s] >= 0.5, y[subs == s]) for s in sorted(set(subs))]))


def moved(who: np.ndarray, claim: np.ndarray, point: float) -> np.ndarray:
    """`who`'s scores with 0.5 moved to `point` for the claim setting's pairs (order kept)."""
    from nonseq.verify.support import at_half

    return np.array([at_half(p, point) if c else p for p, c in zip(who, claim, strict=True)])


def choose(who: np.ndarray, claim: np.ndarray, y: np.ndarray, subs: np.ndarray) -> float:
    """The grid point with the best AttributionBench macro-F1 average (ties: nearest 0.5)."""
    return max(GRID, key=lambda c: (round(ab_average(moved(who, claim, c), y, subs), 6), -abs(c - 0.5)))


def judge_cut(work: Path, k: int, seed: int, threads: int) -> dict[str, Any]:
    """Out-of-fold AttributionBench figures of `who+cut` beside `who`, and WiCE / SciFact at the shipped point."""
    from nonseq.verify.support import read_with_who, stack_results

    items = judge.eval_items(load(work / "pairs.jsonl"), [])
    items = [it for it in items if it["set"] in ("ab", "wice", "scifact")]
    pairs = [(it["claim"], it["source"]) for it in items]
    results, stack = stack_results(pairs, threads)
    who = np.asarray(read_with_who(pairs, results, stack), float)
    claim = np.array(["whole" not in r.features for r in results])
    y = np.array([it["y"] for it in items], bool)
    sets, subs = np.array([it["set"] for it in items]), np.array([it["sub"] for it in items])
    ab = sets == "ab"
    fold = np.array([fold_of(it["group"], k, seed) for it in items])
    oof, points = who.copy(), {}
    for i in range(k):
        train, test = ab & (fold != i), ab & (fold == i)
        c = choose(who[train], claim[train], y[train], subs[train])
        points[f"fold{i}"] = c
        oof[test] = moved(who[test], claim[test], c)
    shipped = choose(who[ab], claim[ab], y[ab], subs[ab])
    at = moved(who, claim, shipped)
    out: dict[str, Any] = {
        "ab_oof": {"who_cut": round(ab_average(oof[ab], y[ab], subs[ab]), 1),
                   "who": round(ab_average(who[ab], y[ab], subs[ab]), 1),
                   "per_set_who_cut": {s: macro_f1(oof[ab & (subs == s)] >= 0.5, y[ab & (subs == s)])
                                       for s in sorted(set(subs[ab]))},
                   "points": points},
        "shipped_point": shipped,
        "ab_in_sample_at_shipped": round(ab_average(at[ab], y[ab], subs[ab]), 1),
        "claim_setting_share_ab": round(float(claim[ab].mean()), 3)}
    for s in ("wice", "scifact"):
        m = sets == s
        out[s] = {"n": int(m.sum()), "who": macro_f1(who[m] >= 0.5, y[m]), "who_cut": macro_f1(at[m] >= 0.5, y[m]),
                  "claim_setting_share": round(float(claim[m].mean()), 3)}
    return out


def write(work: Path, figs: dict[str, Any]) -> None:
    """Keep the figures in the work folder."""
    (work / "judge_cut.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")


SENTENCE_GRID = [round(0.20 + 0.01 * i, 2) for i in range(41)]


def both_moved(stack: np.ndarray, claim: np.ndarray, how: list[str], claim_point: float,
               sentence_point: float) -> np.ndarray:
    """Each setting's stack score moved to its point, then read with who does what (the eighth amendment)."""
    from nonseq.verify.support import apply_who, at_half

    return np.array([apply_who(at_half(p, claim_point if c else sentence_point), h)
                     for p, c, h in zip(stack, claim, how, strict=True)])


def judge_cuts(work: Path, k: int, seed: int, threads: int, claim_point: float) -> dict[str, Any]:
    """Out-of-fold AttributionBench figures of `who+cuts` beside the shipped `who+cut`, and the swap sets, WiCE
    and the sentence setting at the shipped sentence point."""
    from nonseq.verify.support import apply_who, at_half, stack_results, who_reading
    from training.support_ce.data import read_jsonl

    swaps = [r for i in range(k) for r in read_jsonl(work / f"swaps_fold{i}.jsonl")]
    items = [it for it in judge.eval_items(load(work / "pairs.jsonl"), swaps) if it["set"] != "scifact"]
    pairs = [(it["claim"], it["source"]) for it in items]
    results, raw = stack_results(pairs, threads)
    stack = np.asarray(raw, float)
    how = who_reading(pairs, results)
    claim = np.array(["whole" not in r.features for r in results])
    shipped_now = np.array([p if not c else at_half(p, claim_point)
                            for p, c in zip([apply_who(p, h) for p, h in zip(stack, how, strict=True)], claim,
                                            strict=True)])
    y = np.array([it["y"] for it in items], bool)
    sets, subs = np.array([it["set"] for it in items]), np.array([it["sub"] for it in items])
    ab = sets == "ab"
    fold = np.array([fold_of(it["group"], k, seed) for it in items])

    def best(m: np.ndarray) -> float:
        return max(SENTENCE_GRID, key=lambda s: (round(ab_average(
            both_moved(stack[m], claim[m], [how[i] for i in np.nonzero(m)[0]], claim_point, s), y[m], subs[m]), 6),
            -abs(s - 0.5)))

    oof, points = shipped_now.copy(), {}
    for i in range(k):
        s = best(ab & (fold != i))
        points[f"fold{i}"] = s
        test = ab & (fold == i)
        oof[test] = both_moved(stack[test], claim[test], [how[j] for j in np.nonzero(test)[0]], claim_point, s)
    chosen = best(ab)
    at = both_moved(stack, claim, how, claim_point, chosen)
    out: dict[str, Any] = {
        "ab_oof": {"who_cuts": round(ab_average(oof[ab], y[ab], subs[ab]), 1),
                   "who_cut": round(ab_average(shipped_now[ab], y[ab], subs[ab]), 1), "points": points},
        "shipped_sentence_point": chosen}
    for name, m in (("role_swaps", (sets == "swaps") & (subs == "role_swaps")),
                    ("foreign_swaps", (sets == "swaps") & (subs == "foreign_swaps")),
                    ("wice", sets == "wice"), ("sentence", sets == "sentence")):
        out[name] = {"n": int(m.sum()), "who_cut": macro_f1(shipped_now[m] >= 0.5, y[m]),
                     "who_cuts": macro_f1(at[m] >= 0.5, y[m])}
    return out
