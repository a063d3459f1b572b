"""The support head: an alignment head on the product encoder's token states, trained with torch.

    python -m training.support_head states              # encode every text once (nonseq's TokenEncoder)
    python -m training.support_head cv --member K       # grouped folds: train, predict out of fold
    python -m training.support_head final-train --member K
    python -m training.support_head export --members 3  # the members' mean as one ONNX graph

What ships is a seed ensemble of three members (k = 0, 1, 2: seed + 100 k), their logits averaged
in one ONNX graph (support_head.onnx). Each member trains with AdamW (linear warm-up, cosine decay)
on SciFact train + WiCE dev examples (data.py); a fold's member never sees its test claims.
Features: the token states of nonseq.verify.alignment.TokenEncoder (features.py), exactly what the
running check feeds the head. torch is needed here only; the product runs the ONNX graph.
"""

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812

from training.support_head import paths
from training.support_head.data import Example, assign_folds, load_records, sentence_items, training_examples
from training.support_head.features import States, log

SEED, FOLDS, TUNE_FOLD = 13, 5, 4
MEMBER_SEED = 100  # member k of a seed ensemble trains with seed + 100 k
D, DROPOUT, LR, WD, BATCH, R_WEIGHT = 128, 0.1, 1e-3, 0.01, 32, 0.5
EPOCHS = 6
FINAL_SEED = 1000
DIM = 384


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


def all_examples(limit: int = 0) -> dict[str, list[Example]]:
    """The training examples of every fold and of the final model (deterministic)."""
    recs = load_records(limit)
    fold_of = assign_folds(recs, FOLDS)
    out = {f"fold{f}": training_examples([r for r in recs if fold_of[r.group] != f], SEED + f)
           for f in range(FOLDS)}
    out["final"] = training_examples(recs, FINAL_SEED)
    return out


def tensors(pairs: list[tuple[str, list[str]]], states: States) -> tuple[torch.Tensor, ...]:
    """Padded claim/source states and masks for (claim, sentences) pairs."""
    cs = [states[c] for c, _ in pairs]
    ss = [np.concatenate([states[s] for s in src]) if src else np.zeros((1, DIM), np.float16) for _, src in pairs]
    b, n, m = len(pairs), max(len(c) for c in cs), max(len(s) for s in ss)
    claim, source = torch.zeros((b, n, DIM)), torch.zeros((b, m, DIM))
    cmask, smask = torch.zeros((b, n)), torch.zeros((b, m))
    for i, (c, s) in enumerate(zip(cs, ss, strict=True)):
        claim[i, :len(c)], cmask[i, :len(c)] = torch.from_numpy(c.astype(np.float32)), 1
        source[i, :len(s)], smask[i, :len(s)] = torch.from_numpy(s.astype(np.float32)), 1
    return claim, cmask, source, smask


def source_len(src: list[str], states: States) -> int:
    """Tokens of a source (its sentences' states together)."""
    return sum(len(states[s]) for s in src)


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
def predict(model: nn.Module, pairs: list[tuple[str, list[str]]], states: States) -> np.ndarray:
    """(N, 2) logits (supported, relevant)."""
    model.eval()
    out = np.zeros((len(pairs), 2), np.float32)
    for idx in batches([source_len(p[1], states) for p in pairs], 64, None):
        out[idx] = model(*tensors([pairs[i] for i in idx], states)).numpy()
    return out


