"""`nonseq demo`'s workspace: built-in settings and the bundled pages (`nonseq.api.run_demo` runs it)."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

from nonseq.config import Settings, settings_from

DEMO_DIR = Path(__file__).resolve().parent.parent / "assets" / "demo"


#: The one variable the demo reads: where the embedder keeps its vectors, which never changes what it writes.
VECTOR_CACHE = "NONSEQ_EMBEDDING__VECTOR_CACHE"


def demo_settings(root: Path) -> Settings:
    """Built-in defaults rooted in the demo folder (no config file, no environment but VECTOR_CACHE)."""
    settings = Settings()
    if VECTOR_CACHE in os.environ:
        chosen = settings_from({}, "the environment", {VECTOR_CACHE: os.environ[VECTOR_CACHE]})
        settings.embedding.vector_cache = chosen.embedding.vector_cache
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
