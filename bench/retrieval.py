"""Retrieval benchmark on BEIR SciFact: BM25 pre-rank, dense, hybrid RRF, the full chain, bm25s.

    python bench/retrieval.py [--data ../shared/data/scifact] [--qrels PATH] [--limit N] [--json]
                              [--aeb ../shared/data/web/scrapinghub-aeb | --no-web]

Uses nonseq's own code paths: documents are indexed into an embedded Qdrant (temp dir) with the
workspace embedder and sparse encoder, scrolled back whole, pre-ranked by `prerank_bm25`, and run
through the same dedup / trust / rerank / fusion / normalisation functions as `retrieve()`.
Document embeddings are cached (--cache-dir, default /tmp/nonseq-bench) keyed by corpus and model.

It also calibrates the gate's quality check per reranker (bench/calibration.py): score distributions
of relevant and irrelevant SciFact pairs, on- and off-topic research (SciFact pools and topics over
the 181 real pages, covered and not), the configured threshold's precision and recall at flagging
off-topic research, and the share of boilerplate among the selected facts with and without the
prose filter.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: nonseq, devkit, bench
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench import calibration  # noqa: E402
from bench._metrics import evaluate, load_beir, self_check  # noqa: E402
from nonseq.config import EmbeddingSettings, PathsSettings, RerankSettings, Settings  # noqa: E402
from nonseq.index.rerankers import Reranker, build_reranker  # noqa: E402
from nonseq.index.vector_store import research_collection  # noqa: E402
from nonseq.models import Candidate, Chunk, Topic  # noqa: E402
from nonseq.retrieval.dedup import unit  # noqa: E402
from nonseq.retrieval.fusion import fuse, fuse_scores  # noqa: E402
from nonseq.retrieval.normalize import finalize, group_weights, normalize  # noqa: E402
from nonseq.retrieval.pipeline import fusion_method, research_pool  # noqa: E402
from nonseq.retrieval.prerank import build_index, passage_text, prerank_bm25  # noqa: E402
from nonseq.retrieval.rerank import rerank  # noqa: E402
from nonseq.retrieval.sources import research_candidates  # noqa: E402
from nonseq.retrieval.trust import STEP as TRUST  # noqa: E402
from nonseq.workspace import Workspace  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
from devkit.data import DATA as SHARED  # noqa: E402 - after the path setup
from devkit.web import vector_cache_from_env  # noqa: E402

DEFAULT_DATA = SHARED / "scifact"
DEFAULT_AEB = SHARED / "web" / "scrapinghub-aeb"
TOPIC = Topic(title="scifact", slug="scifact", category="science")
GRID_RRF = (5, 10, 20, 30, 60, 100)
GRID_WEIGHTED = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
Runs = dict[str, list[str]]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="BEIR SciFact folder")
    p.add_argument("--qrels", type=Path, default=None, help="qrels TSV (default: qrels/train.tsv)")
    p.add_argument("--limit", type=int, default=0, help="Only the first N judged queries (and N real pages)")
    p.add_argument("--cache-dir", type=Path, default=Path(tempfile.gettempdir()) / "nonseq-bench")
    p.add_argument("--rerank-model-path", default="", help="A local cross-encoder folder to add")
    p.add_argument("--aeb", type=Path, default=DEFAULT_AEB, help="The 181 real pages (web part)")
    p.add_argument("--no-web", action="store_true", help="Skip the calibration over real pages")
    p.add_argument("--json", action="store_true", help="Print one JSON object")
    return p.parse_args(argv)


def log(msg: str) -> None:
    """Progress on stderr (stdout stays clean for --json)."""
    print(msg, file=sys.stderr, flush=True)


def chunks_of(corpus: dict[str, tuple[str, str]]) -> list[Chunk]:
    """One research chunk per document (url = the doc id)."""
    return [Chunk(text=text, title=title, topic_slug=TOPIC.slug, category=TOPIC.category,
                  url=doc_id, domain="scifact") for doc_id, (title, text) in corpus.items()]


def embed_cached(ws: Workspace, texts: list[str], cache_dir: Path) -> np.ndarray:
    """Dense document vectors, cached on disk by corpus hash and model."""
    digest = hashlib.sha256("\x1e".join(texts).encode()).hexdigest()[:16]
    path = cache_dir / f"dense-{ws.embedder.name}-{digest}.npy"
    if path.is_file():
        return np.load(path)
    log(f"embedding {len(texts)} documents with {ws.embedder.name} (cached in {path})...")
    start = time.perf_counter()
    vectors = ws.embedder.embed(texts)
    log(f"  {time.perf_counter() - start:.0f} s")
    cache_dir.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def index_corpus(ws: Workspace, chunks: list[Chunk], cache_dir: Path) -> list[Candidate]:
    """Index into the embedded Qdrant, then read everything back with ONE scroll (the real path)."""
    texts = [passage_text(c) for c in chunks]
    dense = embed_cached(ws, texts, cache_dir)
    name = research_collection(TOPIC.category)
    ws.store.ensure(name, ws.embedder.dim, ws.embedder.name)
    ws.store.upsert(name, chunks, dense, ws.sparse.encode(texts))
    return research_candidates(ws, TOPIC)


def reset(cands: Sequence[Candidate]) -> list[Candidate]:
    """Clear scores, notes and drop reasons left by an earlier query (in place)."""
    for c in cands:
        c.scores.clear()
        c.notes.clear()
        c.dropped = ""
    return list(cands)


def snapshot(cands: Sequence[Candidate]) -> list[Candidate]:
    """Copies that keep this query's scores (the originals are reused by the next query)."""
    return [replace(c, scores=dict(c.scores), notes=list(c.notes)) for c in cands]


