"""[database] url: the state on a real PostgreSQL 15, the same code and migrations as SQLite."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from devkit.pg_server import PASSWORD
from nonseq import chunk_records, queue
from nonseq.cli import app
from nonseq.config import load_settings
from nonseq.db import MIGRATIONS, open_database, table_counts, transaction
from nonseq.errors import ConfigError, DatabaseDownError, UsageError
from nonseq.knowledge import records
from nonseq.knowledge.records import FactRecord
from nonseq.models import Chunk, Outcome, Source, Stage
from nonseq.workspace import Workspace

CATS = ["science", "health"]


def _source(title: str) -> Source:
    """A fetched page of the topic."""
    return Source(url="http://127.0.0.1/a", domain="127.0.0.1", outcome=Outcome.FETCHED, title=title)


def _fill(conn: sqlite3.Connection) -> None:
    """A topic with history, sources, chunks and a fact: one row or more in most tables."""
    topic = queue.insert_topic(conn, "Deep sea vents", "science", CATS)
    queue.move(conn, topic.id, Stage.RESEARCHING, reason="research")
    queue.record_sources(conn, topic, [_source("A")])
    chunk = Chunk(text="Vents host microbes.", url="http://127.0.0.1/a", title="A", category="science",
                  topic_slug=topic.slug)
    chunk_records.record(conn, topic.id, "research_science", [chunk])
    fact = FactRecord(uid="f1", topic_id=topic.id, topic_slug=topic.slug, category="science",
                      text="Vents host microbes.")
    with transaction(conn):
        records.insert(conn, fact)
    conn.execute("INSERT INTO night_runs (started_at) VALUES (?)", ("2026-01-01T00:00:00+00:00",))


def test_postgres_runs_the_same_migrations_and_queue_code(pg_url: str, tmp_path: Path) -> None:
    conn = open_database(pg_url, tmp_path / "unused.db")
    names = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]
    assert names == [name for name, _ in MIGRATIONS]
    _fill(conn)
    topic = queue.get_topic(conn, "deep-sea-vents")
    assert topic.stage is Stage.RESEARCHING
    assert [h["to"] for h in queue.history(conn, topic.id)] == ["queued", "researching"]
    with pytest.raises(UsageError, match="already exists"):
        queue.insert_topic(conn, "Deep sea vents", "science", CATS)
    # INSERT OR REPLACE is an upsert: recording the same source and chunk again adds no row
    queue.record_sources(conn, topic, [_source("A2")])
    chunk = Chunk(text="Vents host microbes.", url="http://127.0.0.1/a", title="A", category="science",
                  topic_slug=topic.slug)
    chunk_records.record(conn, topic.id, "research_science", [chunk])
    counts = table_counts(conn)
    assert (counts["sources"], counts["research_chunks"], counts["facts"]) == (1, 1, 1)
    assert [s.title for s in queue.list_sources(conn, topic)] == ["A2"]
    chunk_records.move_topic(conn, topic.id, "research_health", "health")
    moved = list(chunk_records.chunks_of(conn, topic_id=topic.id))
    assert [(c.category, c.text) for _, c in moved] == [("health", "Vents host microbes.")]
    assert chunk_records.forget_stale(conn, topic.id, "another-run", keep_origins=["never"]) == 1
    assert records.get(conn, 1).text == "Vents host microbes."
    conn.close()


def test_a_schema_newer_than_this_nonseq_is_refused_in_one_line(pg_url: str, tmp_path: Path) -> None:
    conn = open_database(pg_url, tmp_path / "unused.db")
    conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", ("m999_future", "2030-01-01"))
    conn.close()
    with pytest.raises(ConfigError, match=r"^the database has schema m999_future, newer than this nonseq knows"):
        open_database(pg_url, tmp_path / "unused.db")
    sqlite = open_database("", tmp_path / "ws.db")
    sqlite.execute("INSERT INTO schema_migrations VALUES (?, ?)", ("m999_future", "2030-01-01"))
    sqlite.close()
    with pytest.raises(ConfigError, match="newer than this nonseq knows"):
        open_database("", tmp_path / "ws.db")


def test_db_migrate_copies_every_row_and_shows_counts(pg_url: str, isolated: Path) -> None:
    settings = load_settings()
    with Workspace(settings) as ws:
        _fill(ws.db)
        before = table_counts(ws.db)
        workspace_id = ws.db.execute("SELECT id FROM workspace").fetchone()[0]
    result = CliRunner().invoke(app, ["db", "migrate", "--to", pg_url, "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["before"] == before and shown["after"] == before and shown["lost"] == {}
    assert all(before[t] for t in ("topics", "stage_history", "sources", "facts", "research_chunks", "night_runs"))
    target = open_database(pg_url, isolated / "unused.db")
    assert target.execute("SELECT id FROM workspace").fetchone()[0] == workspace_id
    # ids go on after the copied ones
    added = queue.insert_topic(target, "Another", "science", settings.categories.names)
    assert added.id == before["topics"] + 1
    target.close()
    again = CliRunner().invoke(app, ["db", "migrate", "--to", pg_url])
    assert again.exit_code == 2 and "already holds topics" in again.output


def test_password_never_shown_and_env_overrides(pg_url: str, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_password = pg_url.replace("postgres@", f"postgres:{PASSWORD}@")
    monkeypatch.setenv("NONSEQ_DATABASE__URL", with_password)
    monkeypatch.setenv("NONSEQ_QDRANT__URL", "http://127.0.0.1:9")
    shown = CliRunner().invoke(app, ["config", "show"])
    shown_json = CliRunner().invoke(app, ["config", "show", "--json"])
    paths = CliRunner().invoke(app, ["paths"])
    for result in (shown, shown_json, paths):
        assert PASSWORD not in result.output
    assert "postgres:***@127.0.0.1" in shown.output
    assert json.loads(shown_json.output)["database"]["url"].startswith("postgresql://postgres:***@")
    assert load_settings().database.url == with_password


def test_team_mode_refuses_an_embedded_vector_store(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NONSEQ_DATABASE__URL", pg_url)
    result = CliRunner().invoke(app, ["queue", "list"])
    assert result.exit_code == 2
    assert "[qdrant] url is empty" in result.output and len(result.output.strip().splitlines()) == 1


def test_a_database_that_is_down_is_one_line(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from devkit.web import free_port

    monkeypatch.setenv("NONSEQ_DATABASE__URL", f"postgresql://postgres@127.0.0.1:{free_port()}/nonseq")
    monkeypatch.setenv("NONSEQ_QDRANT__URL", "http://127.0.0.1:9")
    monkeypatch.setenv("PGCONNECT_TIMEOUT", "2")
    result = CliRunner().invoke(app, ["queue", "list"])
    assert result.exit_code == DatabaseDownError.exit_code
    line = result.output.strip()
    assert line.startswith("error: the database postgresql://postgres@127.0.0.1:") and "\n" not in line
    assert "cannot be reached" in line
