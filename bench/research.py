"""Research throughput and memory: the whole research path against a local web, with peak RSS.

Scenarios (each research runs `nonseq research N --url ... --json` in its own child process, so its
peak RSS, VmHWM, is the command's own; pages are served on 127.0.0.1 by threaded http.server):

- `five`: an ordinary research of 5 real news pages (goal: peak RSS < 500 MB);
- `fragments`: one 4.7 MB page of 150,000 short paragraphs, built here from the benchmark's words
  (goal: < 600 MB and < 60 s on a quiet 2-core machine); also the CPU seconds of extracting 15,000
  and 150,000 paragraphs in this process (linear time: a ratio near 10);
- `prose`: a 500 KB `--file` of real article prose (the benchmark's article bodies);
- `pages`: all 181 pages of the Scrapinghub benchmark, then the same chunks' embedding alone
  (goal: research time <= 1.2 x embedding-only time);
- `pdf`: PDFs (the test fixture and the PDFs Debian packages installed under /usr/share/doc, at most
  --pdf-limit of them, or the ones --pdf names) served the same way and researched as URLs:
  `pdf_extract_pages_per_s` is the document reader alone (a child process per PDF, as research runs
  it), `pdf_research_pages_per_s` the whole path (fetch, read, chunk, embed, index).

CPU seconds are printed beside wall-clock seconds: on a busy machine wall time swings with other
work, CPU time much less.

    python bench/research.py [--scenario five|fragments|prose|pages|pdf|all] [--data DIR] [--limit N]
                              [--pdf FILE]... [--pdf-limit N] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import http.server
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: nonseq, devkit, bench
from devkit.data import DATA as SHARED  # noqa: E402 - after the path setup
from devkit.web import UNCACHED  # noqa: E402

DEFAULT_DATA = SHARED / "web" / "scrapinghub-aeb"
GOALS = {"five": {"peak_rss_mb": 500}, "fragments": {"peak_rss_mb": 600, "seconds": 60}}
FRAGMENTS = 150_000
PROSE_BYTES = 500_000


def load_pages(data: Path, limit: int | None) -> dict[str, bytes]:
    """{path: html bytes} for the benchmark pages (the first `limit` by key)."""
    html_dir = data / "html"
    if not html_dir.is_dir():
        sys.exit(f"error: {html_dir} not found (use --data DIR)")
    files = sorted(html_dir.glob("*.html.gz"))[:limit]
    return {f"/{f.name[:-3]}": gzip.decompress(f.read_bytes()) for f in files}


def article_bodies(data: Path) -> list[str]:
    """The benchmark's expected article texts, in key order."""
    truth = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    return [truth[key]["articleBody"] for key in sorted(truth)]


def fragment_page(data: Path, paragraphs: int = FRAGMENTS, seed: int = 7) -> bytes:
    """A page of `paragraphs` short paragraphs of 2-5 words drawn from the benchmark's article text."""
    words = " ".join(article_bodies(data)).replace("<", " ").replace(">", " ").replace("&", " and ").split()
    rng = random.Random(seed)
    lines = []
    for _ in range(paragraphs):
        n = rng.randint(2, 5)
        start = rng.randrange(len(words) - n)
        lines.append(f"<p>{' '.join(words[start:start + n])}</p>\n")
    return ("<html><head><title>Fragments</title></head><body><article>" + "".join(lines)
            + "</article></body></html>").encode()


def prose_file(data: Path, folder: Path, size: int = PROSE_BYTES) -> Path:
    """A text file of `size` bytes of real article prose (whole articles, the last one cut)."""
    text = "\n\n".join(article_bodies(data)).encode()[:size].decode("utf-8", "ignore")
    path = folder / "prose.txt"
    path.write_text(text, encoding="utf-8")
    return path