def timed_runs(queries: dict[str, str], fn: Callable[[str], list[str]]) -> tuple[Runs, float]:
    """Run fn on every query; the rankings and the mean milliseconds per query."""
    runs: Runs = {}
    start = time.perf_counter()
    for qid, text in queries.items():
        runs[qid] = fn(text)
    return runs, (time.perf_counter() - start) * 1000.0 / max(1, len(queries))


def run_bm25(ws: Workspace, cands: list[Candidate], queries: dict[str, str]) -> tuple[Runs, float]:
    """nonseq's BM25 pre-rank over the full scroll (index built once, as one topic's scroll)."""
    sp = ws.settings.sparse
    index = build_index(cands, ws.sparse.tokenize, k1=sp.k1, b=sp.b)

    def one(text: str) -> list[str]:
        """One query's top 100 document ids."""
        ranked = prerank_bm25(reset(cands), ws.sparse.tokenize(text), index=index)
        return [c.chunk.url for c in ranked[:100]]

    return timed_runs(queries, one)


def run_dense(ws: Workspace, cands: list[Candidate], queries: dict[str, str]) -> tuple[Runs, float]:
    """Dense only: cosine of the workspace embedder's query vector with every document."""
    matrix = np.stack([unit(c.vector) for c in cands])  # type: ignore[arg-type]
    ids = [c.chunk.url for c in cands]

    def one(text: str) -> list[str]:
        """One query's top 100 document ids."""
        sims = matrix @ unit(ws.embedder.embed_query(text))
        top = np.argpartition(-sims, min(100, len(ids) - 1))[:100]
        return [ids[i] for i in top[np.argsort(-sims[top])]]

    return timed_runs(queries, one)


def run_hybrid(ws: Workspace, queries: dict[str, str]) -> tuple[Runs, float]:
    """Hybrid: the store's dense + sparse prefetch fused with RRF (k=60) inside Qdrant."""
    name = research_collection(TOPIC.category)

    def one(text: str) -> list[str]:
        """One query's top 100 document ids."""
        pts = ws.store.hybrid(name, ws.embedder.embed_query(text), ws.sparse.encode_query(text),
                              limit=100, depth=100)
        return [p.chunk.url for p in pts]

    return timed_runs(queries, one)


