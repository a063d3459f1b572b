"""CLI basics: help, version, paths, doctor, and the fast-start promise."""

import json
import os
import subprocess
import sys
from pathlib import Path


def test_help_lists_the_commands(cli) -> None:
    out = cli("--help").stdout
    for name in ("queue", "config", "paths", "doctor", "init"):
        assert name in out


def test_version(cli) -> None:
    assert cli("--version").stdout.startswith("nonseq ")


def test_paths_json_points_into_the_workspace(cli, isolated) -> None:
    found = json.loads(cli("paths", "--json").stdout)
    assert found["data_dir"] == str(isolated / ".nonseq")
    assert found["database"].endswith("nonseq.db")
    assert found["config"] == "(built-in defaults)"
    assert found["vector_cache"] == os.environ["NONSEQ_EMBEDDING__VECTOR_CACHE"]  # the suite's, not ~/.cache


def test_paths_say_where_vectors_are_kept_and_doctor_counts_them(cli, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("NONSEQ_EMBEDDING__VECTOR_CACHE", "~/kept/vectors.sqlite")
    assert json.loads(cli("paths", "--json").stdout)["vector_cache"] == str(Path.home() / "kept/vectors.sqlite")
    monkeypatch.setenv("NONSEQ_EMBEDDING__MODEL", "BAAI/bge-small-en-v1.5")  # another model keeps no vectors
    assert json.loads(cli("paths", "--json").stdout)["vector_cache"] == "(none)"
    monkeypatch.delenv("NONSEQ_EMBEDDING__MODEL")
    monkeypatch.setenv("NONSEQ_EMBEDDING__VECTOR_CACHE", "")
    assert json.loads(cli("paths", "--json").stdout)["vector_cache"] == "(none)"
    monkeypatch.setenv("NONSEQ_EMBEDDING__VECTOR_CACHE", str(tmp_path / "v.sqlite"))
    assert f"vector cache {tmp_path / 'v.sqlite'} (1 vector)" in cli("doctor", code=None).stdout


def test_doctor_reports_each_backend(cli) -> None:
    result = cli("doctor", code=None)
    for name in ("database", "qdrant", "embedder", "sparse"):
        assert f"ok   {name}" in result.stdout
    # no cross-encoder weights here: the fallback works, so a warning, not ok and not FAIL
    assert "warn reranker: OFFLINE" in result.stdout
    assert "reranker offline" not in result.stderr  # doctor says it in its own line


def test_help_and_queue_list_import_no_model_library(isolated) -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from nonseq.cli import app\n"
        "r = CliRunner()\n"
        "assert r.invoke(app, ['--help']).exit_code == 0\n"
        "assert r.invoke(app, ['queue', 'list']).exit_code == 0\n"
        "heavy = [m for m in ('fastembed', 'onnxruntime', 'torch', 'qdrant_client', 'llama_cpp',"
        " 'trafilatura', 'sentence_transformers', 'numpy') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=isolated, check=True).stdout
    assert out.strip() == "[]"


def test_python_dash_m_works(isolated) -> None:
    done = subprocess.run([sys.executable, "-m", "nonseq", "--version"], capture_output=True,
                          text=True, cwd=isolated)
    assert done.returncode == 0 and done.stdout.startswith("nonseq ")
