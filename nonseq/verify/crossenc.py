"""The support cross-encoder: the claim and its source read together by one fine-tuned MiniLM.

A claim and a source window go in as one pair ([CLS] claim [SEP] source [SEP], the bundled MiniLM's
tokenizer); the model (data/support_ce.onnx, int8, all-MiniLM-L6-v2 fine-tuned by
`python -m training.support_ce`) gives one logit: does the window support the whole claim? Because
every claim word attends to every source word, it sees who does what, not only which words are shared
("Mozilla is a web browser" against "Firefox is a web browser ... Mozilla's flagship product").

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
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parent.parent / "data"
CONFIG = DATA / "support_ce.json"
MAX_LEN = 192  # tokens of one (claim, window) pair
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
    """True when the cross-encoder's config and model file ship with this copy."""
    return path.is_file() and (path.parent / config(path)["model"]).is_file()


class CrossEncoder:
    """P(supported) of (claim, source sentences) pairs from the shipped int8 cross-encoder."""

    def __init__(self, threads: int = 1, path: Path = CONFIG) -> None:
        from nonseq.verify.alignment import session

        cfg = config(path)
        self.max_len = int(cfg["max_len"])
        self.a, self.b = float(cfg["calibration"]["a"]), float(cfg["calibration"]["b"])
        self.sess = session(path.parent / cfg["model"], threads)

    def logits(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """The model's raw logit per (claim, window text) pair."""
        out = np.zeros(len(pairs), np.float32)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        for start in range(0, len(order), BATCH):
            idx = order[start:start + BATCH]
            feed = encode([pairs[i] for i in idx], self.max_len)
            out[idx] = self.sess.run(None, feed)[0].reshape(-1)
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
