"""Datasets for the support cross-encoder: SciFact train + WiCE dev as (claim, source) pairs.

Every example is a claim and its source sentences (one, a few, or a whole chunk) with two
targets: `s` (the source supports the whole claim: 1/0, -1 unknown) and `r` (the source sentence is
evidence for or against the claim: 1/0, -1 unknown). Groups keep related claims in one fold:
SciFact claims that share an abstract (connected components of claim–abstract links), WiCE
claims of one Wikipedia article (all three evidence chunks of a claim share its article).
"""

from __future__ import annotations

import json
import os
import random
import re
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nonseq.verify.alignment import STOP_WORDS

DATA = Path(os.environ.get("NONSEQ_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))
SCIFACT = DATA / "scifact" / "claims_train.jsonl"
WICE = DATA / "wice" / "dev.jsonl"
SET_MAX = 5  # source sentences in one set input (WiCE claim level)
_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class Example:
    """One (claim, source) pair with its targets and where it comes from."""

    claim: str
    source: list[str]
    s: int
    r: int
    ds: str
    group: str
    kind: str


@dataclass
class Record:
    """One labelled claim with its source sentences (a SciFact abstract or a WiCE chunk)."""

    ds: str
    group: str
    claim: str
    label: str
    positive: bool
    sentences: list[str]
    evidence: list[int]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Rows of a jsonl file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def content(text: str) -> set[str]:
    """Lower-cased content words of a text."""
    return {w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and len(w) > 2}


def overlap(claim: str, sentence: str) -> float:
    """Share of the claim's content words found in the sentence."""
    c = content(claim)
    return len(c & content(sentence)) / len(c) if c else 0.0


def scifact_groups(rows: list[dict[str, Any]]) -> dict[int, str]:
    """Claim id → group: connected components of claims linked through shared abstracts."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for r in rows:
        parent[find(f"c{r['id']}")] = find(f"d{r['doc_id']}")
    return {r["id"]: "sf:" + find(f"c{r['id']}") for r in rows}


def load_records() -> list[Record]:
    """SciFact claim–abstract pairs and WiCE claim–chunk rows as Records."""
    sf = read_jsonl(SCIFACT)
    groups = scifact_groups(sf)
    out = [
        Record(
            "scifact",
            groups[r["id"]],
            r["claim"],
            r["label"],
            r["label"] == "SUPPORT",
            r["sentences"],
            sorted(r["rationale"]),
        )
        for r in sf
    ]
    for r in read_jsonl(WICE):
        meta = r["meta"]
        oracle = set(meta.get("oracle_idx") or [])
        ev = [j for j, x in enumerate(meta["chunk_idx"]) if x in oracle]
        out.append(
            Record(
                "wice",
                "wice:" + meta["claim_title"],
                r["claim"],
                r["label"],
                r["label"] == "supported",
                r["evidence"],
                ev,
            )
        )
    return out


def assign_folds(records: list[Record], k: int = 5, seed: int = 0) -> dict[str, int]:
    """Group → fold, per data set: groups shuffled by seed, then dealt largest first to the
    fold with the fewest records so far (folds of similar size)."""
    fold_of: dict[str, int] = {}
    for ds in sorted({r.ds for r in records}):
        size: dict[str, int] = defaultdict(int)
        for r in records:
            if r.ds == ds:
                size[r.group] += 1
        names = sorted(size)
        random.Random(seed).shuffle(names)
        names.sort(key=lambda g: -size[g])
        load = [0] * k
        for g in names:
            f = min(range(k), key=lambda i: load[i])
            fold_of[g] = f
            load[f] += size[g]
    return fold_of


def ranked(rec: Record, exclude: set[int]) -> list[int]:
    """Indices of the record's sentences outside exclude, by lexical overlap with the claim."""
    idx = [i for i in range(len(rec.sentences)) if i not in exclude]
    return sorted(idx, key=lambda i: (-overlap(rec.claim, rec.sentences[i]), i))


def join(rec: Record, idx: list[int]) -> list[str]:
    """The sentences idx of a record, in document order."""
    return [rec.sentences[i] for i in sorted(idx)]


def ex(rec: Record, source: list[str], s: int, r: int, kind: str) -> Example:
    """An Example of a record."""
    return Example(rec.claim, source, s, r, rec.ds, rec.group, kind)


# -- training examples ---------------------------------------------------------------------------
def scifact_examples(rec: Record, rng: random.Random, full: bool = True) -> list[Example]:
    """Rationale sentences (support or contradiction), their set, and non-rationale sentences."""
    out, rat = [], rec.evidence
    yes = int(rec.label == "SUPPORT")
    for i in rat:
        out.append(ex(rec, [rec.sentences[i]], yes if len(rat) == 1 or not yes else -1, 1, "rationale"))
    if len(rat) > 1:
        out.append(ex(rec, join(rec, rat), yes, -1, "rationale_set"))
    others = ranked(rec, set(rat))
    picked = others[: 2 if not rat else 1]
    if full:
        picked += rng.sample(others[2:], min(1, len(others[2:])))
    out += [ex(rec, [rec.sentences[i]], 0, 0, "other") for i in picked]
    return out + ([ex(rec, rec.sentences, yes, -1, "full")] if full else [])


def wice_examples(rec: Record, rng: random.Random, full: bool = True) -> list[Example]:
    """Oracle sentences alone and as a set (with lexical distractors), and other sentences."""
    out, ev = [], rec.evidence
    yes = int(rec.positive)
    for i in ev:
        out.append(ex(rec, [rec.sentences[i]], yes if len(ev) == 1 or not yes else -1, 1, "oracle"))
    if len(ev) > 1:
        out.append(ex(rec, join(rec, ev), yes, -1, "oracle_set"))
    others = ranked(rec, set(ev))
    most = SET_MAX if full else 3
    if len(ev) < most and others:
        extra = rng.randint(1, most - len(ev)) if ev else rng.randint(2, most)
        out.append(ex(rec, join(rec, ev + others[:extra]), yes, -1, "oracle_set_distract"))
    picked = others[:1] + (rng.sample(others[1:], min(1, len(others[1:]))) if full else [])
    out += [ex(rec, [rec.sentences[i]], 0, 0, "other") for i in picked]
    return out + ([ex(rec, rec.sentences, yes, -1, "full")] if full else [])


_AUX = re.compile(
    r"\b(is|are|was|were|can|could|does|do|did|has|have|had|will|would|may|might|"
    r"should|must)\s",
    re.I,
)
_NOT = re.compile(r"\s(not|never)\b\s?", re.I)
_NUM = re.compile(r"\d+(?:[.,]\d+)?")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})*")


