"""What the vector cache saves: the bundled embedder on SciFact abstracts with no cache, filling a cache, and
reading it back in a fresh embedder (nothing in its memory), as a later run or another process would.

Prints texts per second and CPU seconds of each pass, how many times faster the read-back is than the
model, what writing the cache costs on a first run (filling against no cache), the file's bytes per
vector, and whether every read-back vector equals the model's bit for bit (it must: the cache is exact).
Each pass embeds the same texts in batches of 256, the way research hands over chunks; the model is warmed
up first, outside the timings.

    python bench/vector_cache.py [--texts 1000] [--threads 0] [--data PATH] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devkit.data import DATA  # noqa: E402 - after the path setup


def abstracts(corpus: Path, limit: int) -> list[str]:
    """The first `limit` SciFact documents (BEIR format), title and abstract: a research chunk or two long."""
    texts = []
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            texts.append(f"{doc['title']} {doc['text']}")
            if len(texts) == limit:
                break
    return texts


def timed(embed: Callable[[list[str]], np.ndarray], texts: list[str]) -> tuple[np.ndarray, float, float]:
    """Embed in batches of 256: (the rows, wall seconds, CPU seconds of this process)."""
    started, cpu = time.perf_counter(), time.process_time()
    rows = np.vstack([embed(texts[i:i + 256]) for i in range(0, len(texts), 256)])
    return rows, time.perf_counter() - started, time.process_time() - cpu


def embedder(threads: int, cache: str) -> Any:
    """A fresh bundled embedder (its own empty memory) with the given vector cache, warmed up."""
    from nonseq.config import EmbeddingSettings
    from nonseq.index.embed import FastEmbedEmbedder

    model = FastEmbedEmbedder(EmbeddingSettings(threads=threads, vector_cache=cache))
    model.embed(["warm up the model before the clock starts"])
    return model


def run(texts: list[str], threads: int) -> dict[str, Any]:
    """The three passes and their figures."""
    with tempfile.TemporaryDirectory(prefix="nonseq-bench-") as tmp:
        path = str(Path(tmp) / "vectors.sqlite")
        plain, plain_s, plain_cpu = timed(embedder(threads, "").embed, texts)
        filled, fill_s, fill_cpu = timed(embedder(threads, path).embed, texts)
        reader = embedder(threads, path)
        read, read_s, read_cpu = timed(reader.embed, texts)
        rows = len(reader.memo.disk)
        file_bytes = sum(f.stat().st_size for f in Path(tmp).iterdir())
    return {
        "texts": len(texts), "characters": sum(map(len, texts)), "threads": threads,
        "model_texts_per_s": round(len(texts) / plain_s, 1), "model_cpu_seconds": round(plain_cpu, 2),
        "filling_texts_per_s": round(len(texts) / fill_s, 1), "filling_cpu_seconds": round(fill_cpu, 2),
        "filling_overhead": round(fill_s / plain_s - 1, 3),
        "read_back_texts_per_s": round(len(texts) / read_s, 1), "read_back_cpu_seconds": round(read_cpu, 3),
        "read_back_speedup": round(plain_s / read_s, 1),
        "bytes_per_vector": round(file_bytes / rows) if rows else 0,
        "identical": bool(np.array_equal(plain, filled) and np.array_equal(plain, read)),
    }


def main() -> None:
    """Parse the options, run the passes, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", "--limit", type=int, default=1000, help="SciFact documents to embed")
    parser.add_argument("--threads", type=int, default=0, help="ONNX threads (0 = all cores)")
    parser.add_argument("--data", default=str(DATA / "scifact" / "corpus.jsonl"), help="SciFact corpus.jsonl")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    opts = parser.parse_args()
    corpus = Path(opts.data)
    if not corpus.is_file():
        sys.exit(f"error: no SciFact corpus at {corpus} (give --data PATH)")
    if opts.texts < 1:
        sys.exit("error: --texts must be at least 1")
    figures = run(abstracts(corpus, opts.texts), opts.threads)
    if opts.json:
        print(json.dumps(figures))
        return
    print(f"{figures['texts']} SciFact abstracts ({figures['characters']:,} characters), "
          f"{opts.threads or 'all'} thread(s)")
    print(f"  model alone      {figures['model_texts_per_s']:>8} texts/s  CPU {figures['model_cpu_seconds']} s")
    print(f"  filling a cache  {figures['filling_texts_per_s']:>8} texts/s  CPU {figures['filling_cpu_seconds']} s "
          f"({figures['filling_overhead']:+.1%} against the model alone)")
    print(f"  read back        {figures['read_back_texts_per_s']:>8} texts/s  CPU {figures['read_back_cpu_seconds']} s "
          f"({figures['read_back_speedup']}x the model)")
    print(f"  {figures['bytes_per_vector']} bytes a vector on disk; read-back identical to the model's: "
          f"{figures['identical']}")


if __name__ == "__main__":
    main()
