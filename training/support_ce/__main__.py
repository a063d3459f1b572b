"""Rebuild the support head (nonseq/data/support_ce.npz + support_ce.json).

    python -m training.support_ce data    --work W [--seed 0]   pairs.jsonl, swaps_fold{i}.jsonl (~5 min)
    python -m training.support_ce feats   --work W --part train|eval   the bundled MiniLM reads every pair
                                                                  (~20 min each part, side by side)
    python -m training.support_ce judge   --work W              out-of-fold figures, the head on all pairs (~2 min)
    python -m training.support_ce ship    --work W [--sentence-cut C]   copy the head, write the config
    python -m training.support_ce latency --work W              ms of check_support, one and two threads
    python -m training.support_ce finetune --work W             fine-tune MiniLM on folds 2-4, export int8 ONNX
                                                                (~30 min on two idle cores; resumes)
    python -m training.support_ce judge-ft --work W             fold 0's figures beside the stack's (~10 min)
    python -m training.support_ce ship-ft --work W              copy the model, write its config
    python -m training.support_ce judge-blend --work W          the fifth amendment's blend, fold 1 -> fold 0
    python -m training.support_ce judge-who --work W            the sixth amendment's `who`, fold 0 (~3 min)
    python -m training.support_ce judge-cut --work W            the seventh's claim decision point, out of fold
    python -m training.support_ce judge-cuts --work W           the eighth's sentence decision point, out of fold
    python -m training.support_ce judge-lr --work W             the ninth's trained who-lr, folds 1-4 -> fold 0
    python -m training.support_ce judge-lr-sentence --work W    the tenth's, the sentence setting, out of fold
    python -m training.support_ce judge-lr-few --work W         the eleventh's five-input model, out of fold

Seeded throughout (seed 0). Times are on the shared 2-core machine under `nice -n 10`, two onnxruntime
threads. See docs/support-model.md for the shipped run's figures and PROTOCOL.md for how it was judged.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from pathlib import Path

import numpy as np

from training.support_ce import data, judge

K = 5  # folds, grouped (a page, an abstract and the claims citing it, a WiCE article, a question)
REPO = Path(__file__).resolve().parents[2]
SHIP = REPO / "nonseq" / "data"


def cmd_data(work: Path, seed: int) -> None:
    """Make and save every pair, and the held-out pages' swap sets per fold."""
    work.mkdir(parents=True, exist_ok=True)
    made, web = data.build(seed)
    pairs = data.cap_made(made, seed)
    data.save(pairs, work / "pairs.jsonl")
    rng = random.Random(seed + 1)
    swaps: dict[int, list[dict[str, object]]] = {i: [] for i in range(K)}
    for group, doc in web.items():
        swaps[data.fold_of(group, K, seed)] += data.swap_sets(doc, group, rng)
    for i, rows in swaps.items():
        (work / f"swaps_fold{i}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    counts = {"pairs": len(pairs), "by_kind": judge.by_kind(pairs), "swaps": {i: len(r) for i, r in swaps.items()}}
    (work / "data.json").write_text(json.dumps(counts, indent=1), encoding="utf-8")
    print(json.dumps(counts))


def cmd_feats(work: Path, threads: int, part: str, most: int, seed: int) -> None:
    """The pair features of the training pairs (each its likeliest window: part "train") or of the judged
    items' windows (part "eval"), for a seeded sample of at most `most` (0 = all; per judged set for
    "eval"); the two parts can run side by side."""
    from training.support_ce.train import features, texts, window_pairs

    pairs = data.load(work / "pairs.jsonl")
    rng = random.Random(seed)
    with (work / f"feats_{part}.log").open("a", encoding="utf-8") as log:
        if part == "train":
            idx = sorted(rng.sample(range(len(pairs)), most)) if 0 < most < len(pairs) else list(range(len(pairs)))
            np.save(work / "train_idx.npy", np.array(idx, int))
            np.save(work / "train_x.npy", features(texts([pairs[i] for i in idx]), threads, log))
            return
        swaps = [r for f in sorted(work.glob("swaps_fold*.jsonl")) for r in data.read_jsonl(f)]
        items = judge.eval_items(pairs, swaps)
        if most:
            by_set: dict[str, list[int]] = {}
            for i, it in enumerate(items):
                by_set.setdefault(it["set"], []).append(i)
            keep = sorted(j for idx in by_set.values() for j in rng.sample(idx, min(most, len(idx))))
            items = [items[j] for j in keep]
        flat, owner = window_pairs(items)
        np.save(work / "eval_x.npy", features(flat, threads, log, chunk=64))
    np.save(work / "eval_owner.npy", owner)
    (work / "items.json").write_text(json.dumps(items), encoding="utf-8")


def cmd_ship(work: Path, sentence_cut: float | None) -> None:
    """Copy the head into nonseq/data and write its config with the out-of-fold calibration and figures."""
    figs = json.loads((work / "judge.json").read_text(encoding="utf-8"))
    shutil.copyfile(work / "head.npz", SHIP / "support_ce.npz")
    cfg = {"head": "support_ce.npz", "max_len": 256, "calibration": figs["calibration"],
           "sentence_cut": sentence_cut, "recipe": "python -m training.support_ce (seed 0, training/support_ce/)",
           "oof": figs["pooled"], "note": figs["note"]}
    (SHIP / "support_ce.json").write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")


def cmd_finetune(work: Path, seed: int, threads: int) -> None:
    """Fine-tune on the training folds' pairs (resuming from a checkpoint) and export to int8 ONNX."""
    from training.support_ce import finetune, tuned

    pairs = tuned.training_pairs(work, K, seed)
    print(f"training on {len(pairs)} pairs of folds {tuned.TRAIN_FOLDS}", flush=True)
    with (work / "finetune.log").open("a", encoding="utf-8") as log:
        state = finetune.train(pairs, work, seed, threads, log)
    info = finetune.export(state, work / "support_ce.onnx") | {"training_pairs": len(pairs)}
    (work / "export.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    print(json.dumps(info))


def cmd_ship_ft(work: Path) -> None:
    """Copy the fine-tuned model into nonseq/data with its fold-1 calibration and fold-0 figures."""
    from training.support_ce import finetune

    figs = json.loads((work / "judge_ft.json").read_text(encoding="utf-8"))
    shutil.copyfile(work / "support_ce.onnx", SHIP / "support_ce.onnx")
    cfg = {"model": "support_ce.onnx", "max_len": finetune.MAX_LEN, "calibration": figs["calibration"],
           "recipe": "python -m training.support_ce data, finetune, judge-ft (seed 0; training/support_ce/)",
           "fold0": {k: figs[k] for k in ("ce-ft", "stack", "stack+roles")},
           "note": "trained on folds 2-4, calibrated on fold 1's AttributionBench dev, judged on fold 0"}
    (SHIP / "support_ce.json").write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run one step."""
    p = argparse.ArgumentParser(prog="python -m training.support_ce", description=__doc__.splitlines()[0])
    p.add_argument("step", choices=("data", "feats", "judge", "ship", "latency", "finetune", "judge-ft", "ship-ft",
                                     "judge-blend", "judge-who", "judge-cut", "judge-cuts", "judge-lr",
                                     "judge-lr-sentence", "judge-lr-few"))
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--part", choices=("train", "eval"), default="train", help="feats: which pairs")
    p.add_argument("--most", type=int, default=0, help="feats: a seeded sample of at most this many (0 = all)")
    p.add_argument("--sentence-cut", type=float, help="ship: the writer's setting's cut (PROTOCOL.md rule 2)")
    a = p.parse_args(argv)
    if a.step == "data":
        cmd_data(a.work, a.seed)
    elif a.step == "feats":
        cmd_feats(a.work, a.threads, a.part, a.most, a.seed)
    elif a.step == "judge":
        figs = judge.judge(a.work, K, a.seed)
        figs["sentence_cut_rule"] = judge.sentence_cut(a.work)
        (a.work / "judge.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")
        print(json.dumps(figs["pooled"]))
    elif a.step == "finetune":
        cmd_finetune(a.work, a.seed, a.threads)
    elif a.step == "judge-ft":
        from training.support_ce import finetune, tuned

        figs = tuned.judge_tuned(a.work, a.work / "support_ce.onnx", K, a.seed, finetune.MAX_LEN, a.threads)
        (a.work / "judge_ft.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")
        print(json.dumps(figs))
    elif a.step == "ship-ft":
        cmd_ship_ft(a.work)
    elif a.step == "judge-blend":
        from training.support_ce import blend, finetune

        figs = blend.judge_blend(a.work, K, a.seed, finetune.MAX_LEN, a.threads)
        blend.write(a.work, figs)
        print(json.dumps(figs))
    elif a.step == "judge-who":
        from training.support_ce import who

        figs = who.judge_who(a.work, K, a.seed, a.threads)
        who.write(a.work, figs)
        print(json.dumps(figs))
    elif a.step == "judge-cut":
        from training.support_ce import cut

        figs = cut.judge_cut(a.work, K, a.seed, a.threads)
        cut.write(a.work, figs)
        print(json.dumps(figs))
    elif a.step == "judge-cuts":
        from nonseq.verify.support import CLAIM_POINT
        from training.support_ce import cut

        figs = cut.judge_cuts(a.work, K, a.seed, a.threads, CLAIM_POINT)
        (a.work / "judge_cuts.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")
        print(json.dumps(figs))
    elif a.step == "judge-lr":
        from training.support_ce import learned

        figs = learned.judge_lr(a.work, K, a.seed, a.threads)
        figs["latency"] = learned.latency(a.work, a.threads, figs["model"])
        learned.write(a.work, figs)
        print(json.dumps({k: figs[k] for k in ("who-lr", "who+cut", "latency")}))
    elif a.step == "judge-lr-sentence":
        from training.support_ce import learned

        figs = learned.judge_lr_sentence(a.work, K, a.seed, a.threads)
        figs["latency"] = learned.latency(a.work, a.threads, figs["final"])
        (a.work / "judge_lr_sentence.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")
        print(json.dumps({k: figs[k] for k in ("who-lr/sentence", "who+cut", "latency")}))
    elif a.step == "judge-lr-few":
        from training.support_ce import learned

        figs = learned.judge_lr_few(a.work, K, a.seed, a.threads)
        (a.work / "judge_lr_few.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")
        print(json.dumps({k: figs[k] for k in ("paraphrase_swaps", "signs_as_meant")}))
    elif a.step == "latency":
        pairs = data.load(a.work / "pairs.jsonl")
        print(json.dumps([judge.latency(pairs, 200, t) for t in (1, 2)]))
    else:
        cmd_ship(a.work, a.sentence_cut)
    return 0


if __name__ == "__main__":
    sys.exit(main())
