"""The ninth amendment's candidate (PROTOCOL.md): `who-lr`, a logistic regression over the stack's score and the
parse's reading of who does what, trained on the made and real rows of folds 1-4 and judged once on fold 0's items
beside `check_support` as shipped (`who+cut`) and the stack, on the same rows."""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nonseq.text.furniture import FOOTNOTE_NUMBER
from nonseq.verify.roles import _QUOTES, _names, _role, exchanged_role  # the product's parse reading, read as is
from training.support_ce import judge
from training.support_ce.blend import weights
from training.support_ce.data import REAL_KINDS, fold_of, load, read_jsonl

JUDGED_FOLD = 0
WHO_LR_SETTING = 1  # the column of WHO_LR_INPUTS that is 1 in the claim setting
CHUNK = 400


def rows(work: Path, k: int, seed: int) -> list[dict[str, Any]]:
    """Every row of every fold: the judged sets' items and the made pairs (set "made"), each with its fold."""
    pairs = load(work / "pairs.jsonl")
    swaps = [r | {"fold": i} for i in range(k) for r in read_jsonl(work / f"swaps_fold{i}.jsonl")]
    out = [it | {"fold": r["fold"]} for it, r in zip(judge.eval_items([], swaps)[-len(swaps):], swaps, strict=True)]
    out += [it | {"fold": fold_of(it["group"], k, seed)} for it in judge.eval_items(pairs, []) if it["set"] != "swaps"]
    for p in pairs:
        if p.kind not in REAL_KINDS:
            out.append({"set": "made", "sub": p.kind, "claim": p.claim, "source": p.source, "y": p.label,
                        "group": p.group, "fold": fold_of(p.group, k, seed)})
    return out


