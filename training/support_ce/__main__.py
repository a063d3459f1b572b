"""Rebuild the support cross-encoder (nonseq/data/support_ce.onnx + support_ce.json).

    python -m training.support_ce data  --work W [--seed 0]          pairs.jsonl, swaps_fold{i}.jsonl
    python -m training.support_ce train --work W --fold i|all [--minutes 35] [--epochs 1 | --steps N]
    python -m training.support_ce judge --work W                      W/judge.json: out-of-fold figures
    python -m training.support_ce ship  --work W --fold fold0|all     copy the model, write the config
    python -m training.support_ce latency --work W                    ms of check_support, 1 and 2 threads

Seeded throughout (seed 0). On the shared 2-core machine under `nice -n 10` with two torch threads:
`data` about 4 minutes, each `train` run the minutes it is given (checkpointed, resumed when run again),
`judge` about 10 minutes. See docs/support-model.md for the figures of the shipped run.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path

from training.support_ce import data, judge

K = 2  # folds, grouped (a page, an article, an abstract and its claims, a question)
REPO = Path(__file__).resolve().parents[2]
SHIP = REPO / "nonseq" / "data"


def cmd_data(work: Path, seed: int) -> None:
    """Make and save every pair, and the held-out pages' swap sets per fold."""
    work.mkdir(parents=True, exist_ok=True)
    pairs = data.build(seed)
    data.save(pairs, work / "pairs.jsonl")
    rng = random.Random(seed + 1)
    web = json.loads(data.WEB.read_text(encoding="utf-8"))
    keys = sorted(web)
    swaps: dict[int, list[dict[str, object]]] = {i: [] for i in range(K)}
    for key, doc in zip(keys, data.parse([web[k]["articleBody"][:20_000] for k in keys]), strict=True):
        group = f"web:{key}"
        swaps[data.fold_of(group, K, seed)] += data.swap_sets(doc, group, rng)
    for i, rows in swaps.items():
        (work / f"swaps_fold{i}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    counts = {"pairs": len(pairs), "by_kind": judge.by_kind(pairs), "swaps": {i: len(r) for i, r in swaps.items()}}
    (work / "data.json").write_text(json.dumps(counts, indent=1), encoding="utf-8")
    print(json.dumps(counts))


def cmd_train(work: Path, run: str, seed: int, minutes: float, epochs: float, threads: int, steps: int) -> None:
    """Train one run (a fold's complement, or all pairs), checkpointed, then export it to int8 ONNX."""
    import torch

    from training.support_ce.train import export, train

    torch.set_num_threads(threads)
    pairs = data.load(work / "pairs.jsonl")
    if run != "all":
        fold = int(run.removeprefix("fold"))
        pairs = [p for p in pairs if data.fold_of(p.group, K, seed) != fold]
    out = work / run
    out.mkdir(parents=True, exist_ok=True)
    with (out / "train.log").open("a", encoding="utf-8") as log:
        print(f"{len(pairs)} pairs; {judge.by_kind(pairs)}", file=log, flush=True)
        model = train(pairs, out, seed, epochs, minutes, log, steps)
        export(model, out / "model.int8.onnx")
        print("exported", file=log, flush=True)


def cmd_ship(work: Path, run: str) -> None:
    """Copy a run's int8 model into nonseq/data and write its config with the out-of-fold calibration."""
    figs = json.loads((work / "judge.json").read_text(encoding="utf-8"))
    cal = figs["calibration_all_folds"] if run == "all" else figs["calibration_cross_fitted"][
        f"fold{(int(run.removeprefix('fold')) + 1) % K}"]
    shutil.copyfile(work / run / "model.int8.onnx", SHIP / "support_ce.onnx")
    cfg = {"model": "support_ce.onnx", "max_len": 192, "calibration": cal, "run": run,
           "recipe": "python -m training.support_ce (seed 0)", "oof": figs["pooled"]}
    (SHIP / "support_ce.json").write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run one step."""
    p = argparse.ArgumentParser(prog="python -m training.support_ce", description=__doc__.splitlines()[1])
    p.add_argument("step", choices=("data", "train", "judge", "ship", "latency"))
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fold", default="all", help="fold0, fold1 or all (train); the run to ship (ship)")
    p.add_argument("--minutes", type=float, default=35.0)
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--steps", type=int, default=0, help="batches of 16 to train (default: --epochs over the pairs)")
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args(argv)
    if a.step == "data":
        cmd_data(a.work, a.seed)
    elif a.step == "train":
        cmd_train(a.work, a.fold, a.seed, a.minutes, a.epochs, a.threads, a.steps)
    elif a.step == "judge":
        figs = judge.judge(a.work, K, a.seed, a.threads)
        (a.work / "judge.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")
        print(json.dumps(figs["pooled"]))
    elif a.step == "latency":
        pairs = data.load(a.work / "pairs.jsonl")
        print(json.dumps([judge.latency(pairs, 200, t) for t in (1, 2)]))
    else:
        cmd_ship(a.work, a.fold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
