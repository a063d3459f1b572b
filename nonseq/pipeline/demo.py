"""`nonseq demo`: a real offline run on bundled pages in a throw-away workspace."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path
from typing import Any

from nonseq import queue
from nonseq.config import Settings
from nonseq.errors import NotFoundError
from nonseq.events import Kind, Progress, Step, emit
from nonseq.pipeline.research import run_research
from nonseq.pipeline.write import WriteResult, write_topic
from nonseq.workspace import Workspace

DEMO_DIR = Path(__file__).resolve().parent.parent / "assets" / "demo"


def demo_settings(root: Path) -> Settings:
    """Built-in defaults rooted in the demo folder (no config file, no environment)."""
    settings = Settings()
    settings.base_dir = root
    settings.gate.uber_passes = 0  # the demo runs without SearXNG
    settings.retrieval.final_top = 8
    # The writer decodes greedily ([writing] temperature 0.0): the same article on every run on one
    # machine. The seed fixes what other steps sample.
    settings.llm.seed = 1
    return settings


def unpack_pages(root: Path) -> tuple[dict[str, Any], list[Path]]:
    """The demo topic and its pages written out as .html files."""
    manifest = json.loads((DEMO_DIR / "manifest.json").read_text(encoding="utf-8"))
    pages_dir = root / "pages"
    pages_dir.mkdir(parents=True, exist_ok=True)
    files = []
    for page in manifest["pages"]:
        target = pages_dir / Path(page["file"]).name.removesuffix(".gz")
        target.write_bytes(gzip.decompress((DEMO_DIR / page["file"]).read_bytes()))
        files.append(target)
    return manifest["topic"], files


def run_demo(directory: str | None = None, progress: Progress | None = None) -> WriteResult:
    """Queue the demo topic, research the bundled pages, and write the article."""
    root = Path(directory).expanduser().resolve() if directory else Path(
        tempfile.mkdtemp(prefix="nonseq-demo-"))
    root.mkdir(parents=True, exist_ok=True)
    emit(progress, Step.RESEARCH, Kind.NOTE, f"demo workspace: {root}")
    with Workspace(demo_settings(root)) as ws:
        spec, files = unpack_pages(root)
        try:
            topic = queue.get_topic(ws.db, queue.slugify(spec["title"]))
        except NotFoundError:  # the first run in this folder
            topic = queue.add_topic(ws.db, spec["title"], spec["category"], ws.categories,
                                    focus=spec["focus"], sub_queries=spec["queries"],
                                    schema=spec["schema"], persona=spec.get("persona", ""))
        emit(progress, Step.RESEARCH, Kind.START, f"researching {len(files)} bundled page(s)")
        if topic.stage.value in ("queued", "researching", "failed"):
            run_research(ws, topic.id, files=[str(f) for f in files])
        return write_topic(ws, topic.id, decide=None, progress=progress, force=True)
