"""Faults of the machine and hostile ids: a damaged database, a full disk, a special file as an export target.

(Never /dev/full itself: as root, a broken export would replace the machine's device node.)
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from devkit.checks import one_error_line
from nonseq import db as nonseq_db
from nonseq.pipeline import topics

HUGE = "99999999999999999999999"


def _garble_middle_pages(path: Path) -> None:
    """Overwrite a few B-tree pages in the middle of an SQLite file (its header stays readable)."""
    data = bytearray(path.read_bytes())
    pages = len(data) // 4096
    for page in range(pages // 2, pages // 2 + 3):
        data[page * 4096 + 8:(page + 1) * 4096] = b"\x5a" * (4096 - 8)
    path.write_bytes(bytes(data))


def test_a_damaged_database_is_one_line_and_doctor_names_it(cli: Any, isolated: Path, ws: Any) -> None:
    for n in range(120):
        topics.add_topic(ws, f"Topic number {n} about " + "a long title " * 12, "software", focus="a focus " * 40)
    ws.close()
    _garble_middle_pages(isolated / ".nonseq" / "nonseq.db")

    listed = cli("queue", "list", code=None)
    assert listed.exit_code != 0
    one_error_line(listed, "workspace database")
    assert "damaged" in listed.stderr and ".recover" in listed.stderr

    doctor = cli("doctor", code=None)
    assert doctor.exit_code != 0
    assert "FAIL database" in doctor.stdout and "is damaged" in doctor.stdout


def test_a_full_disk_is_one_line_and_keeps_what_was_saved(
        cli: Any, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli("queue", "add", "First topic", "-c", "software")
    real_connect = nonseq_db.connect

    def full_disk(path: Path) -> sqlite3.Connection:
        """SQLite itself reports a full disk once the file cannot grow past its current pages."""
        conn = real_connect(path)
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return conn

    monkeypatch.setattr(nonseq_db, "connect", full_disk)
    added = [cli("queue", "add", f"Topic {n} " + "with a long focus " * 3, "-c", "software",
                 "--focus", "x" * 3000, code=None) for n in range(12)]
    failed = [r for r in added if r.exit_code != 0]
    assert failed, "the database never filled up"
    one_error_line(failed[0], "could not be written (database or disk is full")
    monkeypatch.setattr(nonseq_db, "connect", real_connect)
    shown = cli("queue", "show", "first-topic")
    assert "First topic" in shown.stdout


@pytest.mark.parametrize("command", ["show", "keep", "delete", "edit"])
def test_an_id_beyond_sqlite_is_not_found(cli: Any, command: str) -> None:
    extra = ["--text", "new text"] if command == "edit" else []
    result = cli("knowledge", command, HUGE, *extra, code=None)
    assert result.exit_code != 0
    one_error_line(result, f"no fact #{HUGE}")


def test_export_never_replaces_what_is_not_a_regular_file(cli: Any, isolated: Path) -> None:
    cli("queue", "add", "First topic", "-c", "software")
    folder = isolated / "exports"
    folder.mkdir()
    result = cli("knowledge", "export", str(folder), code=2)
    one_error_line(result, "is not a regular file")
    assert folder.is_dir() and not list(folder.iterdir())
    fifo = isolated / "pipe"
    os.mkfifo(fifo)
    cli("knowledge", "export", str(fifo), code=2)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    cli("knowledge", "export", str(isolated / "facts.jsonl"))
    assert (isolated / "facts.jsonl").is_file()
