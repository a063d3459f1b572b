"""PDF text extraction, library by library: token F1 against reference texts, pages/s, peak RSS; and the
crafted bombs through nonseq's document reader.

Corpus: PDFs that Debian documentation packages ship together with the same document as text or HTML
(the reference). Install them first:

    apt-get install debian-reference-en debian-policy debian-faq bash-doc r-doc-pdf r-doc-html \\
        maint-guide developers-reference fontconfig shared-mime-info bzip2 nettle-dev valgrind
    pip install pypdf pdfminer.six      # to compare; pdftotext (poppler-utils, GPL) is a baseline only

Each (library, document) runs in its own child process (`--child`), so peak RSS is that child's
VmHWM and one library's crash or hang cannot touch another's figures; extraction time is measured
inside the child, after imports. Scores follow bench/extraction.py: tp/fp/fn over \\w+ token n-grams
per document; n=1 is token F1 (order-blind), n=4 shingle F1 also sees reading order, broken words and
interleaved running headers. `raw` is the library's page texts, `clean` the same after
nonseq.research.pdfclean.clean_pages. `nonseq` is the product's whole PDF path (its raw is cleaned).

The corpus was split before any result was seen: TUNE documents may be used to choose clean_pages
options, TEST documents only to report (docs/documents.md). Page texts are cached in --cache.

    python bench/documents.py [--libs nonseq,pypdfium2,pypdf,pdfminer,pdftotext] [--split all|tune|test]
                              [--grid] [--per-doc] [--fresh] [--json]
    python bench/documents.py --bombs     # every crafted bomb through the reader's child process
    python bench/documents.py --corpus tests/fixtures/documents --limit 1 --libs nonseq --json   # smoke
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from nonseq.research.pdfclean import CleanOptions, clean_pages

LIBS = ("nonseq", "pypdfium2", "pypdf", "pdfminer", "pdftotext")
R = "/usr/share/R/doc/manual"
#: (id, generator, split, pdf, reference); split fixed before any result was seen.
CORPUS = (
    ("R-intro", "texinfo", "tune", f"{R}/R-intro.pdf", f"{R}/R-intro.html"),
    ("R-data", "texinfo", "tune", f"{R}/R-data.pdf", f"{R}/R-data.html"),
    ("debian-faq", "dblatex", "tune", "/usr/share/doc/debian/FAQ/debian-faq.en.pdf.gz",
     "/usr/share/doc/debian/FAQ/debian-faq.en.txt.gz"),
    ("policy", "sphinx-latex", "tune", "/usr/share/doc/debian-policy/policy.pdf.gz",
     "/usr/share/doc/debian-policy/policy.txt.gz"),
    ("fhs", "apache-fop", "tune", "/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf.gz",
     "/usr/share/doc/debian-policy/fhs/fhs-3.0.txt.gz"),
    ("R-FAQ", "texinfo", "test", f"{R}/R-FAQ.pdf", f"{R}/R-FAQ.html"),
    ("R-admin", "texinfo", "test", f"{R}/R-admin.pdf", f"{R}/R-admin.html"),
    ("R-exts", "texinfo", "test", f"{R}/R-exts.pdf", f"{R}/R-exts.html"),
    ("R-ints", "texinfo", "test", f"{R}/R-ints.pdf", f"{R}/R-ints.html"),
    ("R-lang", "texinfo", "test", f"{R}/R-lang.pdf", f"{R}/R-lang.html"),
    ("bashref", "texinfo", "test", "/usr/share/doc/bash/bashref.pdf", "/usr/share/doc/bash/bashref.html"),
    ("nettle", "texinfo", "test", "/usr/share/doc/nettle-dev/nettle.pdf.gz",
     "/usr/share/doc/nettle-dev/nettle.html"),
    ("bash-man", "groff", "test", "/usr/share/doc/bash/bash.pdf", "/usr/share/doc/bash/bash.html"),
    ("debian-reference", "dblatex", "test", "/usr/share/debian-reference/debian-reference.en.pdf",
     "/usr/share/debian-reference/debian-reference.en.txt.gz"),
    ("maint-guide", "dblatex", "test", "/usr/share/doc/maint-guide/maint-guide.en.pdf",
     "/usr/share/doc/maint-guide/maint-guide.en.txt.gz"),
    ("developers-reference", "sphinx-latex", "test", "/usr/share/developers-reference/developers-reference.pdf",
     "/usr/share/developers-reference/developers-reference.txt.gz"),
    ("fontconfig-user", "docbook-latex", "test", "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz",
     "/usr/share/doc/fontconfig/fontconfig-user.txt.gz"),
    ("shared-mime-info", "docbook-latex", "test", "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
     "/usr/share/doc/shared-mime-info/shared-mime-info-spec.html/"),
    ("bzip2", "passivetex", "test", "/usr/share/doc/bzip2/manual.pdf.gz", "/usr/share/doc/bzip2/manual.html"),
    ("valgrind", "apache-fop", "test", "/usr/share/doc/valgrind/valgrind_manual.pdf.gz",
     "/usr/share/doc/valgrind/html/"),
)
_TOKEN = re.compile(r"\w+", re.UNICODE)


# -- child: one library on one PDF ------------------------------------------------------------------

def peak_rss_mb() -> float:
    """This process's peak resident memory in MB (VmHWM; 0 where /proc is missing)."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
    except OSError:
        return 0.0
    match = re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE)
    return round(int(match.group(1)) / 1024, 1) if match else 0.0