def run_bm25s(corpus: dict[str, tuple[str, str]], queries: dict[str, str],
              tokens: Callable[[str], list[str]] | None = None) -> tuple[Runs, float, float]:
    """The bm25s library (Lucene BM25, k1=1.2, b=0.75): its own tokenizer or ours."""
    import bm25s
    import Stemmer

    ids = list(corpus)
    texts = [f"{t}\n{x}" if t else x for t, x in corpus.values()]
    stemmer = Stemmer.Stemmer("english")
    start = time.perf_counter()
    model = bm25s.BM25(k1=1.2, b=0.75)
    if tokens is None:
        model.index(bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False),
                    show_progress=False)
    else:
        model.index([tokens(t) for t in texts], show_progress=False)
    index_s = time.perf_counter() - start
    vocab = model.vocab_dict if tokens is not None else None

    def one(text: str) -> list[str]:
        """One query's top 100 document ids."""
        if tokens is None:
            q = bm25s.tokenize([text], stopwords="en", stemmer=stemmer, show_progress=False)
        else:
            q = [[t for t in tokens(text) if t in (vocab or {})]]
        if (tokens is None and not q.ids[0]) or (tokens is not None and not q[0]):
            return []
        docs, _ = model.retrieve(q, k=min(100, len(ids)), show_progress=False, n_threads=1)
        return [ids[int(i)] for i in docs[0]]

    runs, ms = timed_runs(queries, one)
    return runs, ms, index_s


def chain_pools(ws: Workspace, cands: list[Candidate], queries: dict[str, str],
                reranker: Reranker) -> tuple[dict[str, list[Candidate]], dict[str, float]]:
    """The chain up to the rerank for every query: pre-rank, trust, dedup, cut, rerank."""
    sp = ws.settings.sparse
    index = build_index(cands, ws.sparse.tokenize, k1=sp.k1, b=sp.b)
    pools: dict[str, list[Candidate]] = {}
    timings: dict[str, float] = {}
    for qid, text in queries.items():
        pool, _ = research_pool(ws, reset(cands), ws.sparse.tokenize(text), timings, index=index)
        start = time.perf_counter()
        pools[qid] = snapshot(rerank(pool, reranker, text))
        timings["rerank"] = timings.get("rerank", 0.0) + (time.perf_counter() - start) * 1000
    n = max(1, len(queries))
    return pools, {k: v / n for k, v in timings.items()}


def finish(ws: Workspace, pools: dict[str, list[Candidate]], method: str,
           weight: float, k: int) -> tuple[Runs, float]:
    """Fusion, per-source normalisation and final score, as retrieve() does; rankings and ms."""
    s = ws.settings.retrieval
    runs: Runs = {}
    start = time.perf_counter()
    for qid, pool in pools.items():
        out = fuse(pool, prior=TRUST, method=method, weight=weight, k=k)
        out = normalize(out, key="fused", enabled=s.normalize)
        out = finalize(out, group_weights(s), trust_prior=s.trust_prior)
        runs[qid] = [c.chunk.url for c in out]
    return runs, (time.perf_counter() - start) * 1000.0 / max(1, len(pools))


def fusion_grid(pools: dict[str, list[Candidate]], qrels: Any) -> dict[str, dict[str, float]]:
    """nDCG@10 of every fusion variant (rerank only, RRF k, weighted w) on the same pools."""
    variants = [("none", 0.0, 60)] + [("rrf", 0.0, k) for k in GRID_RRF] + [
        ("weighted", w, 60) for w in GRID_WEIGHTED]
    out: dict[str, dict[str, float]] = {}
    for method, weight, k in variants:
        runs: Runs = {}
        for qid, pool in pools.items():
            fused = fuse_scores([c.scores[TRUST] for c in pool], [c.scores["rerank"] for c in pool],
                                method, weight, k)
            order = np.argsort(-fused, kind="stable")
            runs[qid] = [pool[i].chunk.url for i in order]
        label = {"none": "rerank only", "rrf": f"rrf k={k}", "weighted": f"weighted w={weight}"}
        out[label[method]] = evaluate(runs, qrels)
    return out


