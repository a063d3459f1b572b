"""Every bench in its smoke mode: `python bench/NAME.py --limit N --json` runs the same code paths on a
few items and prints the keys its full run prints, so a move or a rename cannot break a bench unseen.

The figures of a smoke run measure nothing; only that the bench runs and what it prints. bench/support.py's
smoke is tests/test_support.py's, bench/retrieval.py's in-process run is tests/test_retrieval_bench.py's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from devkit.data import AEB, DATA

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"


@pytest.fixture(scope="module")
def only_nonseq(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding only this checkout's `nonseq` (a link): on PYTHONPATH, it makes the benches import this
    checkout's package while devkit/, bench/ and tests/ stay off the path unless a bench puts the repository there."""
    folder = tmp_path_factory.mktemp("only-nonseq")
    (folder / "nonseq").symlink_to(REPO / "nonseq", target_is_directory=True)
    return folder


def bench(path: Path, name: str, *args: str, timeout: float = 600) -> Any:
    """Run `python bench/NAME.py ARGS` from the repository as a user does; its JSON output."""
    env = {**os.environ, "PYTHONPATH": str(path), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, str(REPO / "bench" / f"{name}.py"), *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_extraction_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "extraction", "--limit", "3", "--json")
    assert got["pages"] == 3
    keys = {"precision", "recall", "f1", "mean_page_f1", "empty", "metadata_found", "seconds", "pages_per_s"}
    assert keys <= set(got)
    assert 0 < got["f1"] <= 1


def test_vector_cache_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "vector_cache", "--limit", "3", "--threads", "1", "--json")
    keys = {"model_texts_per_s", "filling_overhead", "read_back_texts_per_s", "read_back_speedup", "bytes_per_vector"}
    assert got["texts"] == 3 and keys <= set(got)
    assert got["identical"] is True  # what is read back is the model's vector, bit for bit
    assert got["bytes_per_vector"] >= 4 * 384


def test_startup_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "startup", "--limit", "1", "--json")
    assert set(got) == {"--help", "queue list", "--version"}
    for row in got.values():
        assert {"cpu_min", "cpu_median", "cpu_max", "heavy_imports"} <= set(row) and row["cpu_min"] > 0


def test_documents_smoke(tmp_path: Path, only_nonseq: Path) -> None:
    got = bench(only_nonseq, "documents", "--corpus", str(FIXTURES / "documents"), "--limit", "1", "--libs", "nonseq",
                "--cache", str(tmp_path), "--json")
    assert {"split", "options", "import_rss_mb", "libraries"} <= set(got)
    nonseq = got["libraries"]["nonseq"]
    assert {"raw", "clean", "pages_per_s", "peak_rss_mb"} <= set(nonseq)
    assert nonseq["clean"]["f1"] > 0.5  # the fixture PDF's text against its own text file


def test_topic_floor_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "topic_floor", "--limit", "2", "--json")
    assert {"n", "other_category_percentiles", "pass"} <= set(got)
    assert got["n"]["own"] > 0


@pytest.mark.slow  # the model answers a JSON call: about 35 s of CPU
def test_llm_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "llm", "--limit", "1", "--max-tokens", "8", "--json")
    assert {"description", "load_s", "ttft_s", "tokens", "tokens_per_s", "json_s", "json_ok"} <= set(got)
    assert 0 < got["tokens"] <= 8


def test_menu_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "menu", "--limit", "1", "--json")
    assert got["runs"] == 1 and len(got["menu_seconds"]) == 1
    assert 0 < got["menu_median_s"] <= got["probe_median_s"]


def test_instructions_filter_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "instructions_filter", "--limit", "3", "--json")
    keys = {"recall_heldout_handwritten", "recall_bipia_all", "false_positives_news", "false_positives_scifact"}
    assert keys <= set(got)
    assert got["false_positives_news"]["sentences"] > 0 and 0 <= got["recall_bipia_all"]["recall"] <= 1