@contextmanager
def serve(pages: dict[str, bytes]) -> Iterator[str]:
    """Serve the pages on 127.0.0.1 (a thread per request); yields the base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        """GET a page by path; anything else is a 404."""

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            """Send the page or a 404."""
            path = self.path.split("?", 1)[0]
            body = pages.get(path)
            kind = "application/pdf" if path.endswith(".pdf") else "text/html; charset=utf-8"
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", kind if body else "text/plain")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            with contextlib.suppress(ConnectionError):  # a client that stops reading (a page too large)
                self.wfile.write(body or b"")

        def log_message(self, *args: Any) -> None:
            """Stay quiet."""

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


CONFIG = '[fetch]\nallow_hosts = ["127.0.0.1"]\nper_domain = 8\nrespect_robots = false\ntimeout = 120\n' + UNCACHED


def child_research(folder: Path, sources: list[str]) -> dict[str, Any]:
    """Run `nonseq research 1 <sources> --json` in a child process; its summary, seconds and peak RSS."""
    (folder / "config.toml").write_text(CONFIG, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("NONSEQ_CONFIG", None)
    subprocess.run([sys.executable, "-m", "nonseq", "queue", "add", "Benchmark pages", "-c", "business"],
                   cwd=folder, env=env, check=True, capture_output=True)
    code = ("import resource, sys, runpy\n"
            "sys.argv = ['nonseq', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('nonseq', run_name='__main__')\n"
            "finally:\n"
            "    peak = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
            "    cpu = resource.getrusage(resource.RUSAGE_SELF)\n"
            "    print(f'PEAK {peak} {cpu.ru_utime + cpu.ru_stime}', file=sys.stderr)\n")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, "research", "1", *sources, "--json"], cwd=folder,
                          env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    peak_line = next((line for line in done.stderr.splitlines() if line.startswith("PEAK ")), "PEAK 0 0")
    _, peak_kb, cpu = peak_line.split()
    if done.returncode != 0:
        sys.exit(f"error: research failed ({done.returncode}): {done.stderr[-2000:]}")
    summary = json.loads(done.stdout)
    return {"seconds": round(seconds, 1), "cpu_seconds": round(float(cpu), 1),
            "peak_rss_mb": round(int(peak_kb) / 1024), "fetched": summary["fetched"],
            "chunks": summary["chunks"], "capped": summary["capped"], "failed": summary["failed"]}


def five(data: Path, limit: int | None = None) -> dict[str, Any]:
    """An ordinary research of five real pages (fewer with limit)."""
    pages = load_pages(data, min(5, limit or 5))
    with tempfile.TemporaryDirectory(prefix="nonseq-bench-") as tmp, serve(pages) as base:
        urls = [arg for path in pages for arg in ("--url", base + path)]
        return {"pages": len(pages), **child_research(Path(tmp), urls)}


def fragments(data: Path, limit: int | None = None) -> dict[str, Any]:
    """The 150,000-paragraph page (1,000 x limit with limit), and the CPU seconds of extracting a tenth of it vs all."""
    count = 1000 * limit if limit else FRAGMENTS
    page = fragment_page(data, count)
    with tempfile.TemporaryDirectory(prefix="nonseq-bench-") as tmp, serve({"/fragments.html": page}) as base:
        figures = {"page_mb": round(len(page) / 1e6, 2), "paragraphs": count,
                   **child_research(Path(tmp), ["--url", base + "/fragments.html"])}
    from nonseq.research.extract import extract_html

    cpu: dict[int, float] = {}
    for n in (count // 10, count):
        html = fragment_page(data, n)
        started = time.process_time()
        extract_html(html, "https://frag.example/")
        cpu[n] = time.process_time() - started
    figures["extract_cpu_seconds"] = {str(n): round(s, 2) for n, s in cpu.items()}
    figures["extract_scaling"] = round(cpu[count] / max(cpu[count // 10], 1e-6), 1)
    return figures


def prose(data: Path, limit: int | None = None) -> dict[str, Any]:
    """A 500 KB file of prose given with --file (10 KB x limit with limit)."""
    with tempfile.TemporaryDirectory(prefix="nonseq-bench-") as tmp:
        path = prose_file(data, Path(tmp), 10_000 * limit if limit else PROSE_BYTES)
        return {"file_kb": round(path.stat().st_size / 1000), **child_research(Path(tmp), ["--file", str(path)])}


def all_pages(data: Path, limit: int | None) -> dict[str, Any]:
    """Research every benchmark page in this process, then time the embedding of the same chunks alone."""
    from nonseq import queue
    from nonseq.config import load_settings
    from nonseq.index.vector_store import research_collection
    from nonseq.pipeline.research import run_research
    from nonseq.workspace import Workspace

    pages = load_pages(data, limit)
    with tempfile.TemporaryDirectory(prefix="nonseq-bench-") as tmp, serve(pages) as base:
        (Path(tmp) / "config.toml").write_text(CONFIG, encoding="utf-8")
        ws = Workspace(load_settings(Path(tmp) / "config.toml", environ={}))
        try:
            ws.embedder.embed(["warm up the model"])  # load outside the timings
            topic = queue.insert_topic(ws.db, "Benchmark pages", "business", ws.categories)
            cpu = time.process_time()
            summary = run_research(ws, topic.id, urls=[base + path for path in pages])
            research_cpu = time.process_time() - cpu
            points = ws.store.scroll_all(research_collection("business"))
            points.sort(key=lambda p: (p.chunk.url, p.chunk.position))  # page order, as indexed
            texts = [p.chunk.embedding_text() for p in points]
            started, cpu = time.perf_counter(), time.process_time()
            ws.embedder.embed(texts)
            embed_seconds, embed_cpu = time.perf_counter() - started, time.process_time() - cpu
        finally:
            ws.close()
    return {
        "pages": len(pages), "fetched": summary.fetched, "failed": summary.failed, "chunks": summary.chunks,
        "research_seconds": round(summary.seconds, 2), "pages_per_s": round(len(pages) / summary.seconds, 2),
        "chunks_per_s": round(summary.chunks / summary.seconds, 2), "embed_only_seconds": round(embed_seconds, 2),
        "embed_only_chunks_per_s": round(len(texts) / embed_seconds, 2),
        "ratio": round(summary.seconds / embed_seconds, 3), "goal_ratio": 1.2,
        "research_cpu_seconds": round(research_cpu, 2), "embed_only_cpu_seconds": round(embed_cpu, 2),
        "cpu_ratio": round(research_cpu / embed_cpu, 3),
    }


def workspace(folder: Path) -> Any:
    """A workspace in `folder` whose fetcher may reach 127.0.0.1."""
    from nonseq.config import load_settings
    from nonseq.workspace import Workspace

    config = folder / "config.toml"
    config.write_text('[fetch]\nallow_hosts = ["127.0.0.1"]\nper_domain = 8\n'
                      'respect_robots = false\n' + UNCACHED, encoding="utf-8")
    return Workspace(load_settings(config, environ={}))


FIXTURE_PDF = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "documents" / "fontconfig-user.pdf"


def find_pdfs(limit: int) -> list[Path]:
    """The fixture PDF and up to `limit` - 1 PDFs installed under /usr/share/doc (sorted, so repeatable)."""
    found = sorted({p.resolve() for p in Path("/usr/share/doc").rglob("*.pdf*")
                    if p.name.endswith((".pdf", ".pdf.gz")) and p.resolve() != FIXTURE_PDF.resolve()})
    return [FIXTURE_PDF, *found[: max(0, limit - 1)]]


def pdf_bytes(path: Path) -> bytes:
    """A PDF's bytes (gunzipped when the package ships it compressed)."""
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def run_pdfs(pdfs: list[Path]) -> dict[str, Any]:
    """PDF pages per second: the document reader alone, then the whole research path over the local web."""
    import pypdfium2 as pdfium

    from nonseq import queue
    from nonseq.pipeline.ingest import limits_of
    from nonseq.pipeline.research import run_research
    from nonseq.research.documents import DocumentReader

    files = {f"/{n}-{p.name.removesuffix('.gz')}": pdf_bytes(p) for n, p in enumerate(pdfs)}
    pages = sum(len(pdfium.PdfDocument(data)) for data in files.values())
    with tempfile.TemporaryDirectory(prefix="nonseq-bench-") as tmp, serve(files) as base:
        ws = workspace(Path(tmp))
        try:
            reader = DocumentReader(limits_of(ws.settings.research))
            started = time.perf_counter()
            read = [reader.read(data, name) for name, data in files.items()]
            extract_seconds = time.perf_counter() - started
            ws.embedder.embed(["warm up the model"])
            topic = queue.insert_topic(ws.db, "Benchmark PDFs", "business", ws.categories)
            summary = run_research(ws, topic.id, urls=[base + name for name in files])
        finally:
            ws.close()
    return {
        "pdf_files": len(files), "pdf_pages": pages, "pdf_pages_with_text": sum(len(d.pages) for d in read),
        "pdf_skipped": {name: d.reason for name, d in zip(files, read, strict=True) if not d.ok},
        "pdf_extract_seconds": round(extract_seconds, 2),
        "pdf_extract_pages_per_s": round(pages / extract_seconds, 1),
        "pdf_research_seconds": round(summary.seconds, 2), "pdf_chunks": summary.chunks,
        "pdf_research_pages_per_s": round(pages / summary.seconds, 1),
    }


