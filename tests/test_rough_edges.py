"""Rough edges found walking the README: options, environment, narrow terminals, one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from devkit.checks import one_error_line
from devkit.child import without_settings
from nonseq import queue
from nonseq.config import load_settings
from nonseq.db import connect
from nonseq.errors import NotFoundError, StageError
from nonseq.models import Stage

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


# -- --config and --debug after the subcommand ---------------------------------------------------
def test_config_and_debug_work_after_the_subcommand(cli: Any, isolated: Path) -> None:
    other = isolated / "elsewhere"
    other.mkdir()
    (other / "c.toml").write_text('[categories]\nnames = ["gardening"]\n', encoding="utf-8")
    cli("queue", "add", "Tomatoes", "-c", "gardening", "--config", "elsewhere/c.toml")
    listed = json.loads(cli("queue", "list", "--json", "--config", "elsewhere/c.toml").stdout)
    assert [t["category"] for t in listed] == ["gardening"]
    assert (other / ".nonseq" / "nonseq.db").is_file()  # the workspace beside that config
    assert json.loads(cli("queue", "list", "--json").stdout) == []  # ./config: a different one
    # before the subcommand still works; -c is --category only
    assert "tomatoes" in cli("--config", "elsewhere/c.toml", "queue", "list").stdout
    assert cli("-c", "elsewhere/c.toml", "queue", "list", code=2).exit_code == 2
    one_error_line(cli("queue", "show", "9", code=1), "no topic '9'")
    with pytest.raises(NotFoundError):
        cli("queue", "show", "9", "--debug", code=None)


def test_global_options_are_hoisted_from_any_position(cli: Any, isolated: Path) -> None:
    from nonseq.commands._common import hoist_global_options

    assert hoist_global_options(["queue", "list", "--config", "a.toml", "--debug", "--json"]) == [
        "--config", "a.toml", "--debug", "queue", "list", "--json"]
    assert hoist_global_options(["config", "path", "--config=a.toml", "--", "--debug"]) == [
        "--config=a.toml", "config", "path", "--", "--debug"]
    (isolated / "c.toml").write_text("", encoding="utf-8")
    assert cli("config", "path", "--config", "c.toml").stdout.strip() == str(isolated / "c.toml")
    assert cli("config", "path", "--config=c.toml").stdout.strip() == str(isolated / "c.toml")


# -- NONSEQ_* variables --------------------------------------------------------------------------
def test_bad_environment_variable_is_named_not_the_config_file(
        cli: Any, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (isolated / "config.toml").write_text("[gate]\nmin_chunks = 4\n", encoding="utf-8")
    monkeypatch.setenv("NONSEQ_FETCH__TIMEOUT", "-1")
    line = one_error_line(cli("queue", "list", code=2), "NONSEQ_FETCH__TIMEOUT: fetch.timeout")
    assert "config.toml" not in line
    monkeypatch.delenv("NONSEQ_FETCH__TIMEOUT")
    monkeypatch.setenv("NONSEQ_FETCH__TIMEOUTT", "3")
    line = one_error_line(cli("queue", "list", code=2), "NONSEQ_FETCH__TIMEOUTT")
    assert "unknown key" in line and "config.toml" not in line
    monkeypatch.delenv("NONSEQ_FETCH__TIMEOUTT")
    (isolated / "config.toml").write_text("[gate]\nmin_chunks = -4\n", encoding="utf-8")
    one_error_line(cli("queue", "list", code=2), "config.toml: gate.min_chunks")


def test_config_show_marks_values_from_the_environment(
        cli: Any, no_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (no_env / "config.toml").write_text("[gate]\nmin_chunks = 7\n", encoding="utf-8")
    monkeypatch.setenv("NONSEQ_FETCH__TIMEOUT", "9")
    shown = cli("config", "show").stdout
    assert "timeout = 9.0  # from $NONSEQ_FETCH__TIMEOUT" in shown
    assert re.search(r"^min_chunks = 7$", shown, re.MULTILINE)  # from the file: unmarked
    data = json.loads(cli("config", "show", "--json").stdout)
    assert data["from_env"] == {"fetch.timeout": "NONSEQ_FETCH__TIMEOUT"}
    monkeypatch.setenv("NONSEQ_LLM__API_KEY", "topsecret")
    shown = cli("config", "show").stdout
    assert 'api_key = "***"  # from $NONSEQ_LLM__API_KEY' in shown and "topsecret" not in shown
    assert data["fetch"]["timeout"] == 9


# -- 80-column lists -----------------------------------------------------------------------------
def _run(args: list[str], cwd: Path, columns: int) -> str:
    """`python -m nonseq ARGS` in a terminal-sized environment; its stdout."""
    env = without_settings()
    env.update(COLUMNS=str(columns), LINES="40", HF_HUB_OFFLINE="1", TERM="xterm")
    out = subprocess.run([sys.executable, "-m", "nonseq", *args], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_lists_stay_usable_at_80_columns(cli: Any, isolated: Path) -> None:
    titles = ["The surprisingly long history of solid-state battery manufacturing in Asia",
              "Why municipal composting programmes keep failing and what cities learned",
              "A short one", "Quantum error correction milestones explained for engineers"]
    for i, title in enumerate(titles):
        cli("queue", "add", title, "-c", "science", "-p", str(10 * i), "--focus", "x " * 40,
            "--persona", "the-skeptic")
    conn = connect(load_settings().data_dir / "nonseq.db")
    conn.execute("UPDATE topics SET stage=? WHERE id=2", (Stage.INSUFFICIENT.value,))
    conn.commit()
    conn.close()
    articles = isolated / "articles"
    articles.mkdir()
    for n, title in enumerate(titles, 1):
        slug = queue.slugify(title)
        (articles / f"{slug}-{n}.md").write_text(
            f"---\ntitle: {title}\nslug: {slug}\ndate: '2026-11-30T07:00:00+00:00'\n"
            "persona: the-skeptic\nschema: explainer\nsources: []\ncitations: 3\n"
            "unsupported: 1\nsentences: 9\n---\n# T\n", encoding="utf-8")
    for columns in (80, 60):
        table = _run(["queue", "list"], isolated, columns)
        assert max(len(line) for line in table.splitlines()) <= columns
        rows = [line for line in table.splitlines() if re.match(r"^│\s*\d+\s*│", line)]
        assert sorted(int(r.split("│")[1]) for r in rows) == [1, 2, 3, 4], table
        assert {r.split("│")[5].strip() for r in rows} == {"0", "10", "20", "30"}, table  # pri
        assert "insufficient_research" in table
        listed = _run(["articles", "list"], isolated, columns)
        assert max(len(line) for line in listed.splitlines()) <= columns
        cells = [line.split("│")[1:3] for line in listed.splitlines() if line.startswith("│")]
        files = "".join(c[0].strip() for c in cells)
        shown_titles = " ".join(c[1].strip() for c in cells)
        for n, title in enumerate(titles, 1):
            assert f"{queue.slugify(title)}-{n}.md" in files, listed
            assert title in " ".join(shown_titles.split()), listed
    wide = _run(["queue", "list"], isolated, 160)
    assert "the-skeptic" in wide  # the optional columns come back where there is room


# -- one line means one line ---------------------------------------------------------------------
def test_input_errors_are_one_line_without_a_blank_line_first(cli: Any) -> None:
    cli("queue", "add", "Tomatoes", "-c", "science")
    one_error_line(cli("research", "1", "--file", "missing.md", code=2), "no such file")
    one_error_line(cli("research", "1", "--url", "ftp://x", code=2), "not an http(s) URL")
    one_error_line(cli("research", "7", code=1), "no topic '7'")


# -- queue help, edit and retry ------------------------------------------------------------------
def test_queue_help_names_retry_and_edit_needs_a_change(cli: Any) -> None:
    assert "retry" in cli("queue", "--help").stdout
    cli("queue", "add", "Tomatoes", "-c", "science")
    result = cli("queue", "edit", "1", code=2)
    one_error_line(result, "nothing to change")
    assert "updated" not in result.stdout
    assert "updated #1" in cli("queue", "edit", "1", "-p", "3").stdout


def test_retry_reopens_failed_and_insufficient_topics(cli: Any, ws: Any) -> None:
    topic = queue.insert_topic(ws.db, "Tomatoes", "science", ws.categories)
    with pytest.raises(StageError, match="only failed or insufficient_research"):
        queue.retry(ws.db, topic.id)
    queue.move(ws.db, topic.id, Stage.FAILED, reason="boom")
    assert queue.retry(ws.db, topic.id).stage is Stage.QUEUED
    for stage in (Stage.RESEARCHING, Stage.RESEARCHED, Stage.GATED, Stage.THIN, Stage.INSUFFICIENT):
        queue.move(ws.db, topic.id, stage)
    assert "→ researched" in cli("queue", "retry", "1").stdout
    moves = queue.history(ws.db, topic.id)
    assert moves[-1]["from"] == "insufficient_research" and "research kept" in moves[-1]["reason"]


def test_readme_draws_the_stage_machine_of_the_code() -> None:
    block = README.split("### A topic's stages", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    known = {s.value for s in Stage}
    drawn: dict[str, set[str]] = {}
    for line in block.splitlines():
        source, arrow, targets = line.partition(" → ")
        if arrow and source.strip() in known:
            drawn[source.strip()] = {t.strip() for t in targets.split(",")} & known
    assert drawn == {s.value: {t.value for t in moves} for s, moves in queue.ALLOWED_MOVES.items()}
    assert "any stage              → failed" in block


# -- stderr: no library log lines, the reranker warning once per workspace -----------------------
def test_a_model_that_cannot_load_is_one_line_without_library_logs(cli: Any, isolated: Path) -> None:
    cli("queue", "add", "Tomatoes", "-c", "science")
    (isolated / "notes.md").write_text("Tomatoes need sun and warm nights. " * 30, encoding="utf-8")
    env = without_settings()
    env.update(HF_HUB_OFFLINE="1", FASTEMBED_CACHE_PATH=str(isolated / "empty-cache"),
               NONSEQ_EMBEDDING__BACKEND="fastembed", NONSEQ_EMBEDDING__MODEL="BAAI/bge-small-en-v1.5")
    done = subprocess.run([sys.executable, "-m", "nonseq", "research", "1", "--file", "notes.md"],
                          cwd=isolated, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "ERROR" not in one_error_line(done, "bge-small-en-v1.5")


def test_reranker_offline_warning_once_per_workspace_until_the_setting_changes(
        settings: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from nonseq.workspace import Workspace

    def warnings(current: Any) -> str:
        with Workspace(current) as ws:  # a new workspace, as in a new process
            assert ws.reranker.offline
        return capsys.readouterr().err

    assert "reranker offline" in warnings(settings)
    assert warnings(settings) == ""
    changed = settings.model_copy(update={"rerank": settings.rerank.model_copy(
        update={"max_length": 256})})
    assert "reranker offline" in warnings(changed)
    assert warnings(changed) == ""


# -- personas ------------------------------------------------------------------------------------
def test_one_malformed_persona_file_does_not_break_persona_list(cli: Any, isolated: Path) -> None:
    folder = isolated / "personas"
    folder.mkdir()
    (folder / "broken.toml").write_text('description = "no closing quote\n', encoding="utf-8")
    (folder / "mine.toml").write_text(
        'description = "Mine"\n[[voice]]\ntrigger = "opening"\ntext = "Hello there."\n',
        encoding="utf-8")
    result = cli("persona", "list", "--json")
    names = [p["name"] for p in json.loads(result.stdout)]
    assert "mine" in names and "the-skeptic" in names and "broken" not in names
    assert result.stderr.count("\n") == 1 and "broken.toml" in result.stderr
    assert result.stderr.startswith("warning: skipped")
    assert "mine" in cli("persona", "list").stdout
    one_error_line(cli("persona", "show", "broken", code=2), "broken.toml")
