"""Support-check benchmark: does a source support a claim? WiCE and SciFact, claim and sentence level.

    python bench/support.py [--data PATH ...] [--corpus PATH] [--limit N] [--threads N]
                             [--check stack|roles|legacy] [--json]

AttributionBench's format (`claim`, `references`: a list of passages or a Python-literal string of
one, `attribution_label`, `src_dataset`, optional `question` and `id`) is read through
nonseq.verify.support.check_support, the product's calibrated P(supported), at its decision point 0.5:
macro-F1 in percent per `src_dataset` set and their plain mean (as the AttributionBench paper
computes it), AUROC, milliseconds per claim, and the paper's published rows beside ours. `--check
stack` reads the same rows through the stack at 0.5 without the check of who does what, `--check roles`
with the third amendment's parse rule, and `--check legacy` through the word-overlap stack
(SupportChecker, at its own cuts).
Scores each data set with the shipped nonseq.verify.support.SupportChecker and never refits:
- claim level: each claim against its whole source (a WiCE evidence chunk, a SciFact abstract):
  AUROC of supported vs the rest and vs the closest other label (WiCE partially supported, SciFact
  CONTRADICT), precision and recall at the shipped cut, seconds per claim;
- sentence setting (the writer's check): a claim against the one or two sentences a writer would
  plan: SciFact's rationale sentences (SUPPORT positive, CONTRADICT negative; an NEI claim against
  its abstract's most overlapping sentence), WiCE's oracle sentences (`meta.oracle_idx`, at most 2;
  supported positive, partially supported negative; a not-supported claim against its chunk's most
  overlapping sentence): AUROC, precision and recall at the shipped cut (and at 0.5 and the writer's
  `[writing] min_support`, the score a sentence in the model's words needs), milliseconds per check
  (one call per pair, as the writer makes them; wall and CPU; cold, and with the sources encoded).
--data takes WiCE jsonl (`label`, `claim`, `evidence`, `meta`), SciFact's claims_train.jsonl
(`label`, `rationale`, `sentences`) or SciFact's own claims format (`evidence` by doc id,
`cited_doc_ids`; the abstracts from --corpus: SciFact's corpus.jsonl with `abstract` sentences, or the
BEIR corpus with `text`). The shipped model was fitted on WiCE dev and SciFact train: figures on
those two files are in-sample; the honest ones are the out-of-fold figures in support_head.json's
provenance (training/support_head/stack.py). The top-level keys are those of the first data set.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from nonseq.config import WritingSettings  # noqa: E402
from nonseq.verify.alignment import STOP_WORDS  # noqa: E402
from nonseq.verify.support import SupportChecker, source_units, support_scores  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: nonseq, devkit, bench
from devkit.data import DATA as SHARED  # noqa: E402 - after the path setup

DEFAULT_DATA = SHARED / "wice" / "dev.jsonl"
PUBLISHED = {
    "source": "Kamoi et al. 2023, WiCE, test split, claim level",
    "auroc_supported_vs_rest": {"gpt-4": 0.802, "t5-3b-anli-wice": 0.947, "gpt-3.5": 0.569},
    "auroc_supported_vs_partial": {"gpt-4": 0.789, "t5-3b-anli-wice": 0.943},
}
PUBLISHED_AB = {
    "source": "Li et al. 2024, AttributionBench, macro-F1 (%), in-distribution / out-of-distribution averages",
    "zero-shot GPT-4": {"id": 67.2, "ood": 78.0},
    "zero-shot T5-XXL-TRUE": {"id": 72.2, "ood": 80.5},
    "fine-tuned AttrScore-FLAN-T5-3B": {"id": 77.7, "ood": 84.2},
}
_WORD = re.compile(r"[a-z0-9]+")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, action="append", help="WiCE or SciFact jsonl (repeatable)")
    p.add_argument("--corpus", type=Path, help="SciFact abstracts, for the SciFact claims format")
    p.add_argument("--limit", type=int, default=0, help="Only the first N claims of each file")
    p.add_argument("--threads", type=int, default=0,
                   help="onnxruntime threads of the check (default 0 = all cores, as `[embedding] threads` ships)")
    p.add_argument("--check", choices=("product", "stack", "roles", "legacy"), default="product",
                   help="AttributionBench rows: check_support at 0.5 (product: the stack read with who does what),"
                        " the stack at 0.5 alone (stack) or with the third amendment's parse rule (roles), or the"
                        " word-overlap stack at its own cuts (legacy)")
    p.add_argument("--json", action="store_true", help="Print one JSON object")
    return p.parse_args(argv)


# -- data --------------------------------------------------------------------------------------
def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a jsonl file."""
    if not path.is_file():
        raise SystemExit(f"no data at {path}")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def abstracts(path: Path | None) -> dict[str, list[str]]:
    """SciFact abstracts by doc id: `abstract` sentences (SciFact) or `text` split (BEIR)."""
    if path is None:
        raise SystemExit("the SciFact claims format needs --corpus (corpus.jsonl)")
    out = {}
    for row in read_jsonl(path):
        doc = str(row.get("doc_id", row.get("_id")))
        out[doc] = list(row["abstract"]) if "abstract" in row else source_units(row.get("text", ""))
    return out


