"""Train the support head: the bundled int8 MiniLM reads each (claim, window) pair together; a small MLP learns
P(the window supports the whole claim) from the pooled states.

The pair features come from nonseq.verify.crossenc.pair_features, the product's own code, so training and
run time read a pair the same way. The MLP (standardise, 64 ReLU units, one logit) is trained in torch
(AdamW, BCE, seeded) and saved as plain arrays that crossenc.Head applies in numpy.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from nonseq.verify.crossenc import MAX_LEN, pair_features, windows
from training.support_ce.data import Pair, best_window

HIDDEN = 64
EPOCHS = 30
LR = 1e-3
WEIGHT_DECAY = 1e-2
DROPOUT = 0.2


def texts(pairs: list[Pair]) -> list[tuple[str, str]]:
    """(claim, window text) as the model reads them: a long source's likeliest window."""
    return [(p.claim, " ".join(best_window(p.claim, p.source))) for p in pairs]


def encoder(threads: int) -> Any:
    """The bundled int8 MiniLM session (what the product runs)."""
    from nonseq.index.embed import bundled_onnx_path
    from nonseq.verify.alignment import session

    return session(bundled_onnx_path(), threads)


def features(pairs: list[tuple[str, str]], threads: int, log: Any = None, chunk: int = 64) -> np.ndarray:
    """The product's pair features, computed in chunks (progress to log)."""
    sess = encoder(threads)
    out, started = [], time.time()
    for i in range(0, len(pairs), chunk):
        out.append(pair_features(sess, pairs[i:i + chunk], MAX_LEN))
        if log is not None:
            print(f"features {i + len(out[-1])}/{len(pairs)} {time.time() - started:.0f} s", file=log, flush=True)
    return np.concatenate(out) if out else np.zeros((0, 0), np.float32)


def window_pairs(items: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Every (claim, window) of judged items, and the item each belongs to."""
    flat, owner = [], []
    for i, it in enumerate(items):
        for w in windows(it["claim"], it["source"]):
            flat.append((it["claim"], w))
            owner.append(i)
    return flat, np.array(owner, int)


def fit_head(x: np.ndarray, y: np.ndarray, seed: int, epochs: int = EPOCHS) -> dict[str, np.ndarray]:
    """The MLP fitted on features x and labels y (class-balanced BCE), as numpy arrays."""
    import torch

    torch.manual_seed(seed)
    mean, scale = x.mean(0), x.std(0)
    scale[scale < 1e-6] = 1.0
    xt = torch.from_numpy(((x - mean) / scale).astype(np.float32))
    yt = torch.from_numpy(y.astype(np.float32))
    net = torch.nn.Sequential(torch.nn.Dropout(DROPOUT), torch.nn.Linear(x.shape[1], HIDDEN), torch.nn.ReLU(),
                              torch.nn.Dropout(DROPOUT), torch.nn.Linear(HIDDEN, 1))
    opt = torch.optim.AdamW(net.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    pos = float(yt.mean())
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((1 - pos) / max(pos, 1e-6)))
    gen = torch.Generator().manual_seed(seed)
    net.train()
    for _ in range(epochs):
        for idx in torch.randperm(len(xt), generator=gen).split(128):
            loss = loss_fn(net(xt[idx]).squeeze(-1), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    net.eval()
    lin1, lin2 = net[1], net[4]
    return {"mean": mean.astype(np.float32), "scale": scale.astype(np.float32),
            "w1": lin1.weight.detach().numpy().T.copy(), "b1": lin1.bias.detach().numpy().copy(),
            "w2": lin2.weight.detach().numpy().T.copy(), "b2": lin2.bias.detach().numpy().copy()}


def torch_logits(head: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    """The head's logits computed in torch, as at training time (the check of one code path)."""
    import torch

    with torch.no_grad():
        z = (torch.from_numpy(x) - torch.from_numpy(head["mean"])) / torch.from_numpy(head["scale"])
        z = torch.relu(z @ torch.from_numpy(head["w1"]) + torch.from_numpy(head["b1"]))
        return (z @ torch.from_numpy(head["w2"]) + torch.from_numpy(head["b2"])).numpy().reshape(-1)


def save_head(head: dict[str, np.ndarray], path: Path) -> None:
    """The head's arrays as float32 npz."""
    np.savez_compressed(path, **{k: v.astype(np.float32) for k, v in head.items()})
