"""The sixth amendment's judgement (PROTOCOL.md): the stack read with who does what (`who`), beside the stack,
on fold 0's items of every judged set, and the latency of a one- or two-sentence check."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from training.support_ce import judge
from training.support_ce.blend import fold_items
from training.support_ce.data import load

JUDGED_FOLD = 0


def judge_who(work: Path, k: int, seed: int, threads: int) -> dict[str, Any]:
    """Fold 0's figures of the stack and of `who` on the same rows, and `who`'s latency."""
    from nonseq.verify.support import read_with_who, stack_results

    timed = latency(load(work / "pairs.jsonl"), threads)  # first: the models' caches hold nothing yet
    rows = fold_items(work, k, seed, JUDGED_FOLD)
    pairs = [(it["claim"], it["source"]) for it in rows]
    started = time.time()
    results, stack = stack_results(pairs, threads)
    who = read_with_who(pairs, results, stack)
    return {"who": judge.figures(rows, np.asarray(who, float)), "stack": judge.figures(rows, np.asarray(stack, float)),
            "changed": {"lowered": int(sum(w < s for w, s in zip(who, stack, strict=True))),
                        "raised": int(sum(w > s for w, s in zip(who, stack, strict=True)))},
            "latency": timed,
            "judged_rows": len(rows), "seconds": round(time.time() - started, 1)}


def latency(pairs: list[Any], threads: int) -> dict[str, Any]:
    """Milliseconds of `who` on one- or two-sentence sources, one call per pair (judge.latency)."""
    from nonseq.verify.support import who_scores

    return judge.latency(pairs, 200, threads, lambda claim, source, t: who_scores([(claim, source)], t)[0])


def write(work: Path, figs: dict[str, Any]) -> None:
    """Keep the figures in the work folder."""
    (work / "judge_who.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")
