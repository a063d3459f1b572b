"""Topic claims: a worker takes the next runnable topic with a lease it renews while it works.

On PostgreSQL several workers share one queue: the claim is `SELECT … FOR UPDATE SKIP LOCKED`
(two workers never take one topic) and sets `claimed_by` and `lease_until` (the database's clock).
A worker that dies stops renewing; once its lease has run out another worker takes the topic and
resumes it from the stage it had reached. On SQLite the workspace lock already allows one writer;
the same statements run without the row lock.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

from nonseq.db import dialect, transaction

#: How many times per lease a live worker renews it.
RENEWALS_PER_LEASE = 3


def clock(conn: Any) -> float:
    """Seconds since the epoch by the database's clock (PostgreSQL) or this machine's (SQLite)."""
    if dialect(conn) == "postgresql":
        return float(conn.execute("SELECT extract(epoch from clock_timestamp())::double precision").fetchone()[0])
    return time.time()


def claim_next(conn: Any, worker: str, lease: float, stages: Collection[str], *,
               also: Collection[int] = (), skip: Collection[int] = (), sole: bool = False) -> int | None:
    """Claim the first topic (priority, then id) in `stages` or among `also`, not in `skip`, that no live
    worker holds; its id, or None when there is nothing to claim.

    `sole`: the caller holds the workspace lock (SQLite), so no other worker lives and every other
    claim is a dead process's: taken over at once instead of after its lease."""
    marks = ", ".join("?" * len(stages))
    where = f"(stage IN ({marks})" + (f" OR id IN ({', '.join('?' * len(also))}))" if also else ")")
    args: list[Any] = [*stages, *also]
    if skip:
        where += f" AND id NOT IN ({', '.join('?' * len(skip))})"
        args.extend(skip)
    lock = " FOR UPDATE SKIP LOCKED" if dialect(conn) == "postgresql" else ""
    with transaction(conn):
        now = clock(conn)
        free = "" if sole else " AND (claimed_by = '' OR claimed_by = ? OR lease_until < ?)"
        row = conn.execute(f"SELECT id FROM topics WHERE {where}{free} ORDER BY priority DESC, id ASC LIMIT 1{lock}",
                           (*args, *(() if sole else (worker, now)))).fetchone()
        if row is None:
            return None
        conn.execute("UPDATE topics SET claimed_by=?, lease_until=? WHERE id=?", (worker, now + lease, row[0]))
    return int(row[0])


def next_expiry(conn: Any, worker: str, stages: Collection[str], skip: Collection[int] = ()) -> float | None:
    """Seconds until the first lease another worker holds on a topic in `stages` (not in `skip`) runs out;
    None when no such topic is held (there is nothing left to wait for)."""
    where = f"stage IN ({', '.join('?' * len(stages))}) AND claimed_by != '' AND claimed_by != ?"
    args: list[Any] = [*stages, worker]
    if skip:
        where += f" AND id NOT IN ({', '.join('?' * len(skip))})"
        args.extend(skip)
    row = conn.execute(f"SELECT MIN(lease_until) FROM topics WHERE {where}", args).fetchone()
    if row is None or row[0] is None:
        return None
    return max(0.0, float(row[0]) - clock(conn))


def renew(conn: Any, topic_id: int, worker: str, lease: float) -> bool:
    """Extend this worker's lease on a topic; False when it is no longer this worker's."""
    with transaction(conn):
        cursor = conn.execute("UPDATE topics SET lease_until=? WHERE id=? AND claimed_by=?",
                              (clock(conn) + lease, topic_id, worker))
    return bool(cursor.rowcount)


def release(conn: Any, topic_id: int, worker: str) -> None:
    """Give a topic back (finished or failed): any worker may take it again if it is runnable."""
    with transaction(conn):
        conn.execute("UPDATE topics SET claimed_by='', lease_until=0 WHERE id=? AND claimed_by=?",
                     (topic_id, worker))


def holder(conn: Any, topic_id: int) -> tuple[str, float]:
    """(worker, seconds of lease left) of a topic; ("", 0) when no one holds it."""
    row = conn.execute("SELECT claimed_by, lease_until FROM topics WHERE id=?", (topic_id,)).fetchone()
    if row is None or not row[0]:
        return "", 0.0
    return str(row[0]), max(0.0, float(row[1]) - clock(conn))


@contextmanager
def renewing(open_connection: Any, topic_id: int, worker: str, lease: float) -> Iterator[threading.Event]:
    """Renew the lease in a background thread, on its own connection, while the block runs.

    The event is set when the lease was lost (renewal found another holder); the worker should stop.
    """
    stop, lost = threading.Event(), threading.Event()

    def loop() -> None:
        """Renew every lease / RENEWALS_PER_LEASE seconds until stopped."""
        conn = None
        try:
            conn = open_connection()
            while not stop.wait(lease / RENEWALS_PER_LEASE):
                if not renew(conn, topic_id, worker, lease):
                    lost.set()
                    return
        except Exception:  # noqa: BLE001 - the database is down: the main thread meets it too
            lost.set()
        finally:
            if conn is not None:
                with contextlib.suppress(Exception):
                    conn.close()

    thread = threading.Thread(target=loop, name=f"lease-{topic_id}", daemon=True)
    thread.start()
    try:
        yield lost
    finally:
        stop.set()
        thread.join(timeout=5)
