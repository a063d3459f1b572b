"""Writing quality: five covered topics written from real pages, single call vs section by section.

Each topic's real news pages (tests/fixtures/web, from the Scrapinghub benchmark; saved pages are
cited by their canonical URLs) are researched into a temporary workspace, retrieved once, and
written with the configured backend (default: the bundled SmolLM2-135M in llama.cpp) in each
requested [writing] mode. Printed per topic and in total: words, sentences, supported share,
citations per 100 words, markers that resolve to a listed source (must be 100%), echoed
instruction lines, whether the quality gate kept it as a draft, and seconds.

    python bench/writing.py [--config FILE] [--mode both|single|sections] [--seed N] [--json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REPO = Path(__file__).resolve().parent.parent
WEB = REPO / "tests" / "fixtures" / "web"
#: The same five covered topics every run: (fixture topic, title, category, focus, schema).
TOPICS = [
    ("stadia", "Google Stadia game streaming launch", "software",
     "how the launch went for players", "news"),
    ("europa-water", "Water vapour on Jupiter's moon Europa", "space",
     "what the telescope observations found", "explainer"),
    ("lunar-landers", "NASA's commercial lunar lander program", "space",
     "which companies were picked and why", "news"),
    ("plague", "Plague cases in China", "health", "where the cases were and the risk", "news"),
    ("meth-campaign", "South Dakota's 'Meth. We're on it' campaign", "culture",
     "how the campaign was received", "opinion"),
]
_MARKER = re.compile(r"\[(\d+)\](?!\()")


def pages_of(topic: str, folder: Path) -> list[Path]:
    """The topic's fixture pages, written out as .html files."""
    listing = json.loads((WEB / "pages.json").read_text(encoding="utf-8"))["pages"]
    out = []
    for page in listing:
        if page["topic"] == topic:
            target = folder / f"{page['id']}.html"
            target.write_bytes(gzip.decompress((WEB / "html" / f"{page['id']}.html.gz").read_bytes()))
            out.append(target)
    return out


def measure(path: Path, seconds: float) -> dict[str, Any]:
    """The figures of one written article file."""
    from nonseq.writing.articles import read_article

    meta, text = read_article(path)
    body = text.split("\n## Sources\n")[0]
    prose = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("#"))
    words = len(re.findall(r"[^\W_]+", _MARKER.sub(" ", prose)))
    listed = {s["n"] for s in meta.get("sources") or []}
    markers = [int(n) for n in _MARKER.findall(body)]
    resolved = sum(n in listed for n in markers)
    return {"file": path.name, "status": meta.get("status", "written"), "words": words,
            "sentences": meta.get("sentences", 0), "unsupported": meta.get("unsupported", 0),
            "supported_share": meta.get("supported_share", 0.0),
            "citations_per_100_words": round(100 * len(markers) / words, 1) if words else 0.0,
            "markers": len(markers), "markers_resolved": resolved,
            "echoed_lines": (meta.get("quality") or {}).get("echoed", 0),
            "reasons": meta.get("draft_reasons", []), "seconds": round(seconds, 1)}


def run_topic(ws: Any, spec: tuple[str, str, str, str, str], modes: list[str],
              tmp: Path) -> list[dict[str, Any]]:
    """Research one topic's pages, retrieve once, write it in each mode."""
    from nonseq import queue
    from nonseq.errors import NonseqError
    from nonseq.pipeline.research import run_research
    from nonseq.pipeline.write import compose_article
    from nonseq.retrieval.pipeline import retrieve

    key, title, category, focus, schema = spec
    folder = tmp / key
    folder.mkdir()
    topic = queue.add_topic(ws.db, title, category, ws.categories, focus=focus, schema=schema)
    run_research(ws, topic.id, files=[str(p) for p in pages_of(key, folder)])
    topic = queue.get_topic(ws.db, topic.id)
    pack = retrieve(ws, topic)
    rows = []
    for mode in modes:
        ws.settings.writing.mode = mode
        started = time.perf_counter()
        try:
            article, _ = compose_article(ws, topic, pack, lambda _e, _d: None)
        except NonseqError as exc:  # e.g. the call's timeout: reported, the others still run
            print(f"  {key:<14} {mode:<8} error: {exc}", file=sys.stderr)
            rows.append({"topic": key, "mode": mode, "error": str(exc)})
            continue
        row = measure(Path(article.path), time.perf_counter() - started)
        rows.append({"topic": key, "mode": mode, "facts": len(pack.research), **row})
        print(f"  {key:<14} {mode:<8} {_line(row)}", file=sys.stderr)
    return rows


