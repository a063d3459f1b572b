"""BM25 pre-rank over a full scroll: Okapi BM25 (Lucene IDF) with the sparse encoder's tokenizer."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np

from nonseq.models import Candidate, Chunk

STEP = "bm25"
Tokenize = Callable[[str], list[str]]


def passage_text(chunk: Chunk) -> str:
    """The text a chunk is scored on: its title (when it has one) and its text."""
    title = (chunk.title or "").strip()
    if title and not chunk.text.startswith(title):
        return f"{title}\n{chunk.text}"
    return chunk.text


class BM25Index:
    """Okapi BM25 over a tokenised corpus: IDF log(1 + (N - df + .5)/(df + .5)), k1 and b."""

    def __init__(self, docs: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        """Posting lists with precomputed per-document term weights."""
        self.k1, self.b = float(k1), float(b)
        self.size = len(docs)
        lengths = np.array([len(d) for d in docs], dtype=np.float32)
        self.avgdl = float(lengths.mean()) if self.size and lengths.sum() else 1.0
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for j, doc in enumerate(docs):
            for term, count in Counter(doc).items():
                ids, tfs = postings.setdefault(term, ([], []))
                ids.append(j)
                tfs.append(count)
        norm = k1 * (1.0 - b + b * lengths / self.avgdl) if self.size else lengths
        self.idf: dict[str, float] = {}
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for term, (ids, tfs) in postings.items():
            idx = np.asarray(ids, dtype=np.int64)
            tf = np.asarray(tfs, dtype=np.float32)
            idf = math.log(1.0 + (self.size - len(ids) + 0.5) / (len(ids) + 0.5))
            self.idf[term] = idf
            self._postings[term] = (idx, (idf * tf * (k1 + 1.0) / (tf + norm[idx])).astype(
                np.float32))

    def scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """The BM25 score of every document for a query (a repeated term counts again)."""
        out = np.zeros(self.size, dtype=np.float32)
        for term, qtf in Counter(query_terms).items():
            hit = self._postings.get(term)
            if hit is not None:
                out[hit[0]] += hit[1] * qtf  # doc ids are unique within a posting list
        return out


def build_index(candidates: Sequence[Candidate], tokenize: Tokenize, k1: float = 1.2,
                b: float = 0.75) -> BM25Index:
    """A BM25 index over the candidates' passages (IDF over exactly this set)."""
    return BM25Index([tokenize(passage_text(c.chunk)) for c in candidates], k1=k1, b=b)


def prerank_bm25(candidates: Sequence[Candidate], query_terms: Sequence[str], *,
                 tokenize: Tokenize | None = None, k1: float = 1.2, b: float = 0.75,
                 index: BM25Index | None = None, step: str = STEP) -> list[Candidate]:
    """Score every candidate with BM25 (recorded as `bm25`); all of them, best first."""
    if not candidates:
        return []
    if index is None:
        if tokenize is None:
            raise ValueError("prerank_bm25 needs a tokenize function or a prebuilt index")
        index = build_index(candidates, tokenize, k1=k1, b=b)
    if index.size != len(candidates):
        raise ValueError("the BM25 index does not match the candidates")
    scores = index.scores(query_terms)
    for cand, score in zip(candidates, scores, strict=True):
        cand.record(step, float(score))
    order = np.argsort(-scores, kind="stable")
    return [candidates[i] for i in order]