def rerankers(ws: Workspace, model_path: str) -> dict[str, Reranker]:
    """Every reranker that loads here: the bi-encoder, and cross-encoders found locally."""
    found: dict[str, Reranker] = {"bi-encoder": build_reranker(
        RerankSettings(backend="bi-encoder"), ws.embedder)}
    tries = {"cross-encoder": RerankSettings(), "fastembed": RerankSettings(backend="fastembed")}
    if model_path:
        tries["cross-encoder-local"] = RerankSettings(model_path=model_path)
    for label, settings in tries.items():
        r = build_reranker(settings.model_copy(update={"fallback": "none"}), ws.embedder)
        if r.offline:
            log(f"{label}: not available ({r.note.split(';')[0]})")
        else:
            found[label] = r
    return found


def run_chains(ws: Workspace, cands: list[Candidate], queries: dict[str, str], qrels: Any,
               args: argparse.Namespace) -> tuple[dict[str, dict[str, float]], dict[str, Any], str]:
    """The full chain with each reranker that loads: methods, fusion grids, calibration, default."""
    rr = ws.settings.rerank
    default_reranker = ws.reranker
    methods: dict[str, dict[str, float]] = {}
    details: dict[str, Any] = {}
    default = ""
    by_id = {c.chunk.url: c for c in cands}
    pages = None
    if not args.no_web and (args.aeb / "ground-truth.json").is_file():
        log(f"extracting, chunking and embedding the pages in {args.aeb}...")
        pages = calibration.load_pages(args.aeb, ws, args.cache_dir, args.limit)
    scores: dict[str, dict[str, Any]] = {}
    for label, reranker in rerankers(ws, args.rerank_model_path).items():
        log(f"chain with {reranker.name}...")
        pools, steps = chain_pools(ws, cands, queries, reranker)
        log(f"calibrating the gate with {reranker.name}...")
        found = calibration.scifact_calibration(pools, queries, qrels, by_id, reranker)
        if pages:
            web = calibration.web_calibration(ws, pages, reranker)
            found.update(web_covered=web["covered"], web_uncovered=web["uncovered"])
            if label == "bi-encoder":
                details["facts"] = {
                    "before": calibration.boilerplate_share(ws, pages, reranker, 0.0),
                    "after": calibration.boilerplate_share(ws, pages, reranker,
                                                           ws.settings.retrieval.prose_min),
                    "chunks": calibration.chunk_labels(pages)}
        scores[label] = {"backend": reranker.backend, "scores": found}
        method = fusion_method(ws, reranker)
        runs, fuse_ms = finish(ws, pools, method, rr.fusion_weight, rr.fusion_k)
        steps["fuse+normalize"] = fuse_ms
        name = f"chain-{label}"
        methods[name] = {**evaluate(runs, qrels), "ms_per_query": sum(steps.values())}
        details[name] = {"reranker": reranker.name, "fusion": method, "steps_ms": steps}
        if method != "none":
            only, ms = finish(ws, pools, "none", rr.fusion_weight, rr.fusion_k)
            methods[f"{name}-rerank-only"] = {**evaluate(only, qrels),
                                              "ms_per_query": sum(steps.values())}
        details[name]["fusion_grid"] = fusion_grid(pools, qrels)
        if reranker.backend == default_reranker.backend and reranker.name == default_reranker.name:
            default = name
    details["calibration"] = calibration.calibration_table(scores, ws.settings.gate)
    return methods, details, default


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """Run every method; the JSON-ready result."""
    self_check()
    corpus, queries, qrels = load_beir(args.data, args.qrels)
    judged = {q: queries[q] for q in qrels if q in queries}
    if args.limit:
        judged = dict(list(judged.items())[: args.limit])
    log(f"{len(corpus)} documents, {len(judged)} judged queries")
    with tempfile.TemporaryDirectory(prefix="nonseq-bench-") as tmp:
        ws = Workspace(Settings(paths=PathsSettings(data_dir=tmp),
                                embedding=EmbeddingSettings(**vector_cache_from_env())))
        try:
            start = time.perf_counter()
            cands = index_corpus(ws, chunks_of(corpus), args.cache_dir)
            log(f"indexed and scrolled {len(cands)} chunks in {time.perf_counter() - start:.0f} s")
            methods: dict[str, dict[str, float]] = {}
            index_s: dict[str, float] = {}
            start = time.perf_counter()
            build_index(cands, ws.sparse.tokenize)
            index_s["bm25"] = time.perf_counter() - start
            for name, fn in (("bm25", lambda: run_bm25(ws, cands, judged)),
                             ("dense", lambda: run_dense(ws, cands, judged)),
                             ("hybrid-rrf", lambda: run_hybrid(ws, judged))):
                log(f"{name}...")
                runs, ms = fn()
                methods[name] = {**evaluate(runs, qrels), "ms_per_query": ms}
            for name, tok in (("bm25s", None), ("bm25s-nonseq-tokens", ws.sparse.tokenize)):
                log(f"{name}...")
                runs, ms, index_s[name] = run_bm25s(corpus, judged, tok)
                methods[name] = {**evaluate(runs, qrels), "ms_per_query": ms}
            chains, details, default = run_chains(ws, cands, judged, qrels, args)
            methods.update(chains)
        finally:
            ws.close()
    return {"methods": methods, "default": default,
            "details": {"queries": len(judged), "documents": len(corpus),
                        "qrels": str(args.qrels or args.data / "qrels" / "train.tsv"),
                        "index_seconds": index_s, **details}}


