"""The topic queue over real SQLite: stage moves, validation, history, CLI."""

import itertools
import json

import pytest

from nonseq import queue
from nonseq.config import DEFAULT_CATEGORIES
from nonseq.db import connect
from nonseq.errors import NotFoundError, StageError, UsageError
from nonseq.models import Stage

ALLOWED = {
    (Stage.QUEUED, Stage.RESEARCHING), (Stage.RESEARCHING, Stage.RESEARCHED),
    (Stage.RESEARCHED, Stage.GATED), (Stage.RESEARCHED, Stage.RESEARCHING),
    (Stage.GATED, Stage.WRITING), (Stage.GATED, Stage.THIN), (Stage.GATED, Stage.RESEARCHING),
    (Stage.THIN, Stage.RESEARCHING), (Stage.THIN, Stage.INSUFFICIENT),
    (Stage.THIN, Stage.WRITING), (Stage.WRITING, Stage.WRITTEN), (Stage.FAILED, Stage.QUEUED),
    (Stage.WRITTEN, Stage.WRITING),
    (Stage.INSUFFICIENT, Stage.RESEARCHED), (Stage.INSUFFICIENT, Stage.RESEARCHING),
    (Stage.WRITING, Stage.DRAFT), (Stage.DRAFT, Stage.WRITING), (Stage.FAILED, Stage.RESEARCHED),
    (Stage.THIN, Stage.GATED),
} | {(s, Stage.FAILED) for s in Stage if s is not Stage.FAILED}


@pytest.fixture
def conn(tmp_path):
    c = connect(tmp_path / "q.db")
    yield c
    c.close()


def _force_stage(conn, topic_id: int, stage: Stage) -> None:
    conn.execute("UPDATE topics SET stage=? WHERE id=?", (stage.value, topic_id))


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(Stage, Stage)))
def test_every_stage_move_is_allowed_or_refused(conn, src: Stage, dst: Stage) -> None:
    topic = queue.insert_topic(conn, "Topic", "ai", DEFAULT_CATEGORIES)
    _force_stage(conn, topic.id, src)
    if (src, dst) in ALLOWED:
        moved = queue.move(conn, topic.id, dst, reason="test")
        assert moved.stage is dst
        assert queue.history(conn, topic.id)[-1]["to"] == dst.value
    else:
        with pytest.raises(StageError):
            queue.move(conn, topic.id, dst)
        assert queue.get_topic(conn, topic.id).stage is src


def test_failed_records_the_error_and_retry_clears_it(conn) -> None:
    topic = queue.insert_topic(conn, "Topic", "ai", DEFAULT_CATEGORIES)
    queue.move(conn, topic.id, Stage.RESEARCHING)
    failed = queue.move(conn, topic.id, Stage.FAILED, reason="boom: network down")
    assert failed.error == "boom: network down"
    assert queue.move(conn, topic.id, Stage.QUEUED, reason="retry").error == ""


def test_add_validates_and_slugs(conn) -> None:
    topic = queue.insert_topic(conn, "  Ünïcode Title: v2!  ", "science", DEFAULT_CATEGORIES,
                            sub_queries=["a", " ", "b"], priority=3)
    assert topic.slug == "unicode-title-v2"
    assert topic.sub_queries == ["a", "b"]
    with pytest.raises(UsageError, match="empty"):
        queue.insert_topic(conn, "   ", "ai", DEFAULT_CATEGORIES)
    with pytest.raises(UsageError, match="unknown category"):
        queue.insert_topic(conn, "x", "astrology", DEFAULT_CATEGORIES)
    with pytest.raises(UsageError, match="already exists"):
        queue.insert_topic(conn, "Unicode title v2", "ai", DEFAULT_CATEGORIES)
    with pytest.raises(UsageError, match="slug"):
        queue.insert_topic(conn, "!!!", "ai", DEFAULT_CATEGORIES)