def pdf_bytes(path: str) -> bytes:
    """The PDF's bytes (gunzipped when the package ships it compressed)."""
    data = Path(path).read_bytes()
    return gzip.decompress(data) if path.endswith(".gz") else data


def extract_pypdfium2(data: bytes) -> list[str]:
    """Page texts with pypdfium2 (PDFium's text page, get_text_range)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    texts = []
    for i in range(len(pdf)):
        page = pdf[i]
        texts.append(page.get_textpage().get_text_range())
        page.close()
    return texts


def extract_pypdf(data: bytes) -> list[str]:
    """Page texts with pypdf's default (plain) extraction."""
    import io

    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data))
    return [page.extract_text() or "" for page in reader.pages]


def extract_pdfminer(data: bytes) -> list[str]:
    """Page texts with pdfminer.six's layout analysis (default LAParams)."""
    import io

    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    return ["".join(el.get_text() for el in page if isinstance(el, LTTextContainer))
            for page in extract_pages(io.BytesIO(data))]


def extract_pdftotext(data: bytes) -> list[str]:
    """Page texts with poppler's pdftotext CLI (GPL: a baseline, not a candidate)."""
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", "-", "-"], input=data, capture_output=True,
                         check=True).stdout.decode("utf-8", errors="replace")
    pages = out.split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def extract_nonseq(data: bytes) -> list[str]:
    """nonseq's whole PDF path: pypdfium2, column order, cleaning, reflow (research.pdf.read_pdf)."""
    from nonseq.research.paged import Limits
    from nonseq.research.pdf import read_pdf

    limits = Limits(isolate=False, max_pages=100_000, seconds=3600)
    doc = read_pdf(data, limits, time.monotonic() + limits.seconds)
    by_number = {p.number: p.text for p in doc.pages}
    return [by_number.get(n, "") for n in range(1, max(by_number, default=0) + 1)]


EXTRACTORS = {"nonseq": extract_nonseq, "pypdfium2": extract_pypdfium2, "pypdf": extract_pypdf,
              "pdfminer": extract_pdfminer, "pdftotext": extract_pdftotext}


def child(lib: str, pdf: str, out: str) -> None:
    """Child process: import the library, extract every page, write pages and seconds as JSON."""
    fn = EXTRACTORS[lib]
    data = pdf_bytes(pdf) if pdf != "-" else b""
    if lib != "pdftotext":
        __import__({"pypdfium2": "pypdfium2", "pypdf": "pypdf", "pdfminer": "pdfminer.high_level",
                    "nonseq": "pypdfium2"}[lib])
    start = time.perf_counter()
    try:
        pages, error = (fn(data) if data else []), ""
    except Exception as exc:  # noqa: BLE001 - a library failure is a figure
        pages, error = [], f"{type(exc).__name__}: {exc}"[:300]
    seconds = time.perf_counter() - start
    Path(out).write_text(json.dumps({"pages": pages, "seconds": seconds, "error": error,
                                     "vmhwm_mb": peak_rss_mb()}), encoding="utf-8")


