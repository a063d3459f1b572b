"""The head trained with partial claims, judged by a protocol fixed first.

    SUPPORT_WORK=... python train_support.py states --partial      # the partial claims' token states
    SUPPORT_WORK=... python train_support.py cv --partial          # member 0 with them, every fold
    SUPPORT_WORK=... python stack_partial.py                       # after cv (plain and --partial), today

WiCE calls a claim partially supported when its source backs some of its parts and not all. The
head learns that only from WiCE's own partial rows; SciFact has none. `cv --partial` adds, in each
fold's training part, supported pairs made partial (support_data.partial_claims). Nothing is
shipped by this command: its judgement is written to WORK/partial.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stack_support as st  # noqa: E402
import train_support as ts  # noqa: E402

PARTIAL_PROTOCOL = (
    "Fixed before any figure of this candidate was read: the head of member 0 (seed 13+fold, 6 epochs, "
    "same architecture) trained with partial claims added to each fold's training part: for every supported pair, "
    "with probability 0.5 (own rng, seed 13+fold+7919), '<claim>, and <other claim>', the other claim being, of 20 "
    "claims sampled from records of the same data set in another group of the training part, the one sharing most "
    "content words with the claim; target s=0, r the pair's own. Baseline: member 0 without them. Judged once on "
    "all five folds, each scored by LRs fitted on the other four (every fold has been read by earlier candidates). "
    "Sentence setting head+today: the sentence rule pooled (AUROC +0.005, WiCE AUROC falls <= 0.005, pooled precision "
    "at the cross-fitted cut does not fall) and the AUROC lower on at most 2 of 5 folds. Claim level: today+tok+rule "
    "(shipped) vs head+today+tok+rule over the candidate head's claim columns: pooled WiCE supported-vs-rest "
    "+0.005, supported-vs-partial falls <= 0.005, lower on at most 2 of 5 folds. Reported, not judged: the plain "
    "head's head+today+tok+rule, and both heads' raw logits. Nothing is shipped by this command.")


def head_tables(tag: str) -> dict[str, dict[str, Any]]:
    """Both settings' tables over the out-of-fold predictions saved under a prediction tag."""
    ts.PRED_TAG = tag
    try:
        return st.tables()
    finally:
        ts.PRED_TAG = ""


def main() -> int:
    """Judge the partial-claims head at both levels by PARTIAL_PROTOCOL; write WORK/partial.json."""
    plain, partial = head_tables(""), head_tables("_partial")
    shipped_claim = st.claim_table()
    for setting in ("claim", "sentence"):
        for key in ("y", "fold", "ds"):
            assert (plain[setting][key] == partial[setting][key]).all(), f"{setting} rows out of step ({key})"
    assert (shipped_claim["y"] == partial["claim"]["y"]).all(), "claim rows out of step"
    claim = {"shipped": st.all_folds(shipped_claim, "today+tok+rule", "claim"),
             "partial_head": st.all_folds(partial["claim"], "head+today+tok+rule", "claim"),
             "plain_head": st.all_folds(plain["claim"], "head+today+tok+rule", "claim")}
    sentence = {"plain_head": st.all_folds(plain["sentence"], "head+today", "sentence"),
                "partial_head": st.all_folds(partial["sentence"], "head+today", "sentence")}
    verdict = st.all_folds_verdict((claim["shipped"], claim["partial_head"]),
                                   (sentence["plain_head"], sentence["partial_head"]))
    raw = {}
    for name, tag in (("plain_head", ""), ("partial_head", "_partial")):
        ts.PRED_TAG = tag
        raw[name] = st.raw_head_figures(*ts.merged(st.EPOCH), tuple(range(ts.FOLDS)))
    ts.PRED_TAG = ""
    report = {"protocol": PARTIAL_PROTOCOL, "claim": claim, "sentence": sentence, "raw_all_folds": raw, **verdict}
    (ts.WORK / "partial.json").write_text(json.dumps(report, indent=1, default=float), encoding="utf-8")
    print(json.dumps({"claim_wice": {k: v["pooled"]["wice"] for k, v in claim.items()},
                      "sentence": {k: v["pooled"] | {"at_cut": v["at_cut"]["pooled"]} for k, v in sentence.items()},
                      "raw_all_folds": raw, **verdict}, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
