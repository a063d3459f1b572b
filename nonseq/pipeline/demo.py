"""`nonseq demo`'s workspace: built-in settings and the bundled pages (`nonseq.api.run_demo` runs it)."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

from nonseq.config import VECTOR_CACHE_ENV, Settings, settings_from

DEMO_DIR = Path(__file__).resolve().parent.parent / "assets" / "demo"


def demo_settings(root: Path) -> Settings:
    """Built-in defaults rooted in the demo folder (no config file, no environment but VECTOR_CACHE_ENV)."""
    settings = Settings()
    if VECTOR_CACHE_ENV in os.environ:
        chosen = settings_from({}, "the environment", {VECTOR_CACHE_ENV: os.environ[VECTOR_CACHE_ENV]})
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
