"""Gate calibration and fact cleanliness: per-reranker score distributions and the prose filter.

Used by bench/retrieval.py (`--calibrate`). Two kinds of data, none written for this project:

- SciFact train judgements: (claim, abstract judged relevant) pairs against (claim, abstract judged
  relevant to another claim) pairs; and research-level top-10 means: a claim's own pre-rank pool
  (on topic) against another claim's pool scored for this claim (off topic).
- The 181 real news pages (`web/scrapinghub-aeb`) as a local web with a loose search (every page
  sharing a query word, title words count twice, as the test web's search API): covered topics (a
  page's own title) and topics no page covers. Each topic's research is the top 10 search results,
  extracted, chunked and embedded by nonseq's own code, then pre-ranked, deduplicated and reranked
  exactly as `retrieve()` does.

Fact cleanliness: a selected research chunk is boilerplate when under half of its word tokens occur
in its page's `articleBody` ground truth (independent of the prose test being measured).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean, median
from typing import Any

import numpy as np

from nonseq.index.rerankers import Reranker
from nonseq.models import Candidate, SourceKind, Topic
from nonseq.pipeline.gate import quality_threshold
from nonseq.research.chunking import Chunker
from nonseq.research.extract import extract_html
from nonseq.retrieval.pipeline import choose, research_pool, score_pool
from nonseq.retrieval.prerank import passage_text
from nonseq.retrieval.rerank import rerank

TOP_K = 10
SEARCH_RESULTS = 10
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({
    "the", "a", "an", "and", "or", "of", "to", "in", "on", "for", "with", "is", "are", "was",
    "be", "by", "at", "as", "it", "its", "from", "that", "this", "what", "how", "why", "who",
})
#: Topics none of the 181 pages (news from late 2019) is about; their search still finds pages
#: that share a word or two, as a loose web search does.
UNCOVERED = [
    "Quantum error correction with superconducting qubits",
    "Dark matter detection in underground xenon experiments",
    "Gravitational waves from merging neutron stars",
    "Honeybee colony collapse and neonicotinoid pesticides",
    "Coral reef bleaching in the Great Barrier Reef",
    "CRISPR gene editing of human embryos",
    "Room-temperature superconductivity claims in hydrides",
    "The physics of black hole event horizons",
    "Sourdough bread fermentation and wild yeast",
    "Medieval cathedral construction techniques",
    "Antarctic ice sheet melting and sea level rise",
    "Migratory patterns of monarch butterflies",
    "Fusion energy records at tokamak reactors",
    "The history of the Byzantine Empire",
    "Photosynthesis efficiency in C4 crop plants",
    "Octopus intelligence and problem solving",
    "Volcanic eruptions and global climate cooling",
    "Site reliability engineering and error budgets",
    "Protein folding prediction with deep learning",
    "The chemistry of lithium-sulfur batteries",
    "Deep sea hydrothermal vent ecosystems",
    "Neutrino oscillation measurements at Super-Kamiokande",
    "Urban beekeeping on city rooftops",
    "Ancient Roman concrete durability",
    "Sleep apnea treatment with CPAP machines",
    "Mars rover search for ancient microbial life",
    "Origami-inspired folding in spacecraft design",
    "Wolves reintroduction in Yellowstone National Park",
    "Topological insulators in condensed matter physics",
    "Quantum chromodynamics and the strong nuclear force",
]


def terms(text: str) -> set[str]:
    """Lower-case words without stopwords (the search's tokenizer)."""
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 1}


def words(text: str) -> list[str]:
    """Lower-case word tokens (for the ground-truth overlap)."""
    return _WORD.findall(text.lower())


@dataclass
class Page:
    """One real page: its extracted text, its chunks (with vectors), and its ground truth."""

    id: str
    url: str
    title: str
    truth: set[str]
    title_terms: set[str]
    text_terms: set[str]
    chunks: list[Candidate] = field(default_factory=list)


def load_pages(folder: Path, ws: Any, cache_dir: Path, limit: int = 0) -> list[Page]:
    """Extract and chunk every page (the first `limit`) as research does, embed the chunks (cached), keep the truth."""
    truth = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    emb = ws.embedder
    r = ws.settings.research
    chunker = Chunker(emb.count_tokens, r.chunk_tokens, r.chunk_overlap, emb.max_tokens)
    pages: list[Page] = []
    for pid, item in sorted(truth.items())[:limit or None]:
        html = gzip.decompress((folder / "html" / f"{pid}.html.gz").read_bytes())
        doc = extract_html(html, item["url"], favor_precision=r.extraction == "precision",
                           favor_recall=r.extraction == "recall")
        if doc is None or len(doc.text) < r.min_text_chars:
            continue
        domain = item["url"].split("/")[2]
        page = Page(pid, item["url"], doc.title, set(words(item["articleBody"])),
                    terms(doc.title), terms(doc.text))
        chunks = chunker.chunks(doc, topic_slug="aeb", category="news", domain=domain)
        page.chunks = [Candidate(chunk=c, group=SourceKind.RESEARCH, point_id=f"{pid}-{c.position}")
                       for c in chunks]
        pages.append(page)
    _embed(ws, [c for p in pages for c in p.chunks], cache_dir)
    return pages


