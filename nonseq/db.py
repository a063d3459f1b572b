"""The state database: connection (SQLite file, or PostgreSQL for a team), numbered migrations, row helpers.

Both databases run the same SQL (written in SQLite's dialect; `nonseq.pg` translates it for
PostgreSQL) and the same migrations, recorded in schema_migrations.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from nonseq.dburl import is_postgres
from nonseq.errors import ConfigError, WorkspaceBusyError


def now(precise: bool = False) -> str:
    """The current UTC time as ISO 8601 (seconds; microseconds when `precise`, to order close events)."""
    return datetime.now(UTC).isoformat(timespec="microseconds" if precise else "seconds")


def to_seconds(stamp: str) -> str:
    """An ISO 8601 time as shown to a person: without fractions of a second."""
    return re.sub(r"(T\d\d:\d\d:\d\d)\.\d+", r"\1", stamp)


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run ;-separated DDL statements inside the caller's transaction (executescript commits)."""
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def m001_initial(conn: sqlite3.Connection) -> None:
    """Topics, their stage history and fetched sources."""
    _run_script(
        conn,
        """
        CREATE TABLE topics (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            title TEXT NOT NULL,
            slug TEXT NOT NULL UNIQUE,
            category TEXT NOT NULL,
            focus TEXT NOT NULL DEFAULT '',
            sub_queries TEXT NOT NULL DEFAULT '[]',
            persona TEXT NOT NULL DEFAULT '',
            schema TEXT NOT NULL DEFAULT 'explainer',
            priority INTEGER NOT NULL DEFAULT 0,
            stage TEXT NOT NULL DEFAULT 'queued',
            error TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE stage_history (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
            from_stage TEXT,
            to_stage TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            data TEXT NOT NULL DEFAULT '',
            at TEXT NOT NULL
        );
        CREATE INDEX stage_history_topic ON stage_history(topic_id);
        CREATE TABLE sources (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            topic_id INTEGER REFERENCES topics(id) ON DELETE CASCADE,
            url TEXT NOT NULL,
            final_url TEXT NOT NULL DEFAULT '',
            domain TEXT NOT NULL DEFAULT '',
            status INTEGER,
            outcome TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            bytes INTEGER NOT NULL DEFAULT 0,
            seconds REAL NOT NULL DEFAULT 0,
            title TEXT NOT NULL DEFAULT '',
            content_hash TEXT NOT NULL DEFAULT '',
            trust_boost REAL NOT NULL DEFAULT 0,
            at TEXT NOT NULL,
            UNIQUE(topic_id, url)
        );
        CREATE INDEX sources_topic ON sources(topic_id);
        """
    )


def m002_facts_and_runs(conn: sqlite3.Connection) -> None:
    """Facts under review and night-run records."""
    _run_script(
        conn,
        """
        CREATE TABLE facts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            topic_slug TEXT NOT NULL,
            category TEXT NOT NULL,
            url TEXT NOT NULL DEFAULT '',
            title TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            evergreen INTEGER NOT NULL DEFAULT 0,
            status TEXT NOT NULL DEFAULT 'pending',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX facts_topic ON facts(topic_slug);
        CREATE TABLE night_runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            summary TEXT NOT NULL DEFAULT '{}'
        );
        """
    )


def m003_knowledge(conn: sqlite3.Connection) -> None:
    """The knowledge base: facts with their evidence, decisions and corroborations; extraction progress."""
    _run_script(
        conn,
        """
        ALTER TABLE facts RENAME TO facts_m002;
        CREATE TABLE facts (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            uid TEXT NOT NULL UNIQUE,
            topic_id INTEGER REFERENCES topics(id) ON DELETE SET NULL,
            topic_slug TEXT NOT NULL DEFAULT '',
            category TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'topic' CHECK (kind IN ('topic', 'evergreen')),
            text TEXT NOT NULL,
            original_text TEXT NOT NULL DEFAULT '',
            url TEXT NOT NULL DEFAULT '',
            title TEXT NOT NULL DEFAULT '',
            domain TEXT NOT NULL DEFAULT '',
            published TEXT NOT NULL DEFAULT '',
            fetched_at TEXT NOT NULL DEFAULT '',
            quote TEXT NOT NULL DEFAULT '',
            quote_start INTEGER NOT NULL DEFAULT -1,
            quote_end INTEGER NOT NULL DEFAULT -1,
            extractor TEXT NOT NULL DEFAULT '',
            support REAL,
            flags TEXT NOT NULL DEFAULT '[]',
            status TEXT NOT NULL DEFAULT 'pending'
                CHECK (status IN ('pending', 'kept', 'edited', 'deleted', 'promoted')),
            decisions TEXT NOT NULL DEFAULT '[]',
            corroborations TEXT NOT NULL DEFAULT '[]',
            vector BLOB,
            vector_model TEXT NOT NULL DEFAULT '',
            point_id TEXT NOT NULL DEFAULT '',
            collection TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        INSERT INTO facts (uid, topic_slug, category, kind, text, url, title, status, created_at,
                           updated_at)
            SELECT lower(hex(randomblob(16))), topic_slug, category,
                   CASE evergreen WHEN 1 THEN 'evergreen' ELSE 'topic' END, text, url, title,
                   CASE status WHEN 'approved' THEN 'kept' ELSE status END, created_at, updated_at
            FROM facts_m002;
        DROP TABLE facts_m002;
        CREATE INDEX facts_topic ON facts(topic_id);
        CREATE INDEX facts_status ON facts(status);
        CREATE INDEX facts_category ON facts(category);
        CREATE TABLE fact_extractions (
            topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
            url TEXT NOT NULL,
            extractor TEXT NOT NULL DEFAULT '',
            facts INTEGER NOT NULL DEFAULT 0,
            merged INTEGER NOT NULL DEFAULT 0,
            at TEXT NOT NULL,
            PRIMARY KEY (topic_id, url)
        )
        """
    )