def verdicts(name: str, figures: dict[str, Any]) -> dict[str, bool]:
    """Each goal of a scenario: met or not."""
    return {key: figures[key] < limit for key, limit in GOALS.get(name, {}).items()}


def show(name: str, f: dict[str, Any]) -> None:
    """Print one scenario's figures."""
    if name == "pages":
        print(f"pages: {f['pages']} local pages, {f['fetched']} indexed, {f['chunks']} chunks, failed {f['failed']}")
        print(f"  research {f['research_seconds']:.2f} s ({f['pages_per_s']} pages/s, {f['chunks_per_s']} chunks/s); "
              f"embed only {f['embed_only_seconds']:.2f} s; ratio {f['ratio']:.3f} (goal <= {f['goal_ratio']}); "
              f"CPU {f['research_cpu_seconds']} vs {f['embed_only_cpu_seconds']} s (ratio {f['cpu_ratio']:.3f})")
        return
    goals = ", ".join(f"{k} < {v}: {'ok' if f['goals'][k] else 'MISSED'}" for k, v in GOALS.get(name, {}).items())
    failed = f", failed {f['failed']}" if f["failed"] else ""
    print(f"{name}: {f['chunks']} chunks from {f['fetched']} source(s){failed} in {f['seconds']} s "
          f"({f['cpu_seconds']} CPU s), peak RSS {f['peak_rss_mb']} MB" + (f"  [{goals}]" if goals else ""))
    for cut in f["capped"]:
        print(f"  cut short: {cut['url']}: kept the first {cut['kept']} chunks ({cut['setting']})")
    if name == "pdf":
        print_pdfs(f)
        return
    if "extract_scaling" in f:
        print(f"  extraction CPU s by paragraphs: {f['extract_cpu_seconds']} (x{f['extract_scaling']} for 10x input)")


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, run the scenarios, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", choices=["five", "fragments", "prose", "pages", "pdf", "all"], default="all")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="benchmark folder")
    parser.add_argument("--limit", type=int, default=None,
                        help="a smoke run: N pages (five, pages), 1,000 N paragraphs, 10 N KB of prose, N PDFs")
    parser.add_argument("--pdf", type=Path, action="append", help="pdf: a PDF to research (repeatable)")
    parser.add_argument("--pdf-limit", type=int, default=5, help="pdf: most PDFs found when --pdf is not given")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    data = args.data.resolve()
    names = ["five", "fragments", "prose", "pages", "pdf"] if args.scenario == "all" else [args.scenario]
    pdf_limit = min(args.pdf_limit, args.limit) if args.limit else args.pdf_limit
    runs = {"five": lambda: five(data, args.limit), "fragments": lambda: fragments(data, args.limit),
            "prose": lambda: prose(data, args.limit), "pages": lambda: all_pages(data, args.limit),
            "pdf": lambda: run_pdfs(args.pdf or find_pdfs(pdf_limit))}
    results: dict[str, Any] = {}
    for name in names:
        figures = runs[name]()
        figures["goals"] = verdicts(name, figures)
        results[name] = figures
        if not args.json:
            show(name, figures)
    if args.json:
        print(json.dumps(results))


def print_pdfs(figures: dict[str, Any]) -> None:
    """The PDFs' figures."""
    print(f"research of {figures['pdf_files']} PDFs ({figures['pdf_pages']} pages, "
          f"{figures['pdf_pages_with_text']} with text): {figures['pdf_chunks']} chunks")
    print(f"  extraction  {figures['pdf_extract_seconds']:>7.2f} s  {figures['pdf_extract_pages_per_s']} PDF pages/s "
          "(document reader, a child process per PDF)")
    print(f"  research    {figures['pdf_research_seconds']:>7.2f} s  {figures['pdf_research_pages_per_s']} PDF pages/s "
          "(fetch, read, chunk, embed, index)")
    for name, reason in figures["pdf_skipped"].items():
        print(f"  skipped {name}: {reason}")


if __name__ == "__main__":
    main()