def _embed(ws: Any, cands: list[Candidate], cache_dir: Path) -> None:
    """Dense vectors for the chunks (the embedded text, as indexing does), cached on disk."""
    texts = [c.chunk.embedding_text() for c in cands]
    digest = hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:16]
    path = cache_dir / f"aeb-{ws.embedder.name.replace('/', '_')}-{digest}.npy"
    if path.is_file():
        vectors = np.load(path)
    else:
        start = time.perf_counter()
        vectors = np.asarray(ws.embedder.embed(texts), dtype=np.float32)
        print(f"embedded {len(texts)} page chunks in {time.perf_counter() - start:.0f} s",
              flush=True, file=__import__("sys").stderr)
        cache_dir.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    for cand, vec in zip(cands, vectors, strict=True):
        cand.vector = [float(x) for x in vec]


def search(pages: Sequence[Page], query: str, n: int = SEARCH_RESULTS) -> list[Page]:
    """The loose web search: pages sharing a query word, title words count twice; the top n."""
    wanted = terms(query)
    scored = [(-sum(2 * (t in p.title_terms) + (t in p.text_terms) for t in wanted), p.id, p)
              for p in pages]
    return [p for s, _, p in sorted(scored, key=lambda x: (x[0], x[1])) if s < 0][:n]


def _fresh(cands: Sequence[Candidate]) -> list[Candidate]:
    """Copies with no scores (pages are shared between topics)."""
    return [Candidate(chunk=c.chunk, group=c.group, point_id=c.point_id, vector=c.vector)
            for c in cands]


def research_of(ws: Any, topic: Topic, found: Sequence[Page]) -> list[Candidate]:
    """The topic's rerank pool from the pages found: BM25 x trust, dedup, cut (as retrieve())."""
    cands = _fresh([c for p in found for c in p.chunks])
    pool, _ = research_pool(ws, cands, ws.sparse.tokenize(topic.query), {})
    return pool


def top_mean(pool: Sequence[Candidate]) -> float:
    """The gate's figure: mean rerank score of the top 10."""
    top = sorted((c.scores["rerank"] for c in pool), reverse=True)[:TOP_K]
    return fmean(top) if top else 0.0


def web_topics(pages: Sequence[Page]) -> list[tuple[Topic, bool]]:
    """Covered topics (each page's own title) and uncovered ones, with the covered flag."""
    out = [(Topic(title=p.title, slug=f"page-{p.id[:8]}", category="news"), True) for p in pages
           if len(terms(p.title)) >= 3]
    out += [(Topic(title=t, slug=f"off-{i}", category="news"), False)
            for i, t in enumerate(UNCOVERED)]
    return out


def web_calibration(ws: Any, pages: Sequence[Page], reranker: Reranker) -> dict[str, list[float]]:
    """Top-10 mean rerank score of every covered and uncovered topic's research."""
    out: dict[str, list[float]] = {"covered": [], "uncovered": []}
    for topic, covered in web_topics(pages):
        found = search(pages, topic.query)
        if not found:
            continue
        pool = rerank(research_of(ws, topic, found), reranker, topic.query)
        out["covered" if covered else "uncovered"].append(top_mean(pool))
    return out


def boilerplate_share(ws: Any, pages: Sequence[Page], reranker: Reranker,
                      prose_min: float) -> dict[str, float]:
    """Share of selected facts that are boilerplate (under half their words in the page's truth)."""
    by_url = {p.url: p for p in pages}
    saved = ws.settings.retrieval.prose_min
    ws.settings.retrieval.prose_min = prose_min
    selected = boiler = 0
    try:
        for topic, covered in web_topics(pages):
            if not covered:
                continue
            pool = score_pool(ws, research_of(ws, topic, search(pages, topic.query)), topic.query,
                              reranker, {})
            facts, _ = choose(ws, pool)
            for cand in facts:
                toks = words(cand.chunk.text)
                truth = by_url[cand.chunk.url].truth
                selected += 1
                boiler += bool(toks) and sum(t in truth for t in toks) / len(toks) < 0.5
    finally:
        ws.settings.retrieval.prose_min = saved
    return {"selected": selected, "boilerplate": boiler,
            "share": boiler / selected if selected else 0.0}


