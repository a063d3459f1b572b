"""One writer per workspace: a non-blocking file lock on `<data_dir>/nonseq.lock`.

Every action that changes the workspace (queue, research, gate, write, night, knowledge, ...)
takes it for the action's duration; a second process refuses at once with WorkspaceBusyError
(exit 75) before it changes anything. Read-only commands never take it. The lock is re-entrant
within one process, so a service that locks may call another that locks too.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nonseq.errors import ConfigError, WorkspaceBusyError

LOCK_NAME = "nonseq.lock"

_guard = threading.Lock()
_held: dict[str, list[int]] = {}  # resolved lock path → [fd, depth]


def lock_path(data_dir: Path) -> Path:
    """Where the workspace lock of `data_dir` lives."""
    return Path(data_dir) / LOCK_NAME


def holder(data_dir: Path) -> dict[str, Any]:
    """Who holds (or last held) the lock: {"pid", "action", "since"}; {} when unknown."""
    try:
        text = lock_path(data_dir).read_text(encoding="utf-8")
        info = json.loads(text) if text.strip() else {}
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def is_locked(data_dir: Path) -> bool:
    """True when another process holds the workspace lock right now."""
    path = lock_path(data_dir)
    if str(path.resolve()) in _held:
        return True
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _busy_message(data_dir: Path) -> str:
    """One line naming the process that holds the workspace."""
    info = holder(data_dir)
    who = f"`nonseq {info['action']}`" if info.get("action") else "another nonseq process"
    pid = f" (pid {info['pid']}" + (f", since {info['since']})" if info.get("since") else ")") \
        if info.get("pid") else ""
    return f"workspace {data_dir} is busy: {who}{pid} is running; nothing was changed, try again later"


def _open(path: Path) -> int:
    """Open (create) the lock file; a one-line ConfigError when data_dir is unusable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ConfigError(f"[paths] data_dir {path.parent} cannot hold the workspace: {reason}") from None


def acquire(data_dir: Path, action: str = "") -> None:
    """Take the workspace lock (or deepen this process's hold); WorkspaceBusyError when taken."""
    path = lock_path(data_dir)
    with _guard:
        fd = _open(path)
        key = str(path.resolve())
        if key in _held:
            os.close(fd)
            _held[key][1] += 1
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise WorkspaceBusyError(_busy_message(Path(data_dir))) from None
        info = {"pid": os.getpid(), "action": action,
                "since": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        _held[key] = [fd, 1]


def release(data_dir: Path) -> None:
    """Give back one level of this process's hold; the file lock goes with the last one."""
    key = str(lock_path(data_dir).resolve())
    with _guard:
        entry = _held.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] > 0:
            return
        del _held[key]
        fd = entry[0]
        with contextlib.suppress(OSError):  # the file system went away: the lock still goes
            os.ftruncate(fd, 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


@contextmanager
def workspace_lock(data_dir: Path, action: str = "") -> Iterator[None]:
    """Hold the workspace lock for the `with` block; raises WorkspaceBusyError (exit 75) at once."""
    acquire(data_dir, action)
    try:
        yield
    finally:
        release(data_dir)
