"""Night runs, the THIN decisions of `write`, and `nonseq demo` (the README's first command)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from nonseq import queue
from nonseq.config import load_settings
from nonseq.errors import NotFoundError, StageError
from nonseq.models import Stage, ThinChoice
from nonseq.pipeline.write import write_topic
from nonseq.workspace import Workspace
from tests.web import LocalWeb

pytestmark = [pytest.mark.slow]


@pytest.fixture
def no_uber(web_env: Path) -> Path:
    """The local-web workspace without automatic Uber Research, with short articles (3 planned units) and
    extractive facts after writing (the night and Ctrl-C are under test; the LLM's facts in test_knowledge.py)."""
    config = web_env / "config.toml"
    config.write_text(config.read_text() + "\n[gate]\nuber_passes = 0\n\n[llm]\nmax_tokens = 200\nthreads = 1\n"
                      "\n[writing]\nmax_units = 3\nmin_sentences = 3\n\n[knowledge]\nuse_llm = false\n")
    return web_env


def _thin_topic(ws: Workspace, local_web: LocalWeb) -> int:
    """A topic researched from one page only: THIN, and too few chunks to continue."""
    from nonseq.pipeline.research import run_research

    page = next(p for p in local_web.pages if p.topic == "hibernation")
    topic = queue.insert_topic(ws.db, "Hibernating astronauts", "space", ws.categories)
    run_research(ws, topic.id, urls=[page.url])
    return topic.id


def test_thin_choices_delete_and_refuse_continue_after_hard_failure(no_uber: Path, local_web: LocalWeb) -> None:
    with Workspace(load_settings()) as ws:
        ws.settings.gate.min_chunks = 50  # one page can never give that many: a hard failure
        topic_id = _thin_topic(ws, local_web)
        with pytest.raises(StageError, match="Continue is not allowed"):
            write_topic(ws, topic_id, decide=lambda _t, _v: ThinChoice.CONTINUE)
        assert queue.get_topic(ws.db, topic_id).stage is Stage.THIN
        result = write_topic(ws, topic_id, decide=lambda _t, v: ThinChoice.DELETE)
        assert result.outcome == "deleted" and result.article is None
        with pytest.raises(NotFoundError):
            queue.get_topic(ws.db, topic_id)
        assert ws.store.count("research_space", {"topic_slug": "hibernating-astronauts"}) == 0


def test_night_run_writes_what_it_can_and_records_the_rest(cli: Any, no_uber: Path,
                                                           local_web: LocalWeb) -> None:
    cli("queue", "add", "Google Stadia game streaming launch", "-c", "software", "-p", "2")
    cli("queue", "add", "Axolotl limb regeneration", "-c", "science")
    summary = json.loads(cli("night", "--json").stdout)
    assert summary["topics"] == 2 and summary["exit_code"] == 0
    lines = [json.loads(line) for line in Path(summary["log"]).read_text().splitlines()]
    topics = [line for line in lines if line["event"] == "topic"]
    assert [lines[0]["event"], lines[-1]["event"], len(topics)] == ["start", "end", 2]
    assert topics[0]["topic"] == "google-stadia-game-streaming-launch"
    assert topics[0]["article"]["path"].endswith(".md")
    # the tiny model may write a draft (the quality gate's honest verdict): the article file says which
    meta = yaml.safe_load(Path(topics[0]["article"]["path"]).read_text(encoding="utf-8").split("---\n", 2)[1])
    written = meta.get("status", "written")
    assert summary["outcomes"] == {written: 1, "insufficient_research": 1}
    steps = [(e["topic"], e["step"]) for e in lines if e["event"] == "step_end"]
    assert ("google-stadia-game-streaming-launch", "generate") in steps
    assert all("seconds" in e and "outcome" in e for e in lines if e["event"] == "step_end")
    report = Path(summary["report"]).read_text()  # the morning report
    section = next(s for s in report.split("\n## ") if topics[0]["article"]["path"] in s)
    assert section.startswith({"written": "Written\n", "draft": "Drafts (need a person)\n"}[written]), section
    assert ("citations" in section) is (written == "written")  # a written article's line counts its citations
    assert "## Thin research" in report and "axolotl-limb-regeneration" in report
    status = json.loads(cli("night", "status", "--json").stdout)
    assert status["state"] == "finished" and status["exit_code"] == 0
    stages = {t["slug"]: t["stage"] for t in json.loads(cli("queue", "list", "--json").stdout)}
    assert stages == {"google-stadia-game-streaming-launch": written,
                      "axolotl-limb-regeneration": "insufficient_research"}
    again = json.loads(cli("night", "--json").stdout)
    assert again["topics"] == 0


def _demo_article(cli: Any, folder: Path) -> tuple[dict[str, Any], str]:
    """Run `nonseq demo` in a folder: (the article's front matter, its body)."""
    last = cli("demo", "--dir", str(folder), "--quiet").stdout.strip().splitlines()[-1]
    assert last.startswith("article: ")
    article = Path(last.removeprefix("article: "))
    assert article.is_file() and article.parent == folder / "articles"
    _, front, body = article.read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(front), body


def test_demo_runs_offline_ends_written_and_gives_the_same_article_twice(cli: Any, isolated: Path) -> None:
    meta, body = _demo_article(cli, isolated / "demo")
    assert meta["model"] == "llamacpp:SmolLM2-135M-Instruct" and meta["category"] == "space"
    for figure in ("citations", "resolved", "added", "removed", "unsupported", "sentences"):
        assert isinstance(meta[figure], int)
    assert meta["sources_provided"] >= 2  # the relevant pages reached the plan
    assert meta["status"] == "written" and meta["sentences"] >= 8, meta  # issue 20: the demo ends written
    assert set(meta["made"]) == {"quoted", "verbatim", "restated"}
    assert "## Sources" in body
    prompt = (isolated / "demo" / "articles" / meta["prompt"]).read_text(encoding="utf-8")
    assert "europa" in prompt.lower() and "## Write plan" in prompt
    # issue 20: greedy decoding, so a second run (a new workspace) writes the same article on this machine
    again, body_again = _demo_article(cli, isolated / "demo-again")
    assert body_again == body
    assert {k: v for k, v in again.items() if k != "date"} == {k: v for k, v in meta.items() if k != "date"}


def test_the_demo_reads_no_setting_from_the_environment_but_where_vectors_are_kept(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from nonseq.pipeline.demo import demo_settings

    monkeypatch.setenv("NONSEQ_GATE__MIN_CHUNKS", "40")
    monkeypatch.setenv("NONSEQ_EMBEDDING__VECTOR_CACHE", str(tmp_path / "v.sqlite"))
    settings = demo_settings(tmp_path)
    assert settings.gate.min_chunks == 5 and settings.embedding.vector_cache == str(tmp_path / "v.sqlite")
    monkeypatch.delenv("NONSEQ_EMBEDDING__VECTOR_CACHE")
    assert demo_settings(tmp_path).embedding.vector_cache == "~/.cache/nonseq/vectors.sqlite"