def features(items: list[dict[str, Any]], threads: int, cache: Path) -> tuple[np.ndarray, np.ndarray]:
    """The model's inputs per item (`who_lr_inputs`) and `check_support`'s shipped score
    (`who+cut`), computed in chunks and kept in `cache`."""
    from nonseq.verify.support import CLAIM_POINT, at_half, read_with_who, stack_results

    if cache.is_file():
        got = np.load(cache)
        return got["x"], got["shipped"]
    xs, shipped = [], []
    started = time.time()
    for start in range(0, len(items), CHUNK):
        part = items[start:start + CHUNK]
        pairs = [(it["claim"], it["source"]) for it in part]
        results, stack = stack_results(pairs, threads)
        xs.append(who_lr_inputs(pairs, results, stack))
        who = read_with_who(pairs, results, stack)
        shipped += [p if "whole" in r.features else at_half(p, CLAIM_POINT) for p, r in zip(who, results, strict=True)]
        print(f"{start + len(part)}/{len(items)} rows, {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    x, s = np.vstack(xs), np.asarray(shipped, float)
    np.savez(cache, x=x, shipped=s)
    return x, s


def fit(x: np.ndarray, items: list[dict[str, Any]]) -> Any:
    """The logistic regression on standardised inputs, every set weighing the same, classes balanced."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    model = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, solver="lbfgs", max_iter=1000))
    return model.fit(x, [it["y"] for it in items], logisticregression__sample_weight=weights(items))


def judge_lr(work: Path, k: int, seed: int, threads: int) -> dict[str, Any]:
    """Fit on folds 1-4, read fold 0's figures of `who-lr`, `who+cut` and the stack; refit on every row."""
    from nonseq.verify.support import stack_results

    items = rows(work, k, seed)
    started = time.time()
    x, shipped = features(items, threads, work / "who_lr_features.npz")
    fold = np.array([it["fold"] for it in items])
    train, test = fold != JUDGED_FOLD, (fold == JUDGED_FOLD) & np.array([it["set"] != "made" for it in items])
    model = fit(x[train], [items[i] for i in np.nonzero(train)[0]])
    judged = [items[i] for i in np.nonzero(test)[0]]
    prob = model.predict_proba(x[test])[:, 1]
    _, stack = stack_results([(it["claim"], it["source"]) for it in judged], threads)
    final = fit(x, items)
    return {"who-lr": judge.figures(judged, prob), "who+cut": judge.figures(judged, shipped[test]),
            "stack": judge.figures(judged, np.asarray(stack, float)), "model": export(model), "final": export(final),
            "training_rows": int(train.sum()), "judged_rows": len(judged), "all_rows": len(items),
            "by_set": {s: int(sum(it["set"] == s for it in items)) for s in sorted({it["set"] for it in items})},
            "seconds": round(time.time() - started, 1)}


def export(model: Any) -> dict[str, Any]:
    """The fitted model as plain numbers: the inputs' means and scales, the coefficients and intercept."""
    scaler, lr = model.named_steps["standardscaler"], model.named_steps["logisticregression"]
    return {"inputs": list(WHO_LR_INPUTS), "mean": [round(float(v), 6) for v in scaler.mean_],
            "scale": [round(float(v), 6) for v in scaler.scale_],
            "coef": [round(float(v), 6) for v in lr.coef_[0]], "intercept": round(float(lr.intercept_[0]), 6)}


def latency(work: Path, threads: int, model: dict[str, Any]) -> dict[str, Any]:
    """Milliseconds of a one- or two-sentence check through the fitted model (judge.latency)."""
    return judge.latency(load(work / "pairs.jsonl"), 200, threads,
                         lambda claim, source, t: who_lr_scores([(claim, source)], model, t)[0])


def write(work: Path, figs: dict[str, Any]) -> None:
    """Keep the figures in the work folder."""
    (work / "judge_lr.json").write_text(json.dumps(figs, indent=1), encoding="utf-8")


def judge_lr_sentence(work: Path, k: int, seed: int, threads: int) -> dict[str, Any]:
    """The tenth amendment: `who-lr` fitted and applied in the sentence setting only, `who+cut` elsewhere; out of
    fold on all five folds (each fold by the model fitted on the other four), fold 0 also on its own."""
    items = rows(work, k, seed)
    x, shipped = features(items, threads, work / "who_lr_features.npz")
    fold = np.array([it["fold"] for it in items])
    sentence = x[:, WHO_LR_SETTING] == 0
    judged = np.array([it["set"] != "made" for it in items])
    prob = shipped.copy()
    for i in range(k):
        train, test = sentence & (fold != i), sentence & (fold == i)
        model = fit(x[train], [items[j] for j in np.nonzero(train)[0]])
        prob[test] = model.predict_proba(x[test])[:, 1]
    every = [items[j] for j in np.nonzero(judged)[0]]
    zero = judged & (fold == JUDGED_FOLD)
    zero_items = [items[j] for j in np.nonzero(zero)[0]]
    final = fit(x[sentence], [items[j] for j in np.nonzero(sentence)[0]])
    return {"who-lr/sentence": judge.figures(every, prob[judged]), "who+cut": judge.figures(every, shipped[judged]),
            "fold0": {"who-lr/sentence": judge.figures(zero_items, prob[zero]),
                      "who+cut": judge.figures(zero_items, shipped[zero])},
            "sentence_setting_share": {s: round(float(sentence[judged & np.array([it["set"] == s for it in items])]
                                                      .mean()), 3) for s in judge.SETS},
            "final": export(final), "judged_rows": int(judged.sum()), "sentence_rows": int(sentence.sum())}


#: The parse's reading of a claim against its evidence, in the order `role_features` gives it.
ROLE_FEATURES = ("exchanged", "name_share", "role_share", "subject_held", "subject_elsewhere", "verb_held",
                 "has_names")


def _reading(claim: str, source: str) -> tuple[float, ...]:
    """One claim sentence against one evidence sentence: the shares and flags of `role_features`."""
    from nonseq.text import parse

    said, given = _names_of(claim), _names_of(source)
    held = [n for n in said if n in given]
    roles = {n: {_role(t) for t in said[n]} for n in held}
    there = {n: {_role(t) for t in given[n]} for n in held}
    agree = sum(roles[n] <= there[n] for n in held)
    subjects = [n for n in held if any(r[0] == "nsubj" for r in roles[n])]
    subject_held = bool(subjects) and all(any(r[0] == "nsubj" for r in there[n]) for n in subjects)
    main = parse.main_clause(claim)
    verb = main is not None and main.verb in parse.lemmas(source)
    return (float(bool(exchanged_role(claim, source))), len(held) / len(said) if said else 1.0,
            agree / len(held) if held else 1.0, float(subject_held), float(bool(subjects) and not subject_held),
            float(verb), float(bool(said)))


def _names_of(text: str) -> dict[str, list[Any]]:
    """A text's names as `verify.roles` reads them."""
    from nonseq.text import parse

    return _names(parse.parse(text.translate(_QUOTES)))


def _best_sentences(claim: str, evidence: Sequence[str]) -> list[tuple[str, str]]:
    """Each claim sentence with the evidence sentence holding most of its names."""
    from nonseq.text.sentences import sentences

    given = [s for e in evidence for s in sentences(FOOTNOTE_NUMBER.sub("", e))] or [" ".join(evidence)]
    out = []
    for part in sentences(FOOTNOTE_NUMBER.sub("", claim)) or [claim]:
        said = set(_names_of(part))
        out.append((part, max(given, key=lambda s: len(said & set(_names_of(s))))))
    return out


def role_features(claim: str, evidence: Sequence[str]) -> tuple[float, ...]:
    """The parse's reading of who does what (ROLE_FEATURES): each claim sentence read against the evidence
    sentence holding most of its names; a swap or a missing subject role if any sentence has one, the least
    of the shares, a verb held only if every sentence's is."""
    cols = list(zip(*(_reading(part, best) for part, best in _best_sentences(claim, evidence)), strict=True))
    return (max(cols[0]), min(cols[1]), min(cols[2]), min(cols[3]), max(cols[4]), min(cols[5]), max(cols[6]))


#: The inputs of the trained reading of who does what (`who_lr_inputs`), in order.
WHO_LR_INPUTS = ("stack_logit", "claim_setting", "stack_logit_claim", "verbatim", *ROLE_FEATURES)
_CLIP = 1e-4


def who_lr_inputs(pairs: Sequence[tuple[str, Any]], results: Sequence[Any],
                  scores: Sequence[float]) -> np.ndarray:
    """Per pair, WHO_LR_INPUTS: the logit of the stack's score (0.5 decides), its setting, their product, and the
    parse's reading of the claim against the stack's evidence (verify.verbatim, `role_features`)."""
    from nonseq.verify.verbatim import verbatim

    out = []
    for (claim, _), r, p in zip(pairs, results, scores, strict=True):
        evidence = [e.text for e in r.evidence]
        q = min(max(p, _CLIP), 1 - _CLIP)
        logit, claim_setting = math.log(q / (1 - q)), float("whole" not in r.features)
        out.append((logit, claim_setting, logit * claim_setting, float(bool(verbatim(claim, evidence))),
                    *role_features(claim, evidence)))
    return np.asarray(out, float)


def who_lr_scores(pairs: Sequence[tuple[str, Any]], model: dict[str, Any], threads: int = 1) -> list[float]:
    """P(supported) per pair from a fitted logistic regression over `who_lr_inputs` (its means, scales,
    coefficients and intercept as plain numbers)."""
    from nonseq.verify.support import stack_results

    results, stack = stack_results(pairs, threads)
    x = (who_lr_inputs(pairs, results, stack) - np.asarray(model["mean"])) / np.asarray(model["scale"])
    z = x @ np.asarray(model["coef"]) + model["intercept"]
    return [float(v) for v in 1 / (1 + np.exp(-z))]


def subject_missing(claim: str, evidence: Sequence[str]) -> float:
    """1 when a claim sentence's main-clause subject (a noun or proper noun, by lemma) is not a name of the evidence
    sentence holding most of that claim sentence's names (a foreign swap's mark), else 0."""
    for part, best in _best_sentences(claim, evidence):
        subjects = {n for n, ts in _names_of(part).items()
                    if any(t.dep_ in ("nsubj", "nsubjpass") and t.head.dep_ == "ROOT" for t in ts)}
        if subjects - set(_names_of(best)):
            return 1.0
    return 0.0


#: `who-lr/few`'s inputs: columns of WHO_LR_INPUTS, then `subject_missing`.
FEW = ("stack_logit", "verbatim", "exchanged", "subject_elsewhere")
FEW_SIGNS = (1, 1, -1, -1, -1)


def few_inputs(items: list[dict[str, Any]], x: np.ndarray, sentence: np.ndarray, cache: Path) -> np.ndarray:
    """The eleventh amendment's five inputs for the sentence-setting rows (zeros elsewhere), `subject_missing` kept in
    `cache`."""
    from nonseq.verify.support import source_units

    if cache.is_file():
        missing = np.load(cache)
    else:
        missing = np.zeros(len(items))
        for j in np.nonzero(sentence)[0]:
            missing[j] = subject_missing(items[j]["claim"], source_units(items[j]["source"]))
        np.save(cache, missing)
    cols = [WHO_LR_INPUTS.index(name) for name in FEW]
    return np.column_stack([x[:, cols], missing])


def paraphrase_swaps(items: list[dict[str, Any]], sentence: np.ndarray, y: np.ndarray,
                     scores: dict[str, np.ndarray]) -> dict[str, Any]:
    """Swap sets whose faithful claims are real paraphrases (the sentence set's supported WiCE oracle and SciFact
    rationale pairs) and whose others are the made role or foreign swaps of the sentence setting: a seeded sample
    of as many of each; macro-F1 at 0.5 per check (the eleventh amendment's estimate)."""
    from bench.support import macro_f1

    st, sub = np.array([it["set"] for it in items]), np.array([it["sub"] for it in items])
    faithful = np.nonzero((st == "sentence") & np.isin(sub, ["wice_oracle", "scifact_rationale"]) & y)[0]
    rng, out = np.random.default_rng(0), {}
    for kind in ("role_swap", "foreign_swap"):
        others = np.nonzero((st == "made") & (sub == kind) & sentence)[0]
        n = min(len(others), len(faithful))
        idx = np.concatenate([rng.choice(faithful, n, replace=False), rng.choice(others, n, replace=False)])
        out[kind] = {"n_each": int(n)} | {name: macro_f1(s[idx] >= 0.5, y[idx]) for name, s in scores.items()}
    out["faithful_recall"] = {name: round(float((s[faithful] >= 0.5).mean()), 3) for name, s in scores.items()}
    return out


def judge_lr_few(work: Path, k: int, seed: int, threads: int) -> dict[str, Any]:
    """The eleventh amendment: `who-lr/few` in the sentence setting, `who+cut` elsewhere, out of fold on all rows,
    beside `who+cut` and the tenth's `who-lr/sentence` (for the estimate only)."""
    items = rows(work, k, seed)
    x, shipped = features(items, threads, work / "who_lr_features.npz")
    fold = np.array([it["fold"] for it in items])
    y = np.array([it["y"] for it in items], bool)
    sentence = x[:, WHO_LR_SETTING] == 0
    few = few_inputs(items, x, sentence, work / "who_lr_subject_missing.npy")
    judged = np.array([it["set"] != "made" for it in items])
    prob, tenth = shipped.copy(), shipped.copy()
    for i in range(k):
        train, test = sentence & (fold != i), sentence & (fold == i)
        rows_i = [items[j] for j in np.nonzero(train)[0]]
        prob[test] = fit(few[train], rows_i).predict_proba(few[test])[:, 1]
        tenth[test] = fit(x[train], rows_i).predict_proba(x[test])[:, 1]
    final = fit(few[sentence], [items[j] for j in np.nonzero(sentence)[0]])
    coef = final.named_steps["logisticregression"].coef_[0]
    every = [items[j] for j in np.nonzero(judged)[0]]
    model = export(final) | {"inputs": [*FEW, "subject_missing"]}
    return {"who-lr/few": judge.figures(every, prob[judged]), "who+cut": judge.figures(every, shipped[judged]),
            "paraphrase_swaps": paraphrase_swaps(items, sentence, y, {"who-lr/few": prob, "who+cut": shipped,
                                                                      "who-lr/sentence": tenth}),
            "signs_as_meant": bool(all(np.sign(c) == s for c, s in zip(coef, FEW_SIGNS, strict=True))),
            "final": model, "judged_rows": int(judged.sum()), "sentence_rows": int(sentence.sum())}
