"""The bundled embedder's vectors kept on disk across runs, processes and workspaces: one SQLite file.

Exact, not approximate: a text's vector from the bundled model does not depend on its batch
(tests/test_embedders.py checks it bit for bit), so a kept vector is what the model would give again.
The key is a digest of the model's identity and the text; the oldest rows go first beyond `max_rows`.
Several processes may share the file (WAL, a short busy wait). The cache never fails an embedding: a
file it cannot open or read is left alone and the model runs, as it would without a cache.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
from pathlib import Path

import numpy as np

_SCHEMA = ("CREATE TABLE IF NOT EXISTS vectors "
           "(id INTEGER PRIMARY KEY, key BLOB NOT NULL UNIQUE, data BLOB NOT NULL)")
#: SQLite's limit of bound parameters per statement is 32,766 since 3.32; stay far below it.
_CHUNK = 500


class VectorCache:
    """Vectors of `dim` float32 values by (model tag, text digest), in the SQLite file at `path`."""

    def __init__(self, path: Path, tag: str, dim: int, max_rows: int = 100_000) -> None:
        self.path = path
        self.dim = dim
        self.max_rows = max_rows
        self.error = ""  #: why the cache was given up in this process ("" while it works)
        self.skipped = 0  #: vectors not kept because another process held the file too long
        self._tag = tag.encode("utf-8")
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = 0

    def key(self, digest: bytes) -> bytes:
        """The stored key of a text's digest under this model."""
        return hashlib.blake2b(self._tag + b"\0" + digest, digest_size=16).digest()

    def get(self, digests: list[bytes]) -> list[np.ndarray | None]:
        """The kept vector of each text digest (None where there is none, or the file cannot be read)."""
        keys = [self.key(d) for d in digests]
        found: dict[bytes, bytes] = {}
        with self._lock:
            conn = self._connect()
            if conn is None:
                return [None] * len(keys)
            try:
                for start in range(0, len(keys), _CHUNK):
                    part = keys[start:start + _CHUNK]
                    marks = ",".join("?" * len(part))
                    found.update(conn.execute(f"SELECT key, data FROM vectors WHERE key IN ({marks})", part))
            except sqlite3.Error as exc:
                self._give_up_unless_busy(exc)
                return [None] * len(keys)
        return [self._vector(found.get(k)) for k in keys]

    def put(self, digests: list[bytes], rows: list[np.ndarray]) -> None:
        """Keep vectors (a busy or broken file keeps nothing; the oldest rows go beyond `max_rows`)."""
        if not digests:
            return
        items = [(self.key(d), np.ascontiguousarray(r, dtype="<f4").tobytes()) for d, r in zip(digests, rows,
                                                                                              strict=True)]
        with self._lock:
            conn = self._connect()
            if conn is None:
                return
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.executemany("INSERT OR IGNORE INTO vectors (key, data) VALUES (?, ?)", items)
                last = conn.execute("SELECT max(id) FROM vectors").fetchone()[0] or 0
                if last > self.max_rows:
                    conn.execute("DELETE FROM vectors WHERE id <= ?", (last - self.max_rows,))
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                if self._give_up_unless_busy(exc):
                    self.skipped += len(items)

    def __len__(self) -> int:
        with self._lock:
            conn = self._connect()
            if conn is None:
                return 0
            try:
                return int(conn.execute("SELECT count(*) FROM vectors").fetchone()[0])
            except sqlite3.Error:
                return 0

    def close(self) -> None:
        """Close the file (it opens again on the next use)."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        """Close the file; the caller holds the lock."""
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
        self._conn = None

    def _vector(self, data: bytes | None) -> np.ndarray | None:
        """A stored value as a vector; None unless it is exactly `dim` float32 values."""
        if data is None or len(data) != 4 * self.dim:
            return None
        return np.frombuffer(data, dtype="<f4").astype(np.float32)

    def _connect(self) -> sqlite3.Connection | None:
        """The open file (opened in this process on first use); None once the cache was given up."""
        if self.error:
            return None
        if self._conn is not None and self._pid == os.getpid():
            return self._conn
        conn = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=2.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(_SCHEMA)
        except OSError as exc:
            self.error = f"vector cache {self.path} not used: {exc}"
            return None
        except sqlite3.Error as exc:
            if conn is not None:
                conn.close()
            self._give_up_unless_busy(exc)  # another process creating the file: try again next time
            return None
        self._conn, self._pid = conn, os.getpid()
        return conn

    def _give_up_unless_busy(self, exc: sqlite3.Error) -> bool:
        """True for a locked file (skipped this once); any other error ends the cache's use in this process."""
        if "locked" in str(exc) or "busy" in str(exc):
            return True
        self.error = f"vector cache {self.path} not used: {exc}"
        self._close()
        return False