def scifact_rows(rows: list[dict[str, Any]], corpus: Path | None) -> list[dict[str, Any]]:
    """SciFact's claims format (evidence by doc id) as claims_train-style rows, one per cited abstract."""
    docs = abstracts(corpus)
    out = []
    for r in rows:
        for doc in map(str, r.get("cited_doc_ids") or r.get("evidence", {})):
            ev = r.get("evidence", {}).get(doc) or []
            label = ev[0]["label"] if ev else "NOT_ENOUGH_INFO"
            label = {"SUPPORTS": "SUPPORT", "REFUTES": "CONTRADICT"}.get(label, label)
            rationale = sorted({i for e in ev for i in e["sentences"]})
            out.append({"claim": r["claim"], "label": label, "rationale": rationale, "sentences": docs[doc]})
    return out


def attribution_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """AttributionBench rows as (claim, references, positive, set)."""
    out = []
    for r in rows:
        refs = r["references"]
        if isinstance(refs, str):
            refs = ast.literal_eval(refs) if refs.strip().startswith("[") else [refs]
        out.append({"claim": r["claim"], "references": [str(x) for x in refs], "set": str(r["src_dataset"]),
                    "positive": str(r["attribution_label"]).strip().lower() == "attributable"})
    return out


def load(path: Path, corpus: Path | None, limit: int = 0) -> tuple[str, list[dict[str, Any]]]:
    """A data set's kind ("wice" or "scifact") and its rows as (claim, label, sentences, evidence)."""
    rows = read_jsonl(path)
    if rows and "attribution_label" in rows[0]:
        out = attribution_rows(rows)
        kind = "attributionbench"
    elif rows and "meta" in rows[0]:
        out = [{"claim": r["claim"], "label": r["label"], "sentences": r["evidence"],
                "evidence": oracle(r["meta"])} for r in rows]
        kind = "wice"
    else:
        if rows and "sentences" not in rows[0]:
            rows = scifact_rows(rows, corpus)
        out = [{"claim": r["claim"], "label": r["label"], "sentences": r["sentences"],
                "evidence": sorted(r["rationale"])} for r in rows]
        kind = "scifact"
    return kind, out[:limit] if limit else out


def oracle(meta: dict[str, Any]) -> list[int]:
    """WiCE's oracle sentences as positions in the evidence chunk."""
    want = set(meta.get("oracle_idx") or [])
    return [j for j, x in enumerate(meta.get("chunk_idx") or []) if x in want]


def overlap(claim: str, sentence: str) -> float:
    """The share of the claim's content words in a sentence."""
    c = {w for w in _WORD.findall(claim.lower()) if w not in STOP_WORDS}
    s = {w for w in _WORD.findall(sentence.lower()) if w not in STOP_WORDS}
    return len(c & s) / len(c) if c else 0.0


def sentence_pairs(kind: str, rows: list[dict[str, Any]]) -> list[tuple[str, list[str], bool, str]]:
    """The sentence setting: (claim, one or two planned sentences, supported, category)."""
    out = []
    for r in rows:
        ev, sents = r["evidence"], r["sentences"]
        top = sorted((i for i in range(len(sents)) if i not in ev), key=lambda i: (-overlap(r["claim"], sents[i]), i))
        if kind == "scifact" and ev and r["label"] in ("SUPPORT", "CONTRADICT"):
            out.append((r["claim"], [sents[i] for i in ev], r["label"] == "SUPPORT", r["label"].lower()))
        elif kind == "wice" and ev and len(ev) <= 2 and r["label"] != "not_supported":
            out.append((r["claim"], [sents[i] for i in ev], r["label"] == "supported", r["label"]))
        elif not ev and top:
            out.append((r["claim"], [sents[top[0]]], False, "no_evidence_top"))
    return out