def chunk_labels(pages: Sequence[Page]) -> dict[str, float]:
    """Every chunk of the 181 pages: how well `is_prose` tells article text from boilerplate."""
    from nonseq.text.prose import is_prose

    tp = fp = fn = tn = 0
    for page in pages:
        for cand in page.chunks:
            toks = words(cand.chunk.text)
            boiler = bool(toks) and sum(t in page.truth for t in toks) / len(toks) < 0.5
            flagged = not is_prose(cand.chunk.text)
            tp += flagged and boiler
            fp += flagged and not boiler
            fn += boiler and not flagged
            tn += not boiler and not flagged
    return {"chunks": tp + fp + fn + tn, "boilerplate": tp + fn,
            "flagged_precision": tp / (tp + fp) if tp + fp else 0.0,
            "flagged_recall": tp / (tp + fn) if tp + fn else 0.0,
            "prose_lost": fp / (fp + tn) if fp + tn else 0.0}


def scifact_calibration(pools: dict[str, list[Candidate]], queries: dict[str, str],
                        qrels: dict[str, dict[str, int]], corpus: dict[str, Candidate],
                        reranker: Reranker, seed: int = 13) -> dict[str, list[float]]:
    """Pair scores (relevant vs judged for another claim) and on/off-topic top-10 means."""
    rng = np.random.default_rng(seed)
    qids = [q for q in pools if q in qrels]
    judged_docs = sorted({d for q in qrels for d in qrels[q] if d in corpus})
    rel, irr, on, off = [], [], [], []
    for qid in qids:
        query = queries[qid]
        mine = [d for d in qrels[qid] if d in corpus]
        sample = rng.choice(judged_docs, size=min(8, len(judged_docs)), replace=False)
        docs = mine + [str(d) for d in sample if d not in mine][:5]
        scores = reranker.score(query, [passage_text(corpus[d].chunk) for d in docs],
                                [corpus[d].vector for d in docs])
        rel += [float(s) for s in scores[: len(mine)]]
        irr += [float(s) for s in scores[len(mine):]]
        on.append(top_mean(pools[qid]))
        other = qids[int(rng.integers(len(qids)))]
        while other == qid and len(qids) > 1:
            other = qids[int(rng.integers(len(qids)))]
        texts = [passage_text(c.chunk) for c in pools[other]]
        vectors = [c.vector for c in pools[other]]
        moved = sorted(reranker.score(query, texts, vectors), reverse=True)[:TOP_K]
        off.append(float(fmean(moved)) if len(moved) else 0.0)
    return {"relevant_pairs": rel, "irrelevant_pairs": irr, "on_topic": on, "off_topic": off}


def describe(values: Sequence[float]) -> dict[str, float]:
    """n, mean, 10th/50th/90th percentiles."""
    if not values:
        return {"n": 0}
    arr = np.asarray(values)
    return {"n": len(values), "mean": float(arr.mean()), "p10": float(np.percentile(arr, 10)),
            "median": float(median(values)), "p90": float(np.percentile(arr, 90))}


def detection(on: Sequence[float], off: Sequence[float], threshold: float) -> dict[str, float]:
    """Precision and recall of 'off-topic' (mean below the threshold) at telling off from on."""
    tp = sum(v < threshold for v in off)
    fp = sum(v < threshold for v in on)
    return {"threshold": threshold, "precision": tp / (tp + fp) if tp + fp else 1.0,
            "recall": tp / len(off) if off else 0.0}


def best_threshold(on: Sequence[float], off: Sequence[float]) -> float:
    """The threshold (0.01 steps) with the best F1 at flagging off-topic research."""
    best, best_f1 = 0.0, -1.0
    for t in np.arange(0.05, 0.8, 0.01):
        d = detection(on, off, float(t))
        f1 = 2 * d["precision"] * d["recall"] / (d["precision"] + d["recall"] or 1)
        if f1 > best_f1 + 1e-9:
            best, best_f1 = round(float(t), 2), f1
    return best


def calibration_table(per_backend: dict[str, dict[str, Any]], settings: Any) -> dict[str, Any]:
    """Per backend: distributions, the configured threshold's precision/recall, the best F1 cut."""
    out: dict[str, Any] = {}
    for label, data in per_backend.items():
        backend = data["backend"]
        threshold = quality_threshold(backend, settings)
        row: dict[str, Any] = {"backend": backend, "threshold": threshold,
                               "distributions": {k: describe(v) for k, v in data["scores"].items()}}
        scores = data["scores"]
        for name, on_key, off_key in (("scifact", "on_topic", "off_topic"),
                                      ("web", "web_covered", "web_uncovered")):
            on, off = scores.get(on_key, []), scores.get(off_key, [])
            if on and off and threshold is not None:
                row[name] = detection(on, off, threshold)
                row[f"{name}_best_f1_threshold"] = best_threshold(on, off)
        out[label] = row
    return out