def _line(r: dict[str, Any]) -> str:
    """One row of figures as text."""
    resolved = r["markers_resolved"] / r["markers"] if r["markers"] else 1.0
    return (f"{r['status']:<7} words {r['words']:>4}  sentences {r['sentences']:>3}  supported "
            f"{r['supported_share']:>5.0%}  cites/100w {r['citations_per_100_words']:>5}  "
            f"resolved {resolved:>5.0%}  echoed {r['echoed_lines']}  {r['seconds']:>6.1f} s")


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per mode: sums and the goal checks (>= 5 sentences, >= half supported, no echo)."""
    out = {}
    for mode in dict.fromkeys(r["mode"] for r in rows):
        errors = sum("error" in r for r in rows if r["mode"] == mode)
        rs = [r for r in rows if r["mode"] == mode and "error" not in r]
        words = sum(r["words"] for r in rs)
        sentences = sum(r["sentences"] for r in rs)
        markers = sum(r["markers"] for r in rs)
        out[mode] = {
            "articles": len(rs), "errors": errors,
            "drafts": sum(r["status"] == "draft" for r in rs),
            "words": words, "sentences": sentences,
            "supported_share": round(1 - sum(r["unsupported"] for r in rs) / sentences, 3)
            if sentences else 0.0,
            "citations_per_100_words": round(100 * markers / words, 1) if words else 0.0,
            "markers_resolved": round(sum(r["markers_resolved"] for r in rs) / markers, 3)
            if markers else 1.0,
            "echoed_lines": sum(r["echoed_lines"] for r in rs),
            "seconds": round(sum(r["seconds"] for r in rs), 1),
            "goal_met": not errors and all(r["sentences"] >= 5 and r["supported_share"] >= 0.5
                                           and not r["echoed_lines"] for r in rs),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the benchmark, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=None, help="config.toml (default: built-in defaults)")
    parser.add_argument("--mode", choices=("both", "single", "sections"), default="both")
    parser.add_argument("--seed", type=int, default=1, help="[llm] seed (0 = keep the config's)")
    parser.add_argument("--topics", default="", help="only these topics (comma-separated keys)")
    parser.add_argument("--source-bias", type=float, default=None,
                        help="override [writing] source_bias (llama.cpp copy bias)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    from nonseq.config import Settings, load_settings
    from nonseq.workspace import Workspace

    modes = ["single", "sections"] if args.mode == "both" else [args.mode]
    with tempfile.TemporaryDirectory(prefix="nonseq-bench-writing-") as tmp:
        settings = load_settings(args.config, environ={}) if args.config else Settings()
        settings.base_dir = Path(tmp)
        settings.gate.uber_passes = 0
        if args.seed:
            settings.llm.seed = args.seed
        if args.source_bias is not None:
            settings.writing.source_bias = args.source_bias
        rows: list[dict[str, Any]] = []
        with Workspace(settings) as ws:
            wanted = [t for t in args.topics.split(",") if t]
            for spec in [t for t in TOPICS if not wanted or t[0] in wanted]:
                rows += run_topic(ws, spec, modes, Path(tmp))
    result = {"model": settings.llm.model_path or settings.llm.backend,
              "source_bias": settings.writing.source_bias, "topics": rows,
              "total": totals(rows)}
    if args.json:
        print(json.dumps(result))
        return 0
    for r in rows:
        print(f"{r['topic']:<14} {r['mode']:<8} " + (f"error: {r['error']}" if "error" in r
                                                       else _line(r)))
    for mode, t in result["total"].items():
        print(f"TOTAL {mode:<8} drafts {t['drafts']}/{t['articles']}  words {t['words']}  "
              f"sentences {t['sentences']}  supported {t['supported_share']:.0%}  cites/100w "
              f"{t['citations_per_100_words']}  resolved {t['markers_resolved']:.0%}  echoed "
              f"{t['echoed_lines']}  {t['seconds']} s  goal {'met' if t['goal_met'] else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