# -- figures -----------------------------------------------------------------------------------
def auroc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """Area under the ROC curve (Mann-Whitney U, ties averaged); None without both classes."""
    s, y = np.asarray(scores, dtype=float), np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if not n_pos or not n_neg:
        return None
    _, inv, counts = np.unique(s, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2)[inv]
    return round(float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)), 4)


def macro_f1(pred: Sequence[bool] | np.ndarray, positive: Sequence[bool] | np.ndarray) -> float:
    """Macro-F1 in percent over the two classes (a class never predicted nor present scores 0)."""
    p, y = np.asarray(pred, bool), np.asarray(positive, bool)
    f1s = []
    for cls in (True, False):
        tp = int(((p == cls) & (y == cls)).sum())
        fp, fn = int(((p == cls) & (y != cls)).sum()), int(((p != cls) & (y == cls)).sum())
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return round(100 * float(np.mean(f1s)), 1)


def attribution(rows: list[dict[str, Any]], check: str, threads: int) -> dict[str, Any]:
    """AttributionBench figures: macro-F1 per set and averaged at the decision point, AUROC, ms per claim."""
    pairs = [(r["claim"], r["references"]) for r in rows]
    started, cpu = time.perf_counter(), time.process_time()
    if check == "legacy":
        results = SupportChecker(threads=threads).check_many(pairs)
        scores, pred = np.array([x.score for x in results]), np.array([x.supported for x in results])
    else:
        scores = np.array(support_scores(pairs, threads=threads, roles=check == "roles", who=check == "product"))
        pred = scores >= 0.5
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    y = np.array([r["positive"] for r in rows])
    sets = np.array([r["set"] for r in rows])
    per = {str(s): macro_f1(pred[sets == s], y[sets == s]) for s in sorted(set(sets))}
    decision = "the stack's cuts" if check == "legacy" else "score >= 0.5"
    return {"claims": len(rows), "check": check, "decision": decision,
            "macro_f1": {"average": round(float(np.mean(list(per.values()))), 1), "per_set": per},
            "auroc": auroc(scores, y), "auroc_per_set": {s: auroc(scores[sets == s], y[sets == s]) for s in per},
            "ms_per_claim": round(1000 * seconds / max(1, len(rows)), 2),
            "cpu_ms_per_claim": round(1000 * cpu / max(1, len(rows)), 2), "published": PUBLISHED_AB}


def at_cut(scores: np.ndarray, positive: np.ndarray, cut: float) -> dict[str, Any]:
    """Precision and recall of `score >= cut` (precision None when nothing is called supported)."""
    pred = scores >= cut
    tp = int((pred & positive).sum())
    return {"cut": round(cut, 4), "precision": round(tp / int(pred.sum()), 4) if pred.any() else None,
            "recall": round(tp / int(positive.sum()), 4) if positive.any() else None,
            "called_supported": int(pred.sum())}


