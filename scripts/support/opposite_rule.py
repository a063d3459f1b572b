"""The opposite rule judged (nonseq.text.polarity: a claim word whose opposite the source says).

    python stack_support.py today && python opposite_rule.py   # -> WORK/opposite.json
    python opposite_rule.py --sentence   # also the sentence setting's out-of-fold figures (after train_support.py
                                         # states and cv --member k, k = 0..2: the shipped ensemble's logits)

Protocol, fixed before any figure was read. Candidate: the shipped check plus the opposite rule (the
claim against its three best-covering source sentences, all of them for a source of one or two); a
flagged pair is scaled under its setting's cut, as FActScore's rule does at the claim level. Nothing
is fitted: the LRs, the cuts and the word lists stay as they are (nonseq/text/polarity.py, sha256
42616420… when this protocol was written; after the judgement only a cache and a bounded look-behind
were added, the word lists unchanged, and every figure came out the same). Claim level over all five folds,
cross-fitted as `stack_support.py claim` (the rule's flag joins today's rule). Shipped only if:
(1) claim level, WiCE supported vs the rest falls by no more than 0.003 pooled; (2) claim level,
SciFact support vs contradiction rises pooled; (3) in the sentence setting (the writer's one or two
planned sentences) the rule fires on at most 2% of the positive pairs (SciFact support rationales,
WiCE supported oracle sentences). The sentence setting's firing rates per category are reported
rather than its AUROC: its out-of-fold figures need the head's cross-validation (`train_support.py
cv`), and the rule can only lower the pairs it fires on.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import stack_support as st  # noqa: E402
import train_support as ts  # noqa: E402
from support_data import HEADLINE, load_records, sentence_items  # noqa: E402

SHIPPED = "today+tok+rule"
POSITIVE = ("sf_support_rationale", "wice_supported_oracle")


def claim_level(today: dict[str, Any]) -> dict[str, Any]:
    """The claim level's out-of-fold figures with today's rule and with the opposite rule added, and the verdict."""
    t = st.claim_table()
    opposite = np.array([r["features"]["opposite"] > 0 for r in today["records"]])
    out: dict[str, Any] = {"fired": {str(k): int(v) for k, v in Counter(t["label"][opposite]).items()},
                           "records": {str(k): int(v) for k, v in Counter(t["label"]).items()}}
    for name, flags in (("shipped", None), ("with_opposite", st.flagged(t) | opposite)):
        p = st.cross_fitted(t, SHIPPED, "claim", flags=flags)
        out[name] = st.fold_figures(t, p, st.claim_stack_figures)
    old, new = (out[k]["pooled"] for k in ("shipped", "with_opposite"))
    out["passes"] = {
        "wice_holds": new["wice"]["auroc_supported_vs_rest"] - old["wice"]["auroc_supported_vs_rest"] >= -0.003,
        "scifact_contradiction_rises": new["scifact"]["auroc_supported_vs_contradict"]
        > old["scifact"]["auroc_supported_vs_contradict"]}
    return out


def sentence_setting(today: dict[str, Any]) -> dict[str, Any]:
    """How often the rule fires per category of the sentence setting's pairs, and the verdict."""
    items = [it for r in load_records() for it in sentence_items(r)]
    fired: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for it, row in zip(items, today["items"], strict=True):
        if it["cat"] in HEADLINE:
            total[it["cat"]] += 1
            fired[it["cat"]] += row["features"]["opposite"] > 0
    rates = {c: {"fired": fired[c], "pairs": total[c], "rate": round(fired[c] / total[c], 4)} for c in total}
    pos = sum(fired[c] for c in POSITIVE) / sum(total[c] for c in POSITIVE)
    return {"per_category": rates, "positive_rate": round(pos, 4), "passes": {"positives_at_most_2pc": pos <= 0.02}}


def sentence_figures(today: dict[str, Any]) -> dict[str, Any]:
    """Reported, not judged: the shipped sentence setting's out-of-fold figures with and without the rule
    (each fold's pairs scored by the LR and cut fitted on the other four; a flagged pair scaled by that cut)."""
    t = st.tables()["sentence"]
    t["ens"] = st.tables(st.ENSEMBLE)["sentence"]["head"]
    items = [it for r in load_records() for it in sentence_items(r)]
    fired = {(it["claim"], it["cat"], tuple(it["source"])): row["features"]["opposite"] > 0
             for it, row in zip(items, today["items"], strict=True)}
    opposite = np.array([fired[(it["claim"], it["cat"], tuple(it["source"]))] for it in items if it["cat"] in HEADLINE])
    p = st.cross_fitted(t, "ens+today", "sentence")
    q = p.copy()
    for f in np.unique(t["fold"]):
        tr, te = t["fold"] != f, t["fold"] == f
        cut = st.choose_cut("sentence", p[tr], t["y"][tr].astype(bool))
        q[te] = np.where(opposite[te], p[te] * cut, p[te])
    return {name: {**st.fold_figures(t, s, st.sentence_stack_figures),
                   "at_cut": st.cross_fitted_cut_report(t, s, "sentence")}
            for name, s in (("shipped", p), ("with_opposite", q))}


def main() -> int:
    """Judge the rule by the protocol; print and save the figures."""
    today = json.loads((ts.WORK / "today_features.json").read_text())
    report = {"protocol": __doc__.split("\n\n")[2].strip(), "claim": claim_level(today),
              "sentence": sentence_setting(today)}
    if "--sentence" in sys.argv[1:]:
        report["sentence_out_of_fold"] = sentence_figures(today)
        for name, r in report["sentence_out_of_fold"].items():
            print(f"sentence {name:14} {json.dumps(r['pooled'])} at the cut {json.dumps(r['at_cut']['pooled'])}")
    report["shipped"] = all(report["claim"]["passes"].values()) and all(report["sentence"]["passes"].values())
    (ts.WORK / "opposite.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    c = report["claim"]
    for name in ("shipped", "with_opposite"):
        w, s = c[name]["pooled"]["wice"], c[name]["pooled"]["scifact"]
        per = [f["wice"]["auroc_supported_vs_rest"] for f in c[name]["per_fold"]]
        print(f"{name:14} WiCE vs rest {w['auroc_supported_vs_rest']} vs partial {w['auroc_supported_vs_partial']} "
              f"(folds {per}) | SciFact vs rest {s['auroc_supported_vs_rest']} "
              f"vs contradict {s['auroc_supported_vs_contradict']}")
    print("claim records fired:", c["fired"], "of", c["records"])
    print("sentence setting:", json.dumps(report["sentence"]["per_category"]))
    print("positive rate:", report["sentence"]["positive_rate"], "| passes:", c["passes"],
          report["sentence"]["passes"], "| shipped:", report["shipped"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