def m004_research_chunks(conn: sqlite3.Connection) -> None:
    """Research chunk text while its topic is active, so the vector store can be rebuilt from SQLite."""
    _run_script(
        conn,
        """
        CREATE TABLE research_chunks (
            point_id TEXT PRIMARY KEY,
            topic_id INTEGER NOT NULL REFERENCES topics(id) ON DELETE CASCADE,
            collection TEXT NOT NULL,
            payload TEXT NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX research_chunks_topic ON research_chunks(topic_id)
        """
    )


def m005_workspace_id(conn: sqlite3.Connection) -> None:
    """The workspace's id, also recorded in its vector store: a store and a database that differ are refused.

    `store_claimed` says a store was in use (an existing workspace's, if it has topics or facts).
    """
    conn.execute("CREATE TABLE workspace (id TEXT NOT NULL, created_at TEXT NOT NULL,"
                 " store_claimed INTEGER NOT NULL DEFAULT 0)")
    used = bool(conn.execute("SELECT 1 FROM topics LIMIT 1").fetchone()
                or conn.execute("SELECT 1 FROM facts LIMIT 1").fetchone())
    conn.execute("INSERT INTO workspace VALUES (?, ?, ?)", (uuid.uuid4().hex, now(), int(used)))


def m006_fact_pages(conn: sqlite3.Connection) -> None:
    """The document pages a fact's quote stands on (PDFs), as a JSON list."""
    conn.execute("ALTER TABLE facts ADD COLUMN pages TEXT NOT NULL DEFAULT '[]'")


def m007_team(conn: sqlite3.Connection) -> None:
    """Workers and editors side by side: topic claims with a lease, who changed a fact, articles, run workers."""
    _run_script(
        conn,
        """
        ALTER TABLE topics ADD COLUMN claimed_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE topics ADD COLUMN lease_until REAL NOT NULL DEFAULT 0;
        ALTER TABLE facts ADD COLUMN updated_by TEXT NOT NULL DEFAULT '';
        ALTER TABLE facts ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE night_runs ADD COLUMN worker TEXT NOT NULL DEFAULT '';
        CREATE TABLE articles (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            topic_id INTEGER UNIQUE REFERENCES topics(id) ON DELETE SET NULL,
            slug TEXT NOT NULL,
            title TEXT NOT NULL,
            status TEXT NOT NULL,
            worker TEXT NOT NULL DEFAULT '',
            path TEXT NOT NULL DEFAULT '',
            body TEXT NOT NULL DEFAULT '',
            meta TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        )
        """
    )


#: Numbered migrations, applied in order and recorded in schema_migrations.
MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = [
    ("m001_initial", m001_initial),
    ("m002_facts_and_runs", m002_facts_and_runs),
    ("m003_knowledge", m003_knowledge),
    ("m004_research_chunks", m004_research_chunks),
    ("m005_workspace_id", m005_workspace_id),
    ("m006_fact_pages", m006_fact_pages),
    ("m007_team", m007_team),
]
#: The tables a workspace's state is in, parents first (what `nonseq db migrate` copies).
TABLES = ("workspace", "topics", "stage_history", "sources", "facts", "fact_extractions", "research_chunks",
          "night_runs", "articles")
#: The PostgreSQL advisory lock key migrations take (one migrating process at a time).
MIGRATION_LOCK = 0x6E6F6E73


#: The PostgreSQL advisory lock maintenance holds alone and every other action shares.
MAINTENANCE_LOCK = 0x6E6F6E74
#: Actions that take the maintenance lock alone (workers and editors wait or stop).
MAINTENANCE = ("reembed", "store rebuild", "store migrate", "db migrate")