def run_child(lib: str, pdf: str, out: Path, timeout: float) -> dict[str, Any]:
    """Run one extraction in a child; add its peak RSS (MB) and exit status."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", lib, pdf, str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            return {"pages": [], "seconds": timeout, "error": "timeout", "rss_mb": usage.ru_maxrss / 1024}
        time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    result = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {
        "pages": [], "seconds": 0.0, "error": f"exit {proc.returncode}"}
    result["rss_mb"] = result.get("vmhwm_mb") or usage.ru_maxrss / 1024  # VmHWM: ru_maxrss keeps the parent's
    return result


def folder_corpus(folder: Path) -> list[tuple[str, str, str, str, str]]:
    """A corpus of a folder's PDFs, each with its reference text beside it (NAME.pdf, NAME.txt)."""
    return [(p.stem, "unknown", "test", str(p), str(p.with_suffix(".txt"))) for p in sorted(folder.glob("*.pdf"))
            if p.with_suffix(".txt").is_file()]


# -- reference texts and scores ---------------------------------------------------------------------

def reference_text(path: str) -> str:
    """The reference: a text file's content, or the visible text of an HTML file (or folder of them)."""
    if path.endswith("/"):
        return "\n".join(reference_text(str(p)) for p in sorted(Path(path).glob("*.html")))
    data = Path(path).read_bytes()
    data = gzip.decompress(data) if path.endswith(".gz") else data
    if not path.endswith((".html", ".htm")):
        return data.decode("utf-8", errors="replace")
    from lxml import html

    root = html.fromstring(data)
    for bad in root.xpath("//script|//style|//head"):
        bad.drop_tree()
    return root.text_content()


def shingles(text: str, n: int) -> Counter[tuple[str, ...]]:
    """The n-gram shingles of a text's \\w+ tokens, counted (as bench/extraction.py)."""
    tokens = _TOKEN.findall(text or "")
    return Counter(tuple(tokens[i:i + n]) for i in range(max(0, len(tokens) - n + 1)))


def prf(true: Counter, pred: Counter) -> tuple[float, float, float]:
    """Precision, recall and F1 of predicted against true shingles."""
    tp = sum((true & pred).values())
    p = tp / max(1, sum(pred.values()))
    r = tp / max(1, sum(true.values()))
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def score(reference: str, pages: list[str], options: CleanOptions | None) -> dict[str, float]:
    """Token (n=1) and shingle (n=4) precision/recall/F1 of the joined pages (cleaned when options)."""
    text = "\n".join(clean_pages(pages, options) if options else pages)
    out: dict[str, float] = {}
    for n in (1, 4):
        p, r, f = prf(shingles(reference, n), shingles(text, n))
        out.update({f"p{n}": p, f"r{n}": r, f"f{n}": f})
    return out


# -- the run ----------------------------------------------------------------------------------------

def extract_all(libs: list[str], docs: list[tuple], cache: Path, timeout: float, fresh: bool) -> dict:
    """{(lib, doc id): child result}, from the cache unless --fresh."""
    results = {}
    for lib in libs:
        for doc_id, _gen, _split, pdf, _ref in docs:
            out = cache / lib / f"{doc_id}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            if fresh or not out.is_file():
                result = run_child(lib, pdf, out, timeout)
                out.write_text(json.dumps(result), encoding="utf-8")
                print(f"  {lib:9s} {doc_id:22s} {len(result['pages']):4d} pages "
                      f"{result['seconds']:7.2f} s {result['rss_mb']:6.0f} MB {result['error'][:60]}",
                      file=sys.stderr, flush=True)
            results[lib, doc_id] = json.loads(out.read_text(encoding="utf-8"))
    return results