def test_list_orders_by_priority_and_filters(conn) -> None:
    low = queue.insert_topic(conn, "Low", "ai", DEFAULT_CATEGORIES)
    high = queue.insert_topic(conn, "High", "ai", DEFAULT_CATEGORIES, priority=5)
    queue.move(conn, low.id, Stage.RESEARCHING)
    assert [t.slug for t in queue.list_topics(conn)] == ["high", "low"]
    assert [t.id for t in queue.list_topics(conn, [Stage.QUEUED])] == [high.id]


def test_get_edit_remove(conn) -> None:
    topic = queue.insert_topic(conn, "Edit me", "ai", DEFAULT_CATEGORIES)
    assert queue.get_topic(conn, "edit-me").id == topic.id
    edited = queue.edit_topic(conn, topic.id, DEFAULT_CATEGORIES, focus="new", priority=2)
    assert (edited.focus, edited.priority) == ("new", 2)
    with pytest.raises(UsageError):
        queue.edit_topic(conn, topic.id, DEFAULT_CATEGORIES, category="nope")
    queue.remove_topic(conn, topic.id)
    with pytest.raises(NotFoundError):
        queue.get_topic(conn, topic.id)


def test_state_survives_reopen(tmp_path) -> None:
    conn = connect(tmp_path / "s.db")
    topic = queue.insert_topic(conn, "Persist", "ai", DEFAULT_CATEGORIES)
    queue.move(conn, topic.id, Stage.RESEARCHING)
    conn.close()
    again = connect(tmp_path / "s.db")
    assert queue.get_topic(again, "persist").stage is Stage.RESEARCHING
    assert [m["to"] for m in queue.history(again, "persist")] == ["queued", "researching"]
    again.close()


def test_interrupted_transaction_leaves_nothing_half_written(conn) -> None:
    from nonseq.db import transaction

    topic = queue.insert_topic(conn, "Atomic", "ai", DEFAULT_CATEGORIES)
    with pytest.raises(KeyboardInterrupt), transaction(conn):
        conn.execute("UPDATE topics SET stage='writing' WHERE id=?", (topic.id,))
        raise KeyboardInterrupt
    assert queue.get_topic(conn, topic.id).stage is Stage.QUEUED


def test_cli_queue_round_trip(cli) -> None:
    out = cli("queue", "add", "Solid-state batteries", "-c", "hardware", "--focus", "cost",
              "-q", "anode", "-q", "cathode", "-p", "2", "--json").stdout
    topic = json.loads(out)
    assert topic["sub_queries"] == ["anode", "cathode"] and topic["stage"] == "queued"
    listed = json.loads(cli("queue", "list", "--json").stdout)
    assert [t["slug"] for t in listed] == ["solid-state-batteries"]
    assert "solid-state-batteries" in cli("queue", "list").stdout
    shown = json.loads(cli("queue", "show", "1", "--json").stdout)
    assert shown["history"][0]["to"] == "queued"
    cli("queue", "edit", "solid-state-batteries", "--focus", "price per kWh")
    assert "price per kWh" in cli("queue", "show", "1").stdout
    assert json.loads(cli("queue", "list", "--stage", "written", "--json").stdout) == []
    assert "removed #1" in cli("queue", "remove", "1").stdout
    assert "empty" in cli("queue", "list").stdout


@pytest.mark.parametrize("args", [
    ("queue", "add", "", "-c", "ai"),
    ("queue", "add", "x", "-c", "astrology"),
    ("queue", "show", "42"),
    ("queue", "remove", "nope"),
    ("queue", "edit", "7", "--focus", "x"),
    ("queue", "list", "--stage", "bogus"),
    ("queue", "retry", "nope"),
])
def test_cli_bad_input_is_one_line_and_non_zero(cli, args) -> None:
    result = cli(*args, code=None)
    assert result.exit_code != 0
    assert result.stderr.startswith("error: ")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stdout + result.stderr


def test_cli_duplicate_slug(cli) -> None:
    cli("queue", "add", "Same", "-c", "ai")
    assert "already exists" in cli("queue", "add", "Same", "-c", "ai", code=2).stderr
