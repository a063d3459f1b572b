"""Workers and editors side by side on one PostgreSQL database: claims and leases, stale edits refused,
the maintenance lock, the lists in JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nonseq import claims, queue
from nonseq.config import load_settings
from nonseq.db import open_database, team_lock, transaction
from nonseq.errors import ConflictError, WorkspaceBusyError
from nonseq.knowledge import delete_facts, edit_fact, keep_facts, records
from nonseq.knowledge.records import FactRecord
from nonseq.workspace import Workspace

CATS = ["science"]
RUNNABLE = ["queued", "researching"]


@pytest.fixture
def team(pg_url: str, qdrant_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The current folder's settings point at a fresh PostgreSQL database and a Qdrant server."""
    monkeypatch.setenv("NONSEQ_DATABASE__URL", pg_url)
    monkeypatch.setenv("NONSEQ_QDRANT__URL", qdrant_url)
    return pg_url


def test_two_workers_never_claim_one_topic_and_a_dead_ones_lease_runs_out(pg_url: str, tmp_path: Path) -> None:
    a, b = open_database(pg_url, tmp_path / "x"), open_database(pg_url, tmp_path / "x")
    for title in ("One", "Two"):
        queue.insert_topic(a, title, "science", CATS)
    with transaction(a):  # a holds the first row locked mid-claim: b skips it instead of waiting
        a.execute("SELECT id FROM topics WHERE id=1 FOR UPDATE")
        assert claims.claim_next(b, "b", 30, RUNNABLE) == 2
    assert claims.claim_next(a, "a", 0.2, RUNNABLE) == 1
    assert claims.claim_next(b, "b2", 30, RUNNABLE) is None  # both held, leases live
    assert 0 < (claims.next_expiry(b, "b2", RUNNABLE) or 0) <= 0.2
    assert not claims.renew(b, 1, "b", 30)  # not b's to renew
    a.close()  # worker a dies: its lease on topic 1 is not renewed
    assert claims.holder(b, 1)[0] == "a"
    deadline = claims.clock(b) + (claims.next_expiry(b, "b2", RUNNABLE) or 0) + 5
    while claims.claim_next(b, "b2", 30, RUNNABLE) != 1:  # the state: a's lease has run out
        assert claims.clock(b) < deadline
    assert claims.holder(b, 1)[0] == "b2"
    b.close()


def test_a_worker_with_nothing_to_claim_exits_0(cli: Any, team: str, isolated: Path) -> None:
    result = cli("night", "--json")
    assert json.loads(result.stdout)["topics"] == 0


def _fact(ws: Workspace) -> int:
    """One pending fact."""
    with transaction(ws.db):
        return records.insert(ws.db, FactRecord(text="Vents host microbes.", category="science"))