def test_retrieval_smoke_with_the_web_calibration(tmp_path: Path, only_nonseq: Path) -> None:
    """The whole bench, its calibration over real pages included (what broke unseen once)."""
    from tests.test_retrieval_bench import write_beir

    write_beir(tmp_path / "beir")
    got = bench(only_nonseq, "retrieval", "--data", str(tmp_path / "beir"), "--aeb", str(AEB), "--limit", "3",
                "--cache-dir", str(tmp_path / "cache"), "--json")
    assert {"methods", "default", "details"} <= set(got)
    assert got["default"] in got["methods"]
    calib = got["details"]["calibration"]["bi-encoder"]
    assert {"backend", "threshold", "distributions"} <= set(calib)


@pytest.mark.slow
def test_knowledge_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "knowledge", "--limit", "2", "--llm-pages", "1", "--json")
    assert got["pages"] == 2 and got["llm"]["pages"] == 1
    assert {"pages_with_prose", "extractive", "llm", "pipeline"} <= set(got)


@pytest.mark.slow
def test_knowledge_scale_smoke(tmp_path: Path, only_nonseq: Path) -> None:
    got = bench(only_nonseq, "knowledge_scale", "--limit", "60", "--work", str(tmp_path), "--json")
    assert got["facts"] == 60 and {"cpus", "load_avg", "engines"} <= set(got)
    assert {"import_facts_per_s", "peak_rss_mb", "pack_seconds"} <= set(got["engines"]["edge"])


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_research_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "research", "--limit", "1", "--data", str(AEB), "--json", timeout=1800)
    assert set(got) == {"five", "fragments", "prose", "pages", "pdf"}
    assert got["five"]["pages"] == 1 and got["fragments"]["paragraphs"] == 1000
    assert all("goals" in v for v in got.values())


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_night_smoke(only_nonseq: Path) -> None:
    got = bench(only_nonseq, "night", "--limit", "1", "--llm", "echo", "--json", timeout=1800)
    assert {"exit_code", "seconds", "peak_rss_mb", "crashes"} <= set(got) and len(got["topics"]) == 1
    (row,) = got["topics"].values()  # the echo writer takes a minute, far inside the 1800-s topic limit
    assert {"research", "total"} <= set(row) and row["outcome"] == "written" and got["exit_code"] == 0


@pytest.mark.slow
def test_writing_and_its_audit_smoke(tmp_path: Path, only_nonseq: Path) -> None:
    got = bench(only_nonseq, "writing", "--limit", "1", "--llm", "echo", "--out", str(tmp_path), "--json")
    assert len(got["topics"]) == 1 and {"split", "total"} <= set(got)
    total = got["total"]  # what the review shows: items with words the writer wrote in
    assert 0 <= total["written_in_items"] <= total["review_items"] == got["topics"][0]["review_items"] > 0
    assert total["written_in_word_share"] == round(total["written_in_words"] / total["review_words"], 3) < 1
    scored = bench(only_nonseq, "writing_audit", "score", str(tmp_path), "--labels", str(tmp_path / "labels.json"),
                   "--json")
    assert scored[str(tmp_path)]["topics"] == 1
    assert {"sentences", "model_worded", "labelled", "distorted"} <= set(scored[str(tmp_path)])


def test_every_bench_has_a_smoke_test() -> None:
    """A new bench needs its smoke test here (or in the test file named in the module docstring)."""
    tested = {"extraction", "startup", "documents", "topic_floor", "llm", "menu", "retrieval", "knowledge",
              "knowledge_scale", "research", "night", "writing", "writing_audit", "support", "calibration",
              "instructions_filter", "vector_cache"}
    owned_elsewhere = {"attack"}  # tests/test_attack.py replays its cases
    benches = {p.stem for p in (REPO / "bench").glob("*.py") if not p.stem.startswith("_") and p.stem != "__init__"}
    assert benches - owned_elsewhere == tested
    assert DATA.is_dir()
