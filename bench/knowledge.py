"""Fact extraction over real pages: facts per page, share supported, LLM vs extractive, seconds per page.

Data: the Scrapinghub article-extraction-benchmark pages (html/*.html.gz). Each page is extracted as
research would (trafilatura), its title is taken as the topic, and then:
  - extractive: the page's most informative prose sentences for the topic, support-checked;
  - llm: the configured LLM (default: the bundled SmolLM2-135M) distils facts as schema-constrained
    JSON; a fact counts when its quote is really in the page and the support check accepts it;
  - pipeline: what `nonseq knowledge extract` stores (the LLM's accepted facts, else extractive).
The LLM is slow on a CPU, so it runs on the first --llm-pages pages only (0 to skip it).

    python bench/knowledge.py [--data DIR] [--pages N] [--llm-pages N] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from pathlib import Path
from statistics import fmean
from typing import Any

from nonseq.config import load_settings
from nonseq.errors import BackendError
from nonseq.knowledge.extract import Page, check, extractive_facts, llm_facts, prose_lines
from nonseq.models import Topic
from nonseq.research.extract import extract_html
from nonseq.workspace import Workspace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: nonseq, devkit, bench
from devkit.data import DATA as SHARED  # noqa: E402 - after the path setup

DEFAULT_DATA = SHARED / "web" / "scrapinghub-aeb"


def load_pages(data: Path, limit: int) -> list[tuple[Topic, Page]]:
    """(topic, page) for the first `limit` benchmark pages that yield text."""
    truth = json.loads((data / "ground-truth.json").read_text(encoding="utf-8"))
    out = []
    for key in sorted(truth):
        files = list((data / "html").glob(f"{key}*.html.gz"))
        if not files:
            continue
        url = truth[key]["url"]
        doc = extract_html(gzip.decompress(files[0].read_bytes()), url, favor_precision=True)
        if doc is None or not doc.title:
            continue
        topic = Topic(doc.title, key[:12], "bench", id=0)
        out.append((topic, Page(url, doc.title, "", doc.published or "", "", doc.text)))
        if len(out) >= limit:
            break
    return out


def run(ws: Any, pages: list[tuple[Topic, Page]], llm_pages: int) -> dict[str, Any]:
    """Run both extractors over the pages and gather the figures."""
    limit = ws.settings.knowledge.facts_per_page
    ext = {"facts": [], "supported": [], "seconds": [], "prose_pages": 0}
    llm_stats = {"errors": [], "proposed": [], "quoted": [], "supported": [], "seconds": [], "failed": 0}
    pipeline = {"llm": 0, "extractive": 0, "facts": []}
    llm = None
    if llm_pages:
        from nonseq.llm import build_llm

        llm = build_llm(ws.settings.llm)
    for n, (topic, page) in enumerate(pages):
        started = time.perf_counter()
        picked = extractive_facts(ws, topic, page, limit)
        kept = check(ws, list(picked))
        ext["seconds"].append(time.perf_counter() - started)
        ext["facts"].append(len(picked))
        ext["supported"] += [1.0] * len(kept) + [0.0] * (len(picked) - len(kept))
        ext["prose_pages"] += bool(prose_lines(page.text))
        chosen, family = kept, "extractive"
        if llm is not None and n < llm_pages:
            started = time.perf_counter()
            prose = "\n".join(line for _, line in prose_lines(page.text))
            try:
                found, proposed = llm_facts(llm, topic, page, prose,
                                            int(ws.settings.knowledge.page_tokens * 0.75))
            except BackendError as exc:
                found, proposed = [], 0
                llm_stats["failed"] += 1
                llm_stats["errors"].append(str(exc)[:160])
            ok = check(ws, list(found))
            llm_stats["seconds"].append(time.perf_counter() - started)
            llm_stats["proposed"].append(proposed)
            llm_stats["quoted"].append(len(found))
            llm_stats["supported"] += [1.0] * len(ok) + [0.0] * (len(found) - len(ok))
            if ok:
                chosen, family = ok[:limit], "llm"
        pipeline[family] += bool(chosen)
        pipeline["facts"].append(len(chosen))
        print(f"  {n + 1}/{len(pages)} {topic.title[:60]}: {len(chosen)} {family}", file=sys.stderr)
    return _figures(pages, ext, llm_stats, pipeline)


def _figures(pages: list[Any], ext: dict[str, Any], llm: dict[str, Any],
             pipe: dict[str, Any]) -> dict[str, Any]:
    """The summary figures."""
    def mean(values: list[float]) -> float | None:
        return round(fmean(values), 3) if values else None

    return {
        "pages": len(pages),
        "pages_with_prose": ext["prose_pages"],
        "extractive": {"facts_per_page": mean(ext["facts"]), "share_supported": mean(ext["supported"]),
                       "seconds_per_page": mean(ext["seconds"])},
        "llm": {"pages": len(llm["seconds"]), "failed": llm["failed"], "errors": llm["errors"][:3],
                "facts_proposed_per_page": mean(llm["proposed"]),
                "facts_with_quote_in_page_per_page": mean(llm["quoted"]),
                "share_supported": mean(llm["supported"]),
                "seconds_per_page": mean(llm["seconds"])},
        "pipeline": {"facts_per_page": mean(pipe["facts"]),
                     "pages_by_llm": pipe["llm"], "pages_by_extractive": pipe["extractive"]},
    }


def main() -> None:
    """Parse arguments, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--pages", "--limit", type=int, default=181, help="the first N pages")
    parser.add_argument("--llm-pages", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    pages = load_pages(args.data.resolve(), args.pages)
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings()
        settings.paths.data_dir = tmp
        with Workspace(settings) as ws:
            figures = run(ws, pages, args.llm_pages)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