def test_an_edit_to_a_fact_changed_since_shown_is_refused(team: str, isolated: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NONSEQ_REVIEW__REVIEWER", "ada")
    with Workspace(load_settings()) as ada:
        fact_id = _fact(ada)
        shown = records.get(ada.db, fact_id).updated_at
        monkeypatch.setenv("NONSEQ_REVIEW__REVIEWER", "bob")
        with Workspace(load_settings()) as bob:
            seen_by_bob = records.get(bob.db, fact_id).updated_at
            assert keep_facts(ada, [fact_id], seen={fact_id: shown}) == 1  # ada keeps it first
            with pytest.raises(ConflictError) as refused:
                delete_facts(bob, [fact_id], seen={fact_id: seen_by_bob})
            message = str(refused.value)
            assert message.startswith(f"fact #{fact_id} was changed by ada at ") and "\n" not in message
            with pytest.raises(ConflictError, match="changed by ada"):
                edit_fact(bob, fact_id, kind="evergreen", seen=seen_by_bob)
            current = records.get(bob.db, fact_id)
            assert current.status == "kept" and current.kind == "topic"
            assert current.decisions[-1]["by"] == "ada"
            edit_fact(bob, fact_id, kind="evergreen", seen=current.updated_at)  # shown again: accepted
            assert records.get(ada.db, fact_id).kind == "evergreen"


def test_maintenance_takes_the_database_alone(cli: Any, team: str, isolated: Path) -> None:
    with Workspace(load_settings()) as editor:
        team_lock(editor.db, "queue add", "ada")
        refused = cli("reembed", "research_science", code=75)
        assert "the database is in use (nonseq queue add (ada))" in refused.stderr
    with Workspace(load_settings()) as maintenance:
        team_lock(maintenance.db, "store rebuild", "ops")
        stopped = cli("queue", "add", "T", "-c", "science", code=75)
        assert "maintenance is running on the database (nonseq store rebuild (ops))" in stopped.stderr
        with pytest.raises(WorkspaceBusyError), Workspace(load_settings()) as worker:
            team_lock(worker.db, "night", "w1")
    cli("queue", "add", "T", "-c", "science")  # free again once maintenance ends


def test_lists_in_json_cover_every_worker(cli: Any, team: str, isolated: Path) -> None:
    from nonseq import article_records

    for title in ("One", "Two"):
        cli("queue", "add", title, "-c", "science")
    page = isolated / "one.md"
    page.write_text("---\ntitle: One\n---\n# One\n", encoding="utf-8")
    with Workspace(load_settings()) as ws:
        for worker in ("w1", "w2"):  # written again after a redo: still one row
            article_records.record(ws.db, topic_id=1, path=page, title="One", status="written", worker=worker)
    rows = json.loads(cli("articles", "list", "--json").stdout)
    assert [{k: row[k] for k in ("topic_id", "title", "slug", "status", "worker")} for row in rows] == [
        {"topic_id": 1, "title": "One", "slug": "one", "status": "written", "worker": "w2"}]
    topics = json.loads(cli("queue", "list", "--json").stdout)
    assert [(t["id"], t["title"], t["stage"]) for t in topics] == [(1, "One", "queued"), (2, "Two", "queued")]


def test_a_database_that_goes_down_mid_run_leaves_the_topic_at_its_stage(cli: Any, web_env: Path, qdrant_url: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from devkit.llm_servers import ScriptedChat
    from devkit.pg_server import PgServer, available
    from nonseq.errors import DatabaseDownError
    from nonseq.events import Event, Kind
    from nonseq.pipeline.night import run_night

    if not available():
        pytest.skip("PostgreSQL 15 is not installed here (.ci/run installs it)")
    server = PgServer().start()
    try:
        for name, value in server.env.items():
            monkeypatch.setenv(name, value)
        url = server.create_database("down")
        monkeypatch.setenv("NONSEQ_DATABASE__URL", url)
        monkeypatch.setenv("NONSEQ_QDRANT__URL", qdrant_url)
        with ScriptedChat(["A sentence."]) as chat:
            monkeypatch.setenv("NONSEQ_LLM__BACKEND", "openai")
            monkeypatch.setenv("NONSEQ_LLM__URL", chat.url)
            cli("queue", "add", "Water plumes on Europa", "-c", "space")

            def stop_database(event: Event) -> None:
                """The database server dies as the first step starts."""
                if event.kind is Kind.START:
                    server.stop("immediate")

            with Workspace(load_settings()) as ws, pytest.raises(DatabaseDownError) as down:
                run_night(ws, progress=stop_database)
        message = str(down.value)
        assert message.startswith(f"the database {url} cannot be reached") and "\n" not in message
        server.restart()
        conn = open_database(url, web_env / "unused.db")
        [topic] = queue.list_topics(conn)
        assert (topic.title, topic.stage.value, topic.error) == ("Water plumes on Europa", "queued", "")
        conn.close()
    finally:
        server.remove()


def test_promotion_is_idempotent_and_doctor_checks_the_server(team: str, isolated: Path) -> None:
    from nonseq.errors import StoreError
    from nonseq.knowledge import promote_topic
    from nonseq.pipeline.doctor import check_store

    with Workspace(load_settings()) as ws:
        topic = queue.insert_topic(ws.db, "Vents", "science", ws.categories)
        with transaction(ws.db):
            records.insert(ws.db, FactRecord(text="Vents host microbes.", category="science", topic_id=topic.id,
                                             topic_slug=topic.slug, status="kept"))
        first = promote_topic(ws, topic.id, keep_research=True)
        second = promote_topic(ws, topic.id, keep_research=True)  # a second editor promotes it too
        assert (first.promoted, second.promoted) == (1, 0)
        collection = records.get(ws.db, 1).collection
        assert ws.store.count(collection) == 1
        assert "none missing" in check_store(ws)
        ws.store.delete(collection, {"fact_uid": records.get(ws.db, 1).uid})  # the server lost the point
        with pytest.raises(StoreError, match=r"1 point\(s\) the database expects are missing"):
            check_store(ws)


def test_night_status_sees_a_worker_on_another_machine(cli: Any, team: str, isolated: Path) -> None:
    with Workspace(load_settings()) as ws:
        queue.insert_topic(ws.db, "Vents", "science", ws.categories)
        with transaction(ws.db):
            ws.db.execute("INSERT INTO night_runs (started_at, worker) VALUES (?, ?)", ("2026-01-01", "far:42"))
        assert claims.claim_next(ws.db, "far:42", 60, RUNNABLE) == 1
        assert json.loads(cli("night", "status", "--json").stdout)["state"] == "running"
        claims.release(ws.db, 1, "far:42")  # no live lease left: the worker is gone
        assert json.loads(cli("night", "status", "--json").stdout)["state"] == "interrupted"