def report(result: dict[str, Any]) -> None:
    """Print the figures as plain tables."""
    d = result["details"]
    print(f"SciFact: {d['documents']} documents, {d['queries']} queries ({d['qrels']})\n")
    print(f"{'method':<36} {'nDCG@10':>8} {'R@100':>8} {'ms/query':>9}")
    for name, m in result["methods"].items():
        star = "  <- default" if name == result["default"] else ""
        print(f"{name:<36} {m['ndcg@10']:>8.4f} {m['recall@100']:>8.4f} "
              f"{m['ms_per_query']:>9.2f}{star}")
    print("\nindex build (s): " + ", ".join(f"{k} {v:.2f}" for k, v in d["index_seconds"].items()))
    for name, info in d.items():
        if isinstance(info, dict) and "fusion_grid" in info:
            steps = ", ".join(f"{k} {v:.2f}" for k, v in info["steps_ms"].items())
            print(f"\n{name}: reranker {info['reranker']}, fusion {info['fusion']}")
            print(f"  ms per query by step: {steps}")
            print(f"  {'fusion variant':<22} {'nDCG@10':>8}")
            for variant, m in info["fusion_grid"].items():
                print(f"  {variant:<22} {m['ndcg@10']:>8.4f}")
    report_calibration(d)


def report_calibration(d: dict[str, Any]) -> None:
    """The gate calibration table and the boilerplate share of the selected facts."""
    print("\ngate quality check: top-10 mean rerank score per backend "
          "(n, mean, p10 / median / p90)")
    for label, row in d.get("calibration", {}).items():
        print(f"\n{label} (backend {row['backend']}, threshold {row['threshold']})")
        for name, dist in row["distributions"].items():
            if dist.get("n"):
                print(f"  {name:<18} n={dist['n']:<5} mean {dist['mean']:.3f}  "
                      f"{dist['p10']:.3f} / {dist['median']:.3f} / {dist['p90']:.3f}")
        for name in ("scifact", "web"):
            if name in row:
                m = row[name]
                print(f"  off-topic detection on {name:<8} precision {m['precision']:.3f}  "
                      f"recall {m['recall']:.3f}  (best-F1 threshold "
                      f"{row[f'{name}_best_f1_threshold']:.2f})")
    facts = d.get("facts")
    if facts:
        b, a, c = facts["before"], facts["after"], facts["chunks"]
        print(f"\nboilerplate among selected facts: {b['share']:.3f} ({b['boilerplate']}/"
              f"{b['selected']}) without the prose filter, {a['share']:.3f} ({a['boilerplate']}/"
              f"{a['selected']}) with it")
        print(f"prose test over all {c['chunks']} page chunks ({c['boilerplate']} boilerplate): "
              f"flagged precision {c['flagged_precision']:.3f}, recall {c['flagged_recall']:.3f}, "
              f"article chunks lost {c['prose_lost']:.3f}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    if not (args.data / "corpus.jsonl").is_file():
        print(f"error: no SciFact corpus in {args.data} (use --data)", file=sys.stderr)
        return 2
    result = collect(args)
    if args.json:
        print(json.dumps(result))
    else:
        report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