def loss_of(logits: torch.Tensor, s: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """BCE on the known 'supported' targets plus R_WEIGHT times BCE on the known 'relevant' ones."""
    total = logits.new_zeros(())
    for col, y, w in ((0, s, 1.0), (1, r, R_WEIGHT)):
        known = y >= 0
        if known.any():
            total = total + w * F.binary_cross_entropy_with_logits(logits[known, col], y[known].float())
    return total


def train(examples: list[Example], epochs: int, seed: int, states: States) -> Head:
    """A head trained on examples: AdamW, linear warm-up (one epoch's 10%) then cosine decay."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    model = Head()
    pairs = [(e.claim, e.source) for e in examples]
    lengths = [source_len(p[1], states) for p in pairs]
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
            loss = loss_of(model(*tensors([pairs[i] for i in idx], states)), s[idx], r[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            losses.append(loss.item())
        log(f"epoch {epoch}: loss {np.mean(losses):.4f} ({time.time() - started:.0f}s)")
    return model


def fold_predictions(model: nn.Module, fold: int, states: States, limit: int = 0) -> dict[str, Any]:
    """The fold's sentence items (the writer's setting) scored by a model trained on the other folds."""
    recs = load_records(limit)
    fold_of = assign_folds(recs, FOLDS)
    items = [it for r in recs if fold_of[r.group] == fold for it in sentence_items(r)]
    lg = predict(model, [(it["claim"], it["source"]) for it in items], states)
    for it, v in zip(items, lg, strict=True):
        it["s"], it["r"] = round(float(v[0]), 4), round(float(v[1]), 4)
    return {"fold": fold, "items": items}


def run_cv(folds: list[int], epochs: int, states: States, member: int = 0, limit: int = 0) -> None:
    """Train on the other folds (seed SEED + fold + MEMBER_SEED * member); save each listed fold's predictions."""
    recs = load_records(limit)
    fold_of = assign_folds(recs, FOLDS)
    exs = all_examples(limit)
    for fold in folds:
        test_claims = {r.claim for r in recs if fold_of[r.group] == fold}
        train_ex = exs[f"fold{fold}"]
        assert not test_claims & {e.claim for e in train_ex}, "a test claim is in training"
        started = time.time()
        model = train(train_ex, epochs, SEED + fold + MEMBER_SEED * member, states)
        out = fold_predictions(model, fold, states, limit)
        paths.prediction(fold, member).write_text(json.dumps(out), encoding="utf-8")
        log(f"fold {fold}: {len(train_ex)} examples, {time.time() - started:.0f}s")


def member_predictions(members: int) -> list[dict[str, Any]]:
    """Every fold's out-of-fold sentence items, each logit the mean over members 0..members-1."""
    out = []
    for f in range(FOLDS):
        preds = [json.loads(paths.prediction(f, m).read_text(encoding="utf-8")) for m in range(members)]
        first = preds[0]
        for i, it in enumerate(first["items"]):
            for k in ("s", "r"):
                it[k] = round(float(np.mean([p["items"][i][k] for p in preds])), 4)
        out += [it | {"fold": f} for it in first["items"]]
    return out


def final_train(states: States, epochs: int = EPOCHS, member: int = 0, limit: int = 0) -> None:
    """Train the head on every example (seed FINAL_SEED + MEMBER_SEED * member); save its weights."""
    exs = all_examples(limit)["final"]
    started = time.time()
    seed = FINAL_SEED + MEMBER_SEED * member
    model = train(exs, epochs, seed, states)
    torch.save(model.state_dict(), paths.final(member, "pt"))
    info = {"examples": len(exs), "epochs": epochs, "seed": seed, "seconds": round(time.time() - started)}
    paths.final(member, "json").write_text(json.dumps(info), encoding="utf-8")
    log(f"final member {member}: {len(exs)} examples, {time.time() - started:.0f}s")


def export(model: nn.Module, path: Path) -> None:
    """The head as ONNX (opset 17; batch, claim and source lengths dynamic)."""
    model.eval()
    args = (torch.zeros(1, 5, 384), torch.ones(1, 5), torch.zeros(1, 7, 384), torch.ones(1, 7))
    names = ["claim", "claim_mask", "source", "source_mask"]
    axes = {"claim": {0: "b", 1: "n"}, "claim_mask": {0: "b", 1: "n"}, "source": {0: "b", 1: "m"},
            "source_mask": {0: "b", 1: "m"}, "logits": {0: "b"}}
    torch.onnx.export(model, args, str(path), input_names=names, output_names=["logits"],
                      dynamic_axes=axes, opset_version=17, dynamo=False)


def export_members(members: int, out: Path) -> dict[str, Any]:
    """Export the final members' mean as one ONNX (out/support_head.onnx); its provenance."""
    heads = []
    for m in range(members):
        head = Head()
        head.load_state_dict(torch.load(paths.final(m, "pt")))
        heads.append(head)
    export(Ensemble(heads), out / "support_head.onnx")
    infos = [json.loads(paths.final(m, "json").read_text(encoding="utf-8")) for m in range(members)]
    info = {"members": members, "seeds": [FINAL_SEED + MEMBER_SEED * m for m in range(members)],
            "examples": infos[0]["examples"], "epochs": infos[0]["epochs"],
            "seconds": sum(i["seconds"] for i in infos), "size_bytes": (out / "support_head.onnx").stat().st_size}
    paths.work().joinpath("head_final_ens.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    log(f"exported {members} members, {info['size_bytes']} bytes")
    return info