def team_lock(conn: sqlite3.Connection, action: str, who: str) -> None:
    """Take the database's maintenance lock (alone for maintenance, shared otherwise) for the session.

    WorkspaceBusyError (exit 75) at once, naming who holds it, when maintenance runs or, for
    maintenance, while others work.
    """
    conn.execute("SELECT set_config('application_name', ?, false)", (f"nonseq {action} ({who})"[:63],))
    exclusive = action in MAINTENANCE
    take = "pg_try_advisory_lock" if exclusive else "pg_try_advisory_lock_shared"
    if conn.execute(f"SELECT {take}(?)", (MAINTENANCE_LOCK,)).fetchone()[0]:
        return
    holders = sorted({str(row[0]) for row in conn.execute(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
        " WHERE l.locktype = 'advisory' AND l.granted AND l.objid = ? AND a.pid != pg_backend_pid()",
        (MAINTENANCE_LOCK,))})
    named = ", ".join(holders) or "another nonseq process"
    if exclusive:
        raise WorkspaceBusyError(f"the database is in use ({named}); maintenance (`nonseq {action}`) needs it "
                                 "alone: try again when they finish")
    raise WorkspaceBusyError(f"maintenance is running on the database ({named}); `nonseq {action}` stops "
                             "before changing anything: try again when it ends")


def dialect(conn: Any) -> str:
    """"sqlite" or "postgresql"."""
    return str(getattr(conn, "dialect", "sqlite"))


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply the migrations not yet recorded; return the names applied."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
    )
    done = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
    newer = sorted(done - {name for name, _ in MIGRATIONS})
    if newer:
        raise ConfigError(f"the database has schema {newer[-1]}, newer than this nonseq knows (up to "
                          f"{MIGRATIONS[-1][0]}): upgrade nonseq on this machine")
    applied = []
    for name, func in MIGRATIONS:
        if name in done:
            continue
        with transaction(conn):
            func(conn)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (name, now()))
        applied.append(name)
    return applied


def open_database(url: str, path: Path) -> sqlite3.Connection:
    """The state database of `[database] url` (empty: the SQLite file at `path`), migrated.

    A PostgreSQL connection is typed as sqlite3's: it offers the same calls (nonseq.pg).
    """
    if is_postgres(url):
        return cast(sqlite3.Connection, connect_pg(url))
    return connect(path)


def connect_pg(url: str) -> Any:
    """Open a PostgreSQL database and migrate it (one migrating process at a time)."""
    from nonseq.pg import PgConnection

    conn = PgConnection(url)
    try:
        conn.execute("SELECT pg_advisory_lock(?)", (MIGRATION_LOCK,))
        try:
            migrate(cast(sqlite3.Connection, conn))
        finally:
            conn.execute("SELECT pg_advisory_unlock(?)", (MIGRATION_LOCK,))
    except BaseException:
        conn.close()
        raise
    return conn


def table_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Rows in each table of the state."""
    return {table: int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]) for table in TABLES}


def copy_state(source: sqlite3.Connection, target: sqlite3.Connection, page: int = 1000) -> None:
    """Copy every table's rows from one (migrated) database into another that is empty, ids kept.

    The workspace row is the source's, so the vector store still recognises its database.
    """
    if not is_fresh(target):
        raise ConfigError("the target database already holds topics or facts: copy only into an empty one")
    with transaction(target):
        target.execute("DELETE FROM workspace")
        for table in TABLES:
            cursor = source.execute(f"SELECT * FROM {table}")
            columns = [d[0] for d in cursor.description]
            rows = cursor.fetchall()
            if not rows:
                continue
            sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
            for start in range(0, len(rows), page):
                target.executemany(sql, [tuple(row) for row in rows[start:start + page]])
        if dialect(target) == "postgresql":
            for table in TABLES:
                if table not in ("workspace", "fact_extractions", "research_chunks"):
                    target.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                   f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)")


def connect(path: Path) -> sqlite3.Connection:
    """Open (and migrate) the SQLite database in WAL mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=10, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        migrate(conn)
    except sqlite3.OperationalError as exc:
        conn.close()
        if "locked" in str(exc):
            raise WorkspaceBusyError(f"database {path} is locked by another process") from None
        raise
    return conn


def workspace_id(conn: sqlite3.Connection) -> str:
    """The id of the workspace this database belongs to."""
    return str(conn.execute("SELECT id FROM workspace").fetchone()[0])


def store_claimed(conn: sqlite3.Connection) -> bool:
    """True once a vector store was recorded as this workspace's."""
    return bool(conn.execute("SELECT store_claimed FROM workspace").fetchone()[0])


def claim_store(conn: sqlite3.Connection) -> None:
    """Record that the workspace has its vector store."""
    with transaction(conn):
        conn.execute("UPDATE workspace SET store_claimed=1")


def is_fresh(conn: sqlite3.Connection) -> bool:
    """True for a database with no topic and no fact (new, or emptied)."""
    return not (conn.execute("SELECT 1 FROM topics LIMIT 1").fetchone()
                or conn.execute("SELECT 1 FROM facts LIMIT 1").fetchone())


def expected_points(conn: sqlite3.Connection) -> tuple[int, int]:
    """(promoted facts, research chunks): what the vector store must hold points for."""
    facts = conn.execute("SELECT COUNT(*) FROM facts WHERE status='promoted'").fetchone()[0]
    chunks = conn.execute("SELECT COUNT(*) FROM research_chunks").fetchone()[0]
    return int(facts), int(chunks)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any error (Ctrl-C included)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:  # SQLite has already rolled back after some errors (a full disk)
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
