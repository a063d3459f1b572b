"""Research throughput: pages/s and chunks/s of the whole research path against a local web,
and PDF pages per second.

The 181 pages of the Scrapinghub benchmark are served on 127.0.0.1 by threaded http.server and
researched as the user's own --url sources (no SearXNG needed) into a temporary workspace with the
configured (default: bundled) embedder. Then the same chunks' embedding alone is timed (the same
header + text the research path embeds). Goal: research time <= 1.2 x embedding-only time.
CPU seconds (all threads of this process) are printed too: on a busy machine wall-clock times
swing with other work, CPU time much less.

PDFs (the test fixture and the PDFs Debian packages installed under /usr/share/doc, at most
--pdf-limit of them, or the ones --pdf names) are then served the same way and researched as URLs:
`pdf_extract_pages_per_s` is the document reader alone (a child process per PDF, as research runs
it), `pdf_research_pages_per_s` the whole path (fetch, read, chunk, embed, index).

    python bench/research.py [--data DIR] [--limit N] [--pdf FILE]... [--pdf-limit N] [--only-pdf] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import json
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(__file__).resolve().parent.parent / ".." / "shared" / "data" / "web" / \
    "scrapinghub-aeb"


def load_pages(data: Path, limit: int | None) -> dict[str, bytes]:
    """{path: html bytes} for the benchmark pages (the first `limit` by key)."""
    html_dir = data / "html"
    if not html_dir.is_dir():
        sys.exit(f"error: {html_dir} not found (use --data DIR)")
    files = sorted(html_dir.glob("*.html.gz"))[:limit]
    return {f"/{f.name[:-3]}": gzip.decompress(f.read_bytes()) for f in files}


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


def workspace(folder: Path) -> Any:
    """A workspace in `folder` whose fetcher may reach 127.0.0.1."""
    from nonseq.config import load_settings
    from nonseq.workspace import Workspace

    config = folder / "config.toml"
    config.write_text('[fetch]\nallow_hosts = ["127.0.0.1"]\nper_domain = 8\n'
                      'respect_robots = false\n', encoding="utf-8")
    return Workspace(load_settings(config, environ={}))


def run(data: Path, limit: int | None) -> dict[str, Any]:
    """Research the served pages, then time the embedding of the same chunks alone."""
    from nonseq import queue
    from nonseq.index.store import research_collection
    from nonseq.pipeline.research import run_research

    pages = load_pages(data, limit)
    with tempfile.TemporaryDirectory(prefix="nonseq-bench-") as tmp, serve(pages) as base:
        ws = workspace(Path(tmp))
        try:
            ws.embedder.embed(["warm up the model"])  # load outside the timings
            topic = queue.add_topic(ws.db, "Benchmark pages", "business", ws.categories)
            urls = [base + path for path in pages]
            cpu = time.process_time()
            summary = run_research(ws, topic.id, urls=urls)
            research_cpu = time.process_time() - cpu
            points = ws.store.scroll_all(research_collection("business"))
            points.sort(key=lambda p: (p.chunk.url, p.chunk.position))  # page order, as indexed
            texts = [p.chunk.embedding_text() for p in points]
            started, cpu = time.perf_counter(), time.process_time()
            ws.embedder.embed(texts)
            embed_seconds = time.perf_counter() - started
            embed_cpu = time.process_time() - cpu
        finally:
            ws.close()
    research_seconds = summary.seconds
    return {
        "pages": len(pages),
        "fetched": summary.fetched,
        "failed": summary.failed,
        "chunks": summary.chunks,
        "research_seconds": round(research_seconds, 2),
        "pages_per_s": round(len(pages) / research_seconds, 2),
        "chunks_per_s": round(summary.chunks / research_seconds, 2),
        "embed_only_seconds": round(embed_seconds, 2),
        "embed_only_chunks_per_s": round(len(texts) / embed_seconds, 2),
        "ratio": round(research_seconds / embed_seconds, 3),
        "goal_ratio": 1.2,
        "research_cpu_seconds": round(research_cpu, 2),
        "embed_only_cpu_seconds": round(embed_cpu, 2),
        "cpu_ratio": round(research_cpu / embed_cpu, 3),
    }


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
            topic = queue.add_topic(ws.db, "Benchmark PDFs", "business", ws.categories)
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


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, run the benchmark, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="benchmark folder")
    parser.add_argument("--limit", type=int, default=None, help="only the first N pages")
    parser.add_argument("--pdf", type=Path, action="append", help="a PDF to research (repeatable)")
    parser.add_argument("--pdf-limit", type=int, default=5, help="most PDFs found when --pdf is not given")
    parser.add_argument("--only-pdf", action="store_true", help="skip the web pages, measure PDFs only")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    figures = {} if args.only_pdf else run(args.data.resolve(), args.limit)
    figures.update(run_pdfs(args.pdf or find_pdfs(args.pdf_limit)))
    if args.json:
        print(json.dumps(figures))
        return
    if not args.only_pdf:
        print_pages(figures)
    print_pdfs(figures)


def print_pages(figures: dict[str, Any]) -> None:
    """The web pages' figures."""
    print(f"research of {figures['pages']} local pages: {figures['fetched']} indexed, "
          f"{figures['chunks']} chunks, failed {figures['failed']}")
    print(f"  research    {figures['research_seconds']:>7.2f} s  {figures['pages_per_s']} pages/s  "
          f"{figures['chunks_per_s']} chunks/s")
    print(f"  embed only  {figures['embed_only_seconds']:>7.2f} s  "
          f"{figures['embed_only_chunks_per_s']} chunks/s")
    verdict = "ok" if figures["ratio"] <= figures["goal_ratio"] else "over the goal"
    print(f"  ratio {figures['ratio']:.3f} (goal <= {figures['goal_ratio']}: {verdict}); CPU seconds "
          f"{figures['research_cpu_seconds']} vs {figures['embed_only_cpu_seconds']} "
          f"(ratio {figures['cpu_ratio']:.3f}, steadier on a shared machine)")


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
