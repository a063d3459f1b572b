"""Three night workers on one PostgreSQL database and a Qdrant server, one killed mid-topic (SIGKILL):
every topic is written exactly once, nothing is lost, the morning report holds all nine."""

from __future__ import annotations

import json
import signal
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devkit.child import child_argv, child_env
from devkit.llm_servers import ScriptedChat, echo_unit
from devkit.web import NIGHT_TOPICS, write_config
from nonseq.db import open_database

#: Nine topics the local web covers (title, category).
TOPICS = NIGHT_TOPICS[:9]


@pytest.fixture
def chat() -> Iterator[ScriptedChat]:
    """The scripted OpenAI-compatible LLM server every worker writes through."""
    with ScriptedChat(answer=echo_unit) as server:
        yield server


def team_config(folder: Path, searxng_url: str, chat: ScriptedChat, qdrant: str) -> None:
    """The local-web config (4 pages a topic) with a Qdrant server, the scripted LLM and short leases."""
    write_config(folder, searxng_url)
    text = (folder / "config.toml").read_text(encoding="utf-8")
    (folder / "config.toml").write_text(text.replace("max_pages = 8", "max_pages = 4"), encoding="utf-8")
    with (folder / "config.toml").open("a", encoding="utf-8") as fh:
        fh.write(f'\n[qdrant]\nurl = "{qdrant}"\n\n[llm]\nbackend = "openai"\nurl = "{chat.url}"\n'
                 'model = "scripted"\n\n[gate]\nuber_passes = 0\n\n[knowledge]\nuse_llm = false\n'
                 "\n[retrieval]\nfinal_top = 4\nevergreen_top = 0\npersona_top = 0\n"
                 "\n[writing]\nmax_units = 4\nmin_sentences = 2\nuse_pool = false\n"
                 "\n[night]\nlease_seconds = 6\n")


def worker(folder: Path, name: str, url: str, kill_at: str = "") -> subprocess.Popen[str]:
    """`nonseq night` as worker `name` in a child process (its output in <folder>/<name>.log)."""
    env = child_env(kill_at, NONSEQ_DATABASE__URL=url, NONSEQ_NIGHT__WORKER=name)
    log = (folder / f"{name}.log").open("w", encoding="utf-8")
    return subprocess.Popen(child_argv(["night", "--json"]), cwd=folder, env=env, stdout=log,
                            stderr=subprocess.STDOUT, text=True)


def troubles(log: str) -> str:
    """A worker's log cut to what explains a failure: its entries that were not written, or its tail."""
    start = log.rfind("\n{\n", 0, len(log)) + 1 if not log.startswith("{") else 0
    try:
        summary = json.loads(log[start:])
    except ValueError:
        return log[-3000:]
    bad = [e for e in summary.get("entries", []) if e.get("outcome") not in ("written", "draft")]
    return json.dumps({"outcomes": summary.get("outcomes"), "stopped": summary.get("stopped"), "bad": bad})[-6000:]


@pytest.mark.slow
def test_three_workers_nine_topics_one_killed(cli: Any, web_env: Path, searxng_url: str, pg_url: str,
                                               qdrant_url: str, chat: ScriptedChat,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    team_config(web_env, searxng_url, chat, qdrant_url)
    monkeypatch.setenv("NONSEQ_DATABASE__URL", pg_url)
    for title, category in TOPICS:
        cli("queue", "add", title, "-c", category)
    # w1 dies at its first index: every worker claims a topic at once, so the kill cannot miss
    procs = {"w1": worker(web_env, "w1", pg_url, kill_at="index:1"), "w2": worker(web_env, "w2", pg_url),
             "w3": worker(web_env, "w3", pg_url)}
    done = {name: (proc.wait(timeout=900), troubles((web_env / f"{name}.log").read_text(encoding="utf-8")))
            for name, proc in procs.items()}
    assert done["w1"][0] == -signal.SIGKILL, done["w1"]
    assert done["w2"][0] == 0 and done["w3"][0] == 0, done
    conn = open_database(pg_url, web_env / "unused.db")
    stages = {row["slug"]: row["stage"] for row in conn.execute("SELECT slug, stage FROM topics")}
    assert len(stages) == 9 and set(stages.values()) <= {"written", "draft"}, stages
    finals = Counter(row[0] for row in conn.execute(
        "SELECT topic_id FROM stage_history WHERE to_stage IN ('written', 'draft') AND from_stage != to_stage"))
    assert sorted(finals.values()) == [1] * 9, finals  # each topic written exactly once
    articles = conn.execute("SELECT topic_id, worker FROM articles").fetchall()
    assert sorted(r[0] for r in articles) == sorted(finals) and {r[1] for r in articles} <= {"w1", "w2", "w3"}
    # the topic w1 died on was claimed again by another worker and resumed from its stage
    claims = [(row[0], row[1]) for row in conn.execute(
        "SELECT topic_id, reason FROM stage_history WHERE reason LIKE 'claimed by %' ORDER BY id")]
    died_on = [tid for tid, reason in claims if reason == "claimed by w1"][-1]
    assert [r for tid, r in claims if tid == died_on][-1] in ("claimed by w2", "claimed by w3"), claims
    assert finals[died_on] == 1
    # nothing doubled: one fact per (topic, url, text); one chunk per point (its primary key)
    facts = conn.execute("SELECT topic_id, url, text, COUNT(*) FROM facts GROUP BY topic_id, url, text"
                         " HAVING COUNT(*) > 1").fetchall()
    assert facts == []
    # the morning report of the last worker to finish (finished_at to the microsecond: two workers
    # often end in the same second) names all nine topics and the workers
    last = conn.execute("SELECT summary FROM night_runs WHERE finished_at IS NOT NULL"
                        " ORDER BY finished_at DESC, id DESC LIMIT 1").fetchone()[0]
    import json

    report = Path(json.loads(last)["report"]).read_text(encoding="utf-8")
    slugs = [row[0] for row in conn.execute("SELECT slug FROM topics")]
    assert all(slug in report for slug in slugs), report
    assert "## Workers (3)" in report and "**w2**" in report and "**w3**" in report
    conn.close()