def summarise(libs: list[str], docs: list[tuple], results: dict, options: CleanOptions) -> dict:
    """Per library: mean per-document scores raw and cleaned, pages/s, peak RSS, failures."""
    refs = {d[0]: reference_text(d[4]) for d in docs}
    table: dict[str, Any] = {}
    for lib in libs:
        rows = [(d[0], results[lib, d[0]]) for d in docs]
        ok = [(i, r) for i, r in rows if r["pages"] and not r["error"]]
        raw = [score(refs[i], r["pages"], None) for i, r in ok]
        clean = [score(refs[i], r["pages"], options) for i, r in ok]
        pages = sum(len(r["pages"]) for _, r in ok)
        seconds = sum(r["seconds"] for _, r in ok)
        table[lib] = {
            "docs": len(rows), "failures": {i: r["error"] or "no pages" for i, r in rows if (i, r) not in ok},
            "raw": {k: round(statistics.mean(s[k] for s in raw), 4) for k in raw[0]} if raw else {},
            "clean": {k: round(statistics.mean(s[k] for s in clean), 4) for k in clean[0]} if clean else {},
            "per_doc_clean_f4": {i: round(s["f4"], 3) for (i, _), s in zip(ok, clean, strict=True)},
            "per_doc_raw_f4": {i: round(s["f4"], 3) for (i, _), s in zip(ok, raw, strict=True)},
            "pages": pages, "seconds": round(seconds, 2),
            "pages_per_s": round(pages / seconds, 1) if seconds else 0.0,
            "peak_rss_mb": round(max(r["rss_mb"] for _, r in rows), 1),
            "median_rss_mb": round(statistics.median(r["rss_mb"] for _, r in rows), 1),
        }
    return table


def baseline_rss(libs: list[str], cache: Path) -> dict[str, float]:
    """Peak RSS of a child that only imports each library (the floor under the per-document RSS)."""
    out = {}
    for lib in libs:
        result = run_child(lib, "-", cache / f"_import_{lib}.json", 60)
        out[lib] = round(result["rss_mb"], 1)
    return out


def print_table(table: dict, split: str, base: dict[str, float]) -> None:
    """The human-readable figures."""
    print(f"split={split}: mean per-document scores (token F1 n=1, shingle F1 n=4)")
    print(f"{'library':10s} {'F1 raw':>7s} {'F1 cln':>7s} {'P1 cln':>7s} {'R1 cln':>7s} {'F4 raw':>7s} "
          f"{'F4 cln':>7s} {'pages/s':>8s} {'RSS max':>8s} {'RSS med':>8s} {'import':>7s} fails")
    for lib, t in table.items():
        raw, cln = t["raw"], t["clean"]
        print(f"{lib:10s} {raw.get('f1', 0):7.3f} {cln.get('f1', 0):7.3f} {cln.get('p1', 0):7.3f} "
              f"{cln.get('r1', 0):7.3f} {raw.get('f4', 0):7.3f} {cln.get('f4', 0):7.3f} {t['pages_per_s']:8.1f} "
              f"{t['peak_rss_mb']:8.0f} {t['median_rss_mb']:8.0f} {base.get(lib, 0):7.0f} "
              f"{len(t['failures'])}/{t['docs']} {t['failures'] or ''}")


def grid(libs: list[str], docs: list[tuple], results: dict) -> None:
    """Mean F1 (n=1, n=4) of clean_pages variants per library: the tuning grid (run it on --split tune)."""
    refs = {d[0]: reference_text(d[4]) for d in docs}
    variants = {"raw": None, "no strip": CleanOptions(strip_running=False),
                "no dehyphenate": CleanOptions(dehyphenate=False)}
    variants.update({f"band {b} window {w}": CleanOptions(band=b, window=w) for b in (1, 2, 3) for w in (1, 2, 3)})
    for lib in libs:
        ok = [(d[0], results[lib, d[0]]["pages"]) for d in docs if results[lib, d[0]]["pages"]]
        for name, options in variants.items():
            scores = [score(refs[i], pages, options) for i, pages in ok]
            mean = {k: statistics.mean(s[k] for s in scores) for k in ("f1", "f4", "p1")}
            print(f"{lib:10s} {name:20s} F1 {mean['f1']:.4f} F4 {mean['f4']:.4f} P1 {mean['p1']:.4f}")


# -- the crafted bombs, through nonseq's document reader ------------------------------------------------

