"""A knowledge base at a year's scale: import N real-sentence facts, then time the store and a context pack.

Data: SciFact abstracts (../shared/data/scifact/corpus.jsonl), each split into sentences with the
project's splitter (49,607 sentences and titles; beyond that, pairs of neighbouring sentences). Each abstract
is one topic; 90 % of its facts are topic facts of `science`, 10 % evergreen. Every fact is
promoted, so the import embeds each one and writes its point.

Each phase runs in a fresh child process, so its RSS and open time are its own:
  import  `knowledge import` of the export (through the service, with a progress counter):
          import_facts_per_s, peak_rss_mb, and the share of the import spent in the embedder;
  embed   the workspace's embedder alone on the same texts (a random sample with --embed-sample):
          the import's time against the embedder's own (the issue's goal: at most 1.5x);
  pack    open the store (open_seconds: the store and its knowledge shards loaded), then the
          median of 10 context packs for a topic with research chunks, with the knowledge base
          (pack_seconds) and in a workspace holding only the same research (pack_seconds_empty).

    python bench/knowledge_scale.py [--facts N] [--embed-sample N] [--url QDRANT_URL] [--json]

`--url` adds a Qdrant server (loopback only) as a second engine next to the embedded default.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: nonseq, devkit, bench
from devkit.data import DATA as SHARED  # noqa: E402 - after the path setup
from devkit.web import UNCACHED  # noqa: E402

SCIFACT = SHARED / "scifact"
CATEGORY = "science"
PACKS = 10


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM) in MB."""
    with open("/proc/self/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("VmHWM:"))


def scifact_facts(limit: int) -> list[dict[str, Any]]:
    """Up to `limit` export lines: the sentences of SciFact abstracts (then their titles), promoted."""
    from nonseq.text.sentences import sentences

    docs = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").open(encoding="utf-8")]
    texts: list[tuple[str, int, str]] = []
    for doc in docs:
        if len(texts) >= limit:  # enough: the same first `limit` facts, without splitting the rest
            break
        texts += [(str(doc["_id"]), i, s) for i, s in enumerate(sentences(doc.get("text") or "")) if len(s) > 20]
    texts += [(str(doc["_id"]), -1, doc["title"]) for doc in docs if doc.get("title") and len(texts) < limit]
    for doc in docs if len(texts) < limit else []:  # then pairs of neighbouring sentences
        parts = sentences(doc.get("text") or "")
        texts += [(str(doc["_id"]), 1000 + i, f"{parts[i]} {parts[i + 1]}") for i in range(len(parts) - 1)]
    facts = []
    for doc_id, n, text in texts[:limit]:
        uid = hashlib.sha1(f"{doc_id}:{n}".encode()).hexdigest()
        evergreen = int(uid[:2], 16) < 26  # about 10 %
        facts.append({"uid": uid, "text": text, "category": CATEGORY, "kind": "evergreen" if evergreen else "topic",
                      "status": "promoted", "topic_slug": "" if evergreen else f"scifact-{doc_id}",
                      "url": f"https://scifact.example/{doc_id}", "title": "SciFact", "domain": "scifact.example",
                      "quote": text, "extractor": "extractive", "support": 0.9})
    if len(facts) < limit:
        raise SystemExit(f"SciFact gives only {len(facts)} facts; ask for fewer")
    return facts


def write_config(data_dir: Path, url: str) -> Path:
    """A config.toml for a workspace in data_dir (the embedded store, or a server by url)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    config = data_dir / "config.toml"
    qdrant = f'\n[qdrant]\nurl = "{url}"\n' if url else ""
    config.write_text(f'[paths]\ndata_dir = "{data_dir}"\n{qdrant}{UNCACHED}', encoding="utf-8")
    return config


def workspace(config: Path) -> Any:
    """The workspace of a bench config; never a vector cache, even from the environment: the import is timed
    against the model's own speed."""
    from nonseq.config import VECTOR_CACHE_ENV, load_settings
    from nonseq.workspace import Workspace

    return Workspace(load_settings(str(config), environ={**os.environ, VECTOR_CACHE_ENV: ""}))


def phase_import(config: Path, export: Path) -> dict[str, Any]:
    """Import the export; facts/s, peak RSS, and the share of the time the embedder took."""
    from nonseq.knowledge import import_facts

    ws = workspace(config)
    embedder = ws.embedder
    embedder.embed(["warm up the embedder"])
    spent = [0.0]
    real_embed = embedder.embed

    def timed(texts: list[str]) -> Any:
        start = time.perf_counter()
        try:
            return real_embed(texts)
        finally:
            spent[0] += time.perf_counter() - start

    embedder.embed = timed  # type: ignore[method-assign]
    start = time.perf_counter()
    report = import_facts(ws, export, progress=_progress_line)
    seconds = time.perf_counter() - start
    points = sum(ws.store.count(n) for n in ws.store.collections())
    ws.close()
    return {"facts": report.added, "points": points, "import_seconds": round(seconds, 1),
            "import_facts_per_s": round(report.added / seconds, 1), "embed_seconds_in_import": round(spent[0], 1),
            "embedder_share": round(spent[0] / seconds, 3), "peak_rss_mb": round(peak_rss_mb())}


def _progress_line(event: Any) -> None:
    """A line on stderr every 2,560 facts (a bench log, not a bar)."""
    if event.done and event.done % 2560 == 0:
        print(f"  imported {event.done}/{event.total} at {time.strftime('%H:%M:%S')}", file=sys.stderr, flush=True)


def phase_embed(config: Path, export: Path, sample: int) -> dict[str, Any]:
    """The embedder alone on the export's texts (or a seeded random sample of them), in the same batches."""
    ws = workspace(config)
    texts = [json.loads(line)["text"] for line in export.open(encoding="utf-8")]
    if 0 < sample < len(texts):
        texts = random.Random(7).sample(texts, sample)
    ws.embedder.embed(["warm up the embedder"])
    start = time.perf_counter()
    for i in range(0, len(texts), 256):
        ws.embedder.embed(texts[i:i + 256])
    seconds = time.perf_counter() - start
    ws.close()
    return {"embed_texts": len(texts), "embed_seconds": round(seconds, 1),
            "embedder_texts_per_s": round(len(texts) / seconds, 1)}


def bench_topic(export: Path) -> tuple[Any, list[Any]]:
    """The pack topic (a SciFact claim, slug of its abstract) and research chunks of 8 abstracts."""
    from nonseq.models import Chunk, Topic
    from nonseq.text.sentences import sentences

    docs = {str(d["_id"]): d for d in map(json.loads, (SCIFACT / "corpus.jsonl").open(encoding="utf-8"))}
    query = json.loads((SCIFACT / "queries.jsonl").open(encoding="utf-8").readline())
    qrels = [line.split("\t") for line in (SCIFACT / "qrels" / "train.tsv").read_text().splitlines()[1:]]
    doc_id = next(d for q, d, _ in qrels if q == str(query["_id"]))
    topic = Topic(title=query["text"], slug=f"scifact-{doc_id}", category=CATEGORY, id=1)
    chunks = []
    for k, other in enumerate([doc_id, *random.Random(3).sample(sorted(docs), 7)]):
        parts = sentences(docs[other]["text"])
        for i in range(0, len(parts), 3):
            chunks.append(Chunk(text=" ".join(parts[i:i + 3]), topic_slug=topic.slug, category=CATEGORY,
                                url=f"https://research.example/{other}", domain="research.example",
                                title=docs[other]["title"], position=1000 * k + i))
    return topic, chunks


def phase_pack(config: Path, export: Path) -> dict[str, Any]:
    """Open the store (and its knowledge shards), index the topic's research, time 10 context packs."""
    from nonseq.index.vector_store import EVERGREEN, knowledge_collection, research_collection
    from nonseq.retrieval.pipeline import run_chain

    ws = workspace(config)
    start = time.perf_counter()
    store = ws.store
    facts = store.count(knowledge_collection(CATEGORY)) + store.count(EVERGREEN)
    opened = time.perf_counter() - start
    topic, chunks = bench_topic(export)
    ws.indexer.index(research_collection(CATEGORY), chunks)
    _ = ws.reranker
    run_chain(ws, topic)  # warm up: models loaded, caches filled
    times = []
    for _ in range(PACKS):
        start = time.perf_counter()
        pack = run_chain(ws, topic)
        times.append(time.perf_counter() - start)
    knowledge = sum(1 for c in pack.pool if c.group.value in ("knowledge", "evergreen"))
    out = {"knowledge_points": facts, "open_seconds": round(opened, 3),
           "pack_seconds": round(statistics.median(times), 3),
           "pack_seconds_p90": round(sorted(times)[int(0.9 * (PACKS - 1))], 3), "pack_pool_knowledge": knowledge,
           "pack_store_ms": round(pack.timings.get("knowledge", 0.0) + pack.timings.get("scroll", 0.0), 1),
           "reranker": pack.reranker, "pack_peak_rss_mb": round(peak_rss_mb())}
    ws.close()
    return out


def child(phase: str, *args: str) -> dict[str, Any]:
    """Run one phase in a fresh process (niced), return its JSON."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    cmd = ["nice", "-n", "10", sys.executable, str(Path(__file__).resolve()), "--phase", phase, *args]
    done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def run_engine(name: str, url: str, work: Path, export: Path, sample: int) -> dict[str, Any]:
    """Every phase for one engine."""
    config = write_config(work / name, url)
    figures = child("import", str(config), str(export))
    figures.update(child("embed", str(config), str(export), str(sample)))
    figures["import_vs_embedder"] = round(
        figures["import_seconds"] / (figures["embed_seconds"] * figures["facts"] / figures["embed_texts"]), 2)
    figures.update(child("pack", str(config), str(export)))
    empty = write_config(work / f"{name}-empty", url)
    figures["pack_seconds_empty"] = child("pack", str(empty), str(export))["pack_seconds"]
    return figures


def main() -> None:
    """Parse the options and run the bench (or one phase, in a child)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--facts", "--limit", type=int, default=50_000, help="facts to import")
    parser.add_argument("--embed-sample", type=int, default=0, help="embed only N random texts alone (0 = all)")
    parser.add_argument("--url", default="", help="also measure a Qdrant server at this (loopback) URL")
    parser.add_argument("--work", default="", help="folder for the workspaces (default: a temporary one)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("args", nargs="*", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.phase:
        config, export = Path(opts.args[0]), Path(opts.args[1])
        result = {"import": lambda: phase_import(config, export), "pack": lambda: phase_pack(config, export),
                  "embed": lambda: phase_embed(config, export, int(opts.args[2]))}[opts.phase]()
        print(json.dumps(result))
        return
    with tempfile.TemporaryDirectory(prefix="nonseq-scale-") as tmp:
        work = Path(opts.work or tmp)
        work.mkdir(parents=True, exist_ok=True)
        export = work / "facts.jsonl"
        export.write_text("".join(json.dumps(f) + "\n" for f in scifact_facts(opts.facts)), encoding="utf-8")
        engines = {"edge": run_engine("edge", "", work, export, opts.embed_sample)}
        if opts.url:
            engines["server"] = run_engine("server", opts.url, work, export, opts.embed_sample)
    result = {"facts": opts.facts, "cpus": os.cpu_count(), "load_avg": round(os.getloadavg()[0], 1),
              "engines": engines}
    if opts.json:
        print(json.dumps(result))
        return
    for name, figures in engines.items():
        print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