def claim_level(checker: SupportChecker, kind: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Each claim against its whole source: AUROCs, the cut's precision/recall, seconds per claim."""
    started, cpu = time.perf_counter(), time.process_time()
    results = checker.check_many([(r["claim"], r["sentences"]) for r in rows])
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    scores = np.array([r.score for r in results])
    labels = np.array([r["label"] for r in rows])
    pos = labels == ("supported" if kind == "wice" else "SUPPORT")
    near = labels == ("partially_supported" if kind == "wice" else "CONTRADICT")
    out: dict[str, Any] = {"claims": len(rows), "auroc_supported_vs_rest": auroc(scores, pos)}
    out["auroc_supported_vs_partial" if kind == "wice" else "auroc_supported_vs_contradict"] = \
        auroc(scores[pos | near], pos[pos | near])
    cuts = np.array([checker.stacks["sentence" if "whole" in r.features else "claim"].cut if checker.stacks
                     else checker.cut for r in results])
    out |= at_cut(scores - cuts + checker.cut, pos, checker.cut)  # each pair against its own setting's cut
    out |= {"seconds_per_claim": round(seconds / max(1, len(rows)), 4), "seconds_total": round(seconds, 1),
            "cpu_seconds_total": round(cpu, 1)}
    return out


def timed(checker: SupportChecker, claim: str, source: list[str], acc: list[float]) -> float:
    """One check's score; its wall and CPU seconds are added to acc."""
    t0, c0 = time.perf_counter(), time.process_time()
    score = checker.scores([(claim, source)])[0]
    acc[0] += time.perf_counter() - t0
    acc[1] += time.process_time() - c0
    return score


def sentence_level(checker: SupportChecker, kind: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The writer's setting: AUROC, precision/recall at the shipped cut, ms per check (one call each)."""
    pairs = sentence_pairs(kind, rows)
    if not pairs:
        return {"pairs": 0}
    scores, cold, warm = [], [0.0, 0.0], [0.0, 0.0]
    for claim, source, _, _ in pairs:
        checker.encoder.memo.clear()  # cold: the claim and its sources are encoded in the call
        scores.append(timed(checker, claim, source, cold))
        checker.encoder.memo.clear()
        checker.encoder.states(source_units(source))  # the writer's case: planned sources already encoded
        timed(checker, claim, source, warm)
    s = np.array(scores)
    y = np.array([p[2] for p in pairs])
    cat = np.array([p[3] for p in pairs])
    near = "partially_supported" if kind == "wice" else "contradict"
    m = y | (cat == near)
    cut = checker.stacks["sentence"].cut if checker.stacks else checker.cut
    out: dict[str, Any] = {"pairs": len(pairs), "positives": int(y.sum()), "auroc": auroc(s, y),
                           "auroc_supported_vs_" + ("partial" if kind == "wice" else "contradict"): auroc(s[m], y[m])}
    out |= at_cut(s, y, cut)
    out["at_0.5"] = at_cut(s, y, 0.5)
    out["at_writer_min_support"] = at_cut(s, y, WritingSettings().min_support)  # what the writer gates on
    out["called_supported_by_category"] = {str(c): round(float((s[cat == c] >= cut).mean()), 4)
                                           for c in np.unique(cat)}
    n = len(pairs)
    out |= {"ms_per_check": round(1000 * cold[0] / n, 2), "cpu_ms_per_check": round(1000 * cold[1] / n, 2),
            "ms_per_check_sources_encoded": round(1000 * warm[0] / n, 2),
            "cpu_ms_per_check_sources_encoded": round(1000 * warm[1] / n, 2)}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark on each data set and print the figures."""
    args = parse_args(argv)
    checker = SupportChecker(threads=args.threads)
    checker.check("warm up the models.", ["Warm up the models."])
    if args.check != "legacy":
        support_scores([("Warm up the model.", ["Warm up the model."])], threads=args.threads)
    sets: dict[str, Any] = {}
    for path in args.data or [DEFAULT_DATA]:
        kind, rows = load(path, args.corpus, args.limit)
        if kind == "attributionbench":
            sets[path.stem if path.stem not in sets else str(path)] = {"kind": kind, "data": str(path)} | \
                attribution(rows, args.check, args.threads)
            continue
        figs = {"kind": kind, "data": str(path)} | claim_level(checker, kind, rows)
        figs["sentence"] = sentence_level(checker, kind, rows)
        sets[path.stem if path.stem not in sets else str(path)] = figs
    first = next(iter(sets.values()))
    keys = ("data", "claims", "check", "decision", "macro_f1", "auroc", "auroc_per_set", "ms_per_claim") \
        if first["kind"] == "attributionbench" else (
        "data", "claims", "auroc_supported_vs_rest", "auroc_supported_vs_partial", "cut", "precision", "recall",
        "seconds_per_claim", "seconds_total", "cpu_seconds_total")
    out: dict[str, Any] = {k: first.get(k) for k in keys}
    out["sets"] = sets
    out["threads"] = args.threads
    out["note"] = ("the shipped model was fitted on WiCE dev and SciFact train: figures on them are in-sample; "
                   "out-of-fold figures: nonseq/data/support_head.json['cv']")
    out["published"] = PUBLISHED_AB if first["kind"] == "attributionbench" else PUBLISHED
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:28} {json.dumps(value) if isinstance(value, dict) else value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