def negate(claim: str) -> str | None:
    """The claim with a negation added after its first auxiliary, or its own negation removed."""
    if _NOT.search(claim):
        return _NOT.sub(" ", claim, count=1)
    m = _AUX.search(claim)
    return f"{claim[: m.end()]}not {claim[m.end() :]}" if m else None


def change_number(claim: str, rng: random.Random) -> str | None:
    """The claim with one of its numbers changed."""
    nums = list(_NUM.finditer(claim))
    if not nums:
        return None
    m = rng.choice(nums)
    digits = m.group().replace(",", "")
    value = float(digits)
    new = value * rng.choice([2, 3, 10]) + rng.choice([1, 3, 7]) if value < 1e6 else value + 1
    text = f"{new:g}" if "." in digits else str(int(new))
    return claim[: m.start()] + text + claim[m.end() :]


def swap_name(claim: str, source: str, pool: list[str], rng: random.Random) -> str | None:
    """The claim with a capitalised name replaced by one from another claim (absent from source)."""
    mine = list(_NAME.finditer(claim))
    text = " ".join(source)
    cands = [p for p in pool if p not in text and p not in claim]
    if not mine or not cands:
        return None
    m = rng.choice(mine)
    return claim[: m.start()] + rng.choice(cands) + claim[m.end() :]


def augment(pos: list[Example], names: list[str], rng: random.Random) -> list[Example]:
    """Negatives made from supported pairs: a changed number, a negation, a swapped name."""
    out, seen = [], set()
    for e in pos:
        for kind, new in (
            ("aug_number", change_number(e.claim, rng)),
            ("aug_negation", negate(e.claim)),
            ("aug_name", swap_name(e.claim, e.source, names, rng)),
        ):
            if new and new != e.claim and (new, e.ds) not in seen and rng.random() < 0.5:
                seen.add((new, e.ds))
                out.append(Example(new, e.source, 0, -1, e.ds, e.group, kind))
    return out


def unrelated(recs: list[Record], rng: random.Random, share: float = 0.3) -> list[Example]:
    """A random sentence of another record as an unrelated source."""
    out = []
    for rec in recs:
        if rng.random() < share:
            other = rng.choice(recs)
            if other.claim != rec.claim and other.sentences:
                out.append(ex(rec, [rng.choice(other.sentences)], 0, 0, "unrelated"))
    return out