def flate_bomb(size: int = 2 << 30) -> bytes:
    """One page whose content stream inflates to `size` bytes of spaces behind two FlateDecode filters."""
    import zlib

    from devkit import pdf_bombs

    inner, outer = zlib.compressobj(9), zlib.compressobj(9)
    block = b" " * (1 << 20)
    parts = [outer.compress(inner.compress(block)) for _ in range(size // len(block))]
    data = b"".join([*parts, outer.compress(inner.flush()), outer.flush()])
    body = b"<< /Length %d /Filter [/FlateDecode /FlateDecode] >>\nstream\n" % len(data) + data + b"\nendstream"
    return pdf_bombs.build(pdf_bombs.one_page(body))


def bombs(seconds: float, memory_mb: int) -> None:
    """Each crafted bomb through the document reader (a limited child process): time, outcome, reason."""
    from devkit import pdf_bombs
    from nonseq.research.documents import DocumentReader
    from nonseq.research.paged import Limits

    makers = {"flate_bomb": flate_bomb, "text_flood": pdf_bombs.text_flood,
              "xobject_fanout": pdf_bombs.xobject_fanout, "xobject_self": pdf_bombs.xobject_self,
              "deep_nesting": pdf_bombs.deep_nesting, "page_tree_loop": pdf_bombs.page_tree_loop,
              "deep_page_tree": pdf_bombs.deep_page_tree, "lying_count": pdf_bombs.lying_count,
              "many_pages": pdf_bombs.many_pages, "xref_prev_loop": pdf_bombs.xref_prev_loop,
              "zip_bomb.docx": pdf_bombs.docx_zip_bomb}
    reader = DocumentReader(Limits(seconds=seconds, memory_mb=memory_mb))
    print(f"limits: {seconds:g} s, {memory_mb} MB, {reader.limits.max_pages} pages; parent RSS before "
          f"{peak_rss_mb()} MB")
    for name, make in makers.items():
        data = make()
        started = time.perf_counter()
        doc = reader.read(data, name)
        print(f"{name:16s} {len(data):>10,} bytes {time.perf_counter() - started:6.1f} s  "
              f"{str(doc.outcome or 'read'):10s} {len(doc.pages):5d} pages  {doc.reason or doc.truncated}")
    print(f"parent peak RSS after: {peak_rss_mb()} MB")


def main(argv: list[str] | None = None) -> None:
    """Parse arguments, extract (or reuse the cache), score and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libs", default=",".join(LIBS))
    parser.add_argument("--split", choices=("all", "tune", "test"), default="all")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "nonseq-bench-documents")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per library and document")
    parser.add_argument("--fresh", action="store_true", help="re-extract even when cached")
    parser.add_argument("--band", type=int, default=CleanOptions.band)
    parser.add_argument("--window", type=int, default=CleanOptions.window)
    parser.add_argument("--per-doc", action="store_true", help="print clean F4 per document")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--grid", action="store_true", help="print the clean_pages tuning grid and stop")
    parser.add_argument("--bombs", action="store_true", help="run the crafted bombs through nonseq's reader")
    parser.add_argument("--corpus", type=Path, help="the documents of a folder instead: NAME.pdf with NAME.txt")
    parser.add_argument("--limit", type=int, default=0, help="only the first N documents (a smoke run)")
    parser.add_argument("--child", nargs=3, metavar=("LIB", "PDF", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return
    if args.bombs:
        bombs(10.0, 1024)
        return
    libs = [x for x in args.libs.split(",") if x]
    docs = folder_corpus(args.corpus) if args.corpus else [d for d in CORPUS if args.split in ("all", d[2])]
    docs = docs[:args.limit or None]
    missing = [d[0] for d in docs if not (Path(d[3]).is_file() and Path(d[4]).exists())]
    if missing:
        sys.exit(f"error: missing corpus files for {missing}: install the packages named in the docstring")
    results = extract_all(libs, docs, args.cache, args.timeout, args.fresh)
    if args.grid:
        grid(libs, docs, results)
        return
    options = CleanOptions(band=args.band, window=args.window)
    table = summarise(libs, docs, results, options)
    base = baseline_rss(libs, args.cache)
    if args.json:
        print(json.dumps({"split": args.split, "options": asdict(options), "import_rss_mb": base,
                          "libraries": table}, indent=1))
        return
    print_table(table, args.split, base)
    if args.per_doc:
        for lib, t in table.items():
            print(lib, "raw F4", t["per_doc_raw_f4"])
            print(lib, "clean F4", t["per_doc_clean_f4"])


if __name__ == "__main__":
    main()
