"""Night runs people can leave alone: exit codes, time limits, retries, the morning report, status,
the LLM down while writing, and a night run killed (SIGKILL) at random points that still completes."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from devkit.checks import check_consistent, kill_points
from devkit.child import run_child
from devkit.llm_servers import ScriptedChat, echo_unit, point_llm_at
from nonseq import lock, queue
from nonseq.config import load_settings
from nonseq.errors import BackendError, UsageError
from nonseq.models import Stage
from nonseq.pipeline.night import NightOptions, TopicTimeout, parse_until, plan, run_night, time_limit
from nonseq.pipeline.research import run_interruptible
from nonseq.workspace import Workspace
from tests.web import LocalWeb, free_port

REPO = Path(__file__).resolve().parents[1]
STADIA = "Google Stadia game streaming launch"


def _append(folder: Path, text: str) -> None:
    config = folder / "config.toml"
    config.write_text(config.read_text() + text)


@pytest.fixture
def night_env(web_env: Path) -> Path:
    """The local-web workspace with short greedy generations, the model restating (the night's
    model-time tests), and no automatic Uber Research."""
    _append(web_env, "\n[gate]\nuber_passes = 0\n\n[llm]\nmax_tokens = 120\ntemperature = 0.0\nseed = 11\nthreads = 1\n"
            "\n[writing]\nmax_units = 3\nmin_sentences = 3\nrestate = true\n")
    return web_env


def _llm_down(folder: Path) -> None:
    """Point the LLM at a port nobody listens on."""
    text = (folder / "config.toml").read_text().replace("[llm]\n", "[llm]\nbackend = \"openai\"\n"
                                                         f"url = \"http://127.0.0.1:{free_port()}/v1\"\n"
                                                         "retries = 0\n", 1)
    (folder / "config.toml").write_text(text)


# --- unit-sized ---------------------------------------------------------------------------------


def test_until_is_local_time_and_earlier_means_tomorrow() -> None:
    now = datetime(2026, 3, 1, 22, 30)
    assert parse_until("23:15", now) == datetime(2026, 3, 1, 23, 15)
    assert parse_until("06:00", now) == datetime(2026, 3, 2, 6, 0)
    for bad in ("6", "25:00", "ab:cd", "12:60"):
        with pytest.raises(UsageError, match="HH:MM"):
            parse_until(bad, now)


def test_transient_failures_are_retried_up_to_the_limit(ws: Workspace) -> None:
    topic = queue.insert_topic(ws.db, "Flaky topic", "science", ws.categories)
    hard = queue.insert_topic(ws.db, "Broken topic", "science", ws.categories)
    queue.fail(ws.db, hard.id, UsageError("bad input"))
    for attempt in range(3):
        queue.fail(ws.db, topic.id, BackendError("LLM server down"))
        assert [t.slug for t in plan(ws, retries=2)] == (["flaky-topic"] if attempt < 2 else [])
        if attempt < 2:
            queue.reopen_failed(ws.db, topic.id, reason="night retry")
            queue.move(ws.db, topic.id, Stage.RESEARCHING)


def test_status_sees_a_running_night_from_elsewhere(cli: Any, ws: Workspace) -> None:
    assert json.loads(cli("night", "status", "--json").stdout) == {"state": "none"}
    with ws.lock("night"):
        ws.db.execute("INSERT INTO night_runs (started_at) VALUES ('2026-01-01T00:00:00Z')")
        status = json.loads(cli("night", "status", "--json").stdout)
        assert status["state"] == "running" and status["run"] == 1
    assert json.loads(cli("night", "status", "--json").stdout)["state"] == "interrupted"


def test_empty_queue_exits_0_with_a_report(cli: Any, isolated: Path) -> None:
    result = cli("night")
    assert "nothing to do" in result.stdout
    report = isolated / "articles" / "reports" / "night-1.md"
    assert report.is_file() and "# Night run 1" in report.read_text()
    assert json.loads(cli("night", "status", "--json").stdout)["exit_code"] == 0


# --- with the local web, SearXNG and the real small LLM ----------------------------------------


def test_llm_down_exits_5_and_changes_nothing(cli: Any, night_env: Path) -> None:
    _llm_down(night_env)
    cli("queue", "add", STADIA, "-c", "software")
    result = cli("night", "--json", code=5)
    summary = json.loads(result.stdout)
    assert "LLM is not available" in summary["stopped"] and summary["not_started"] == [
        "google-stadia-game-streaming-launch"]
    assert json.loads(cli("queue", "show", "1", "--json").stdout)["topic"]["stage"] == "queued"
    assert "LLM is not available" in Path(summary["report"]).read_text()


def test_write_with_the_llm_down_fails_and_resumes_at_the_gate(cli: Any, night_env: Path,
                                                              local_web: LocalWeb) -> None:
    cli("queue", "add", STADIA, "-c", "software")
    urls = [arg for page in local_web.topic_pages("stadia") for arg in ("--url", page.url)]
    cli("research", "1", *urls, "--json")  # the user's own pages: no search, quicker
    _llm_down(night_env)
    result = cli("write", "1", "--no-input", "--quiet", code=1)
    assert result.stderr.count("error:") == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("error:")
    shown = json.loads(cli("queue", "show", "1", "--json").stdout)
    assert shown["topic"]["stage"] == "failed" and shown["topic"]["error"]
    cli("write", "1", "--no-input", "--quiet", code=1)  # again: from the gate, research kept
    moves = [h["to"] for h in json.loads(cli("queue", "show", "1", "--json").stdout)["history"]
             if h["from"] != h["to"]]
    assert moves == ["queued", "researching", "researched", "gated", "writing", "failed",
                     "researched", "gated", "writing", "failed"]


def test_the_time_limit_lets_an_import_finish_then_fails_the_topic(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A limit that passes mid-import waits for it (a module cut in half stays broken), then raises."""
    (tmp_path / "slow_module_for_the_limit.py").write_text(
        "import signal\n"
        "while signal.getitimer(signal.ITIMER_REAL)[0] > 0:\n    pass\n"
        "for _ in range(10_000):\n    pass\n"  # the alarm's handler runs in here
        "done = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "slow_module_for_the_limit", raising=False)
    with pytest.raises(TopicTimeout), time_limit(0.05):
        import slow_module_for_the_limit  # noqa: F401
        give_up = datetime.now() + timedelta(seconds=60)
        while datetime.now() < give_up:  # the limit comes back once the import is done
            pass
    assert sys.modules["slow_module_for_the_limit"].done


class _Alarm(BaseException):
    """What the test's SIGALRM handler raises (like the night's TopicTimeout)."""


def test_an_alarm_inside_the_fetch_loop_still_reaches_the_caller() -> None:
    """The time limit's alarm can land inside an asyncio callback (a socket read, a scheduled call);
    asyncio logs an exception raised there and goes on, so the limit would be lost."""
    def expire(_signum: int, _frame: Any) -> None:
        raise _Alarm

    def busy_until_the_timer_fires() -> None:  # a callback of the loop, running when the alarm lands
        while signal.getitimer(signal.ITIMER_REAL)[0] > 0:
            pass
        for _ in range(10_000):  # the handler runs at the next check for signals, still in here
            pass

    async def work() -> str:
        asyncio.get_running_loop().call_soon(busy_until_the_timer_fires)
        for _ in range(3):
            await asyncio.sleep(0)
        return "finished"

    previous = signal.signal(signal.SIGALRM, expire)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        with pytest.raises(_Alarm):
            run_interruptible(work())
        assert signal.getsignal(signal.SIGALRM) is expire  # the caller's handler is back
        assert run_interruptible(work()) == "finished"  # no alarm: the work's result
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_topic_time_limit_fails_it_for_a_retry_next_night(night_env: Path) -> None:
    with Workspace(load_settings()) as ws:
        topic = queue.insert_topic(ws.db, STADIA, "software", ws.categories)
        with ws.lock("night"):
            summary = run_night(ws, NightOptions(max_topics=5, topic_timeout=0.3, retries=2))
        assert summary.exit_code == 4 and summary.entries[0].error.startswith("time limit"), \
            summary.entries[0].error
        assert queue.get_topic(ws.db, topic.id).stage is Stage.FAILED
        assert [t.id for t in plan(ws, retries=2)] == [topic.id]  # retried next night
        until = datetime.now() - timedelta(seconds=1)
        later = run_night(ws, NightOptions(max_topics=5, topic_timeout=60, retries=2, until=until))
        assert later.entries == [] and later.not_started == [topic.slug] and later.exit_code == 0
        assert "--until" in later.stopped



def test_a_killed_nights_claim_is_taken_over_at_once(night_env: Path) -> None:
    """SQLite: the workspace lock means no other worker lives, so a dead night's lease is not waited out."""
    from nonseq import claims

    with Workspace(load_settings()) as ws:
        topic = queue.insert_topic(ws.db, STADIA, "software", ws.categories)
        assert claims.claim_next(ws.db, "gone:1", 3600, [Stage.QUEUED.value]) == topic.id  # killed mid-topic
        with ws.lock("night"):
            summary = run_night(ws, NightOptions(max_topics=1, topic_timeout=0.3, retries=2))
        assert [e.topic for e in summary.entries] == [topic.slug]
        assert claims.holder(ws.db, topic.id)[0] != "gone:1"


def test_a_lost_alarm_still_ends_the_topic_at_the_next_step(night_env: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the alarm never arrives (a library that catches everything; off the main thread), the
    topic stops before its next step instead of running to the end."""
    import nonseq.pipeline.night as night

    monkeypatch.setattr(night, "time_limit", lambda _seconds: contextlib.nullcontext())  # the alarm lost
    with Workspace(load_settings()) as ws:
        topic = queue.insert_topic(ws.db, STADIA, "software", ws.categories)
        with ws.lock("night"):
            summary = run_night(ws, NightOptions(max_topics=5, topic_timeout=0.3, retries=2))
        entry = summary.entries[0]
        assert entry.error.startswith("time limit") and entry.transient, entry.error
        assert entry.article is None and [s["step"] for s in entry.steps] == ["research"], entry.steps
        assert queue.get_topic(ws.db, topic.id).stage is Stage.FAILED

# --- the crash test -----------------------------------------------------------------------------


def _keep_a_fact(settings: Any) -> list[tuple[int, str]]:
    """A fact a person kept before the night (the night must never lose it)."""
    from nonseq.db import transaction
    from nonseq.knowledge import records

    with Workspace(settings) as ws, transaction(ws.db):
        records.insert(ws.db, records.FactRecord(
            text="Stadia launched in November 2019 in 14 countries.", category="software",
            topic_id=1, topic_slug="google-stadia-game-streaming-launch", status="kept"))
    with Workspace(settings) as ws:
        return _kept_facts(ws)


def _kept_facts(ws: Workspace) -> list[tuple[int, str]]:
    """(id, text) of every kept fact."""
    from nonseq.knowledge import list_facts

    return sorted((f.id, f.text) for f in list_facts(ws, status="kept"))


def run_kill_sequence(points: list[str]) -> list[int]:
    """Kill a night run at each point in turn (same workspace), then let one finish; return codes."""
    codes = [run_child(["night"], kill_at=point).returncode for point in points]
    final = run_child(["night"])
    assert final.returncode == 0, final.stderr
    return [*codes, final.returncode]


@pytest.mark.slow
def test_night_killed_at_random_points_still_completes(cli: Any, night_env: Path,
                                                       local_web: LocalWeb) -> None:
    """Crash consistency, not the model's prose: the writer's model is scripted over the wire (echo)."""
    _append(night_env, "\n[knowledge]\nuse_llm = false\n\n[retrieval]\nfinal_top = 4\n")
    with ScriptedChat(answer=echo_unit) as chat:
        point_llm_at(night_env, chat.url)
        _night_killed_and_completed(cli, night_env)
        assert chat.calls > 0  # the night wrote through the scripted model


def _night_killed_and_completed(cli: Any, night_env: Path) -> None:
    """Kill the night at two seeded points, let a third run finish, and check that nothing was lost."""
    cli("queue", "add", STADIA, "-c", "software")
    kept = _keep_a_fact(load_settings())
    points = kill_points(seed=14, count=2)
    codes = run_kill_sequence(points)
    assert -signal.SIGKILL in codes[:-1], (points, codes)  # at least one run really died
    with Workspace(load_settings()) as ws:
        assert queue.get_topic(ws.db, 1).stage in (Stage.WRITTEN, Stage.DRAFT)
        check_consistent(ws)
        assert _kept_facts(ws) == kept  # no kept fact lost or changed
    assert json.loads(cli("night", "status", "--json").stdout)["state"] == "finished"
    assert not lock.is_locked(night_env / ".nonseq")