def partial_claims(pos: list[Example], recs: list[Record], rng: random.Random,
                   share: float = 0.5, sample: int = 20) -> list[Example]:
    """Supported pairs made partial: the claim joined with a related claim of another group (same data set).

    Of `sample` claims drawn from the other groups, the one sharing most content words with the
    claim is appended ("<claim>, and <other claim>", its first letter lower-cased when its first
    word is a stop word); the source backs only the first part.
    """
    pool = {ds: [r for r in recs if r.ds == ds] for ds in {r.ds for r in recs}}
    out = []
    for e in pos:
        if rng.random() >= share:
            continue
        others = [r for r in rng.sample(pool[e.ds], min(sample, len(pool[e.ds]))) if r.group != e.group]
        if not others:
            continue
        other = max(others, key=lambda r: overlap(e.claim, r.claim)).claim.strip()
        first = other.split(" ", 1)[0]
        other = other[:1].lower() + other[1:] if first.lower() in STOP_WORDS else other  # "The", not "Egr2"
        joined = f"{e.claim.strip().rstrip('.!?;')}, and {other}"
        out.append(Example(joined, e.source, 0, e.r, e.ds, e.group, "aug_partial"))
    return out


def training_examples(recs: list[Record], seed: int, full: bool = True, partial: bool = False) -> list[Example]:
    """All training examples of some records (deduplicated by claim and source). Without `full`
    (the cross-encoder's short inputs): no whole-source examples, sets of at most 3 sentences,
    one non-evidence sentence per record and fewer unrelated sources. With `partial`: partial
    claims too (`partial_claims`, a candidate not shipped; their own rng, so the rest is unchanged)."""
    rng = random.Random(seed)
    out: list[Example] = []
    for rec in recs:
        out += (scifact_examples if rec.ds == "scifact" else wice_examples)(rec, rng, full)
    pos = [e for e in out if e.s == 1]
    names = sorted({m.group() for rec in recs for m in _NAME.finditer(rec.claim)})
    out += augment(pos, names, rng) + unrelated(recs, rng, 0.3 if full else 0.15)
    if partial:
        out += partial_claims(pos, recs, random.Random(seed + 7919))
    seen: dict[tuple[str, tuple[str, ...]], Example] = {}
    for e in out:
        seen.setdefault((e.claim, tuple(e.source)), e)
    return list(seen.values())


def snli_examples(path: Path, pairs: int, seed: int) -> list[Example]:
    """Training-only NLI pairs from SNLI's jsonl (premise = the source sentence, hypothesis = the
    claim): entailment supports it; contradiction is evidence against it; neutral is neither.
    A seeded sample of `pairs` pairs with a gold label; never in a fold's test part."""
    target = {"entailment": (1, 1), "contradiction": (0, 1), "neutral": (0, 0)}
    rows = [r for r in read_jsonl(path) if r.get("gold_label") in target]
    random.Random(seed).shuffle(rows)
    return [Example(r["sentence2"], [r["sentence1"]], *target[r["gold_label"]], "snli",
                    f"snli:{r['captionID']}", "snli_sentence") for r in rows[:pairs]]


# -- evaluation items ------------------------------------------------------------------------------
def sentence_items(rec: Record) -> list[dict[str, Any]]:
    """The sentence setting: the claim against the one or two sentences a writer would plan."""
    ev, top = rec.evidence, ranked(rec, set(rec.evidence))
    base = {"claim": rec.claim, "ds": rec.ds, "group": rec.group}
    if rec.ds == "scifact":
        cat = {"SUPPORT": "sf_support_rationale", "CONTRADICT": "sf_contradict_rationale"}
        items = [(cat[rec.label], ev, rec.label == "SUPPORT")] if ev else []
        if not ev:
            items.append(("sf_nei_top", top[:1], False))
        elif rec.label == "SUPPORT" and top:
            items.append(("sf_support_other", top[:1], False))
    else:
        multi = "_multi" if len(ev) > 2 else ""
        items = [(f"wice_{rec.label}_oracle{multi}", ev, rec.positive)] if ev else []
        if not ev:
            items.append(("wice_not_supported_top", top[:1], False))
    return [base | {"cat": c, "source": join(rec, idx), "y": bool(y)} for c, idx, y in items if idx]


HEADLINE = (
    "sf_support_rationale",
    "sf_contradict_rationale",
    "sf_nei_top",
    "wice_supported_oracle",
    "wice_partially_supported_oracle",
    "wice_not_supported_top",
)


def save_examples(path: Path, examples: list[Example]) -> None:
    """Write examples as jsonl."""
    path.write_text("".join(json.dumps(asdict(e)) + "\n" for e in examples), encoding="utf-8")
