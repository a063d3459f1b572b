"""The support head's data: SciFact train + WiCE dev as (claim, source) pairs, grouped into folds.

Every example is a claim and its source sentences (one, a few, or a whole chunk) with two
targets: `s` (the source supports the whole claim: 1/0, -1 unknown) and `r` (the source sentence is
evidence for or against the claim: 1/0, -1 unknown). Groups keep related claims in one fold:
SciFact claims that share an abstract (connected components of claim–abstract links), WiCE
claims of one Wikipedia article (all three evidence chunks of a claim share its article).
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devkit.data import DATA
from nonseq.verify.alignment import STOP_WORDS

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


def scifact_components(rows: list[dict[str, Any]]) -> dict[str, str]:
    """Every SciFact node ("c<claim id>", "d<doc id>") → its group: claims linked through shared abstracts."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for r in rows:
        parent[find(f"c{r['id']}")] = find(f"d{r['doc_id']}")
    return {x: "sf:" + find(x) for x in list(parent)}


def scifact_groups(rows: list[dict[str, Any]]) -> dict[int, str]:
    """Claim id → group: connected components of claims linked through shared abstracts."""
    nodes = scifact_components(rows)
    return {r["id"]: nodes[f"c{r['id']}"] for r in rows}


def load_records(limit: int = 0) -> list[Record]:
    """SciFact claim–abstract pairs and WiCE claim–chunk rows as Records (the first `limit` of each, when given)."""
    sf = read_jsonl(SCIFACT)[:limit or None]
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
    for r in read_jsonl(WICE)[:limit or None]:
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
def scifact_examples(rec: Record, rng: random.Random) -> list[Example]:
    """Rationale sentences (support or contradiction), their set, and non-rationale sentences."""
    out, rat = [], rec.evidence
    yes = int(rec.label == "SUPPORT")
    for i in rat:
        out.append(ex(rec, [rec.sentences[i]], yes if len(rat) == 1 or not yes else -1, 1, "rationale"))
    if len(rat) > 1:
        out.append(ex(rec, join(rec, rat), yes, -1, "rationale_set"))
    others = ranked(rec, set(rat))
    picked = others[: 2 if not rat else 1] + rng.sample(others[2:], min(1, len(others[2:])))
    out += [ex(rec, [rec.sentences[i]], 0, 0, "other") for i in picked]
    return [*out, ex(rec, rec.sentences, yes, -1, "full")]


def wice_examples(rec: Record, rng: random.Random) -> list[Example]:
    """Oracle sentences alone and as a set (with lexical distractors), and other sentences."""
    out, ev = [], rec.evidence
    yes = int(rec.positive)
    for i in ev:
        out.append(ex(rec, [rec.sentences[i]], yes if len(ev) == 1 or not yes else -1, 1, "oracle"))
    if len(ev) > 1:
        out.append(ex(rec, join(rec, ev), yes, -1, "oracle_set"))
    others = ranked(rec, set(ev))
    most = SET_MAX
    if len(ev) < most and others:
        extra = rng.randint(1, most - len(ev)) if ev else rng.randint(2, most)
        out.append(ex(rec, join(rec, ev + others[:extra]), yes, -1, "oracle_set_distract"))
    picked = others[:1] + rng.sample(others[1:], min(1, len(others[1:])))
    out += [ex(rec, [rec.sentences[i]], 0, 0, "other") for i in picked]
    return [*out, ex(rec, rec.sentences, yes, -1, "full")]


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


def training_examples(recs: list[Record], seed: int) -> list[Example]:
    """All training examples of some records (deduplicated by claim and source)."""
    rng = random.Random(seed)
    out: list[Example] = []
    for rec in recs:
        out += (scifact_examples if rec.ds == "scifact" else wice_examples)(rec, rng)
    pos = [e for e in out if e.s == 1]
    names = sorted({m.group() for rec in recs for m in _NAME.finditer(rec.claim)})
    out += augment(pos, names, rng) + unrelated(recs, rng, 0.3)
    seen: dict[tuple[str, tuple[str, ...]], Example] = {}
    for e in out:
        seen.setdefault((e.claim, tuple(e.source)), e)
    return list(seen.values())


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
