"""`python -m devkit.child ARGS...`: the real `nonseq` CLI in a child process, for kill tests; `run_child` runs it.

Test-only wiring, from environment variables:
- Always: any name lookup or connection that would leave 127.0.0.0/8 fails (devkit/loopback.py
  guard_loopback); the local web's names reach the fetcher through `[fetch] hosts` in config.toml.
- NONSEQ_TEST_KILL_AT=point:n: SIGKILL this process at the n-th pass through a point:
  `fetch` (a page fetched), `index` (a batch written to the vector store), `write` (just before
  points are written to the embedded store), `rebuild` (a batch written into a copy being rebuilt),
  `token` (a generated token), `article` (an article file being written, half its bytes on disk).
- NONSEQ_TEST_PAUSE_AT=promote: after the promoted facts' points are stored (before the wipe),
  print "paused at promote" on stderr and wait a minute, so a test can kill the process there.
- NONSEQ_TEST_RSS_FILE=path: write this process's peak RSS (bytes) there at exit.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

_COUNTS: Counter[str] = Counter()


def _due(name: str) -> bool:
    """Count a pass through a point; True when NONSEQ_TEST_KILL_AT names this pass."""
    point, _, count = os.environ.get("NONSEQ_TEST_KILL_AT", "").partition(":")
    if point != name:
        return False
    _COUNTS[name] += 1
    return _COUNTS[name] >= int(count or 1)


def _point(name: str) -> None:
    """Die here (SIGKILL, no cleanup) when NONSEQ_TEST_KILL_AT names this pass."""
    if _due(name):
        os.kill(os.getpid(), signal.SIGKILL)


def _after(cls: type, method: str, point: str) -> None:
    """Pass through `point` each time cls.method returns."""
    original = getattr(cls, method)

    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        _point(point)
        return result

    setattr(cls, method, wrapped)


def _before(cls: type, method: str, point: str) -> None:
    """Pass through `point` each time cls.method is called, before it runs."""
    original = getattr(cls, method)

    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        _point(point)
        return original(self, *args, **kwargs)

    setattr(cls, method, wrapped)


def _wire_kill_points() -> None:
    """Wrap the places a kill may hit: fetching, indexing, rebuilding, generating, writing the article."""
    from nonseq.index.edge import EdgeStaging, EdgeStore
    from nonseq.index.vector_store import VectorStore
    from nonseq.research.fetch import Fetcher

    _after(Fetcher, "_page", "fetch")
    _after(VectorStore, "upsert", "index")
    _before(EdgeStore, "write_points", "write")
    _after(EdgeStaging, "write_points", "rebuild")
    from nonseq import llm as llm_pkg

    build = llm_pkg.build_llm

    def build_llm(settings: Any) -> Any:
        model = build(settings)
        complete = model.complete

        def counted(messages: Any, *args: Any, on_token: Any = None, **kwargs: Any) -> Any:
            def token(piece: str) -> None:
                _point("token")
                if on_token:
                    on_token(piece)
            return complete(messages, *args, on_token=token, **kwargs)

        model.complete = counted
        return model

    llm_pkg.build_llm = build_llm
    from nonseq.writing import articles

    temp_write = articles._temp_write

    def half_then_die(folder: Any, text: str) -> Any:
        if _due("article"):  # the article file is being written: half of it is on disk
            temp_write(folder, text[: len(text) // 2])
            os.kill(os.getpid(), signal.SIGKILL)
        return temp_write(folder, text)

    articles._temp_write = half_then_die


def _wire_pause(point: str) -> None:
    """Stop for a minute after the named point (printing where), to be killed there."""
    import time

    from nonseq.knowledge import promote

    points = {"promote": (promote, "promote_facts")}
    owner, name = points[point]
    original = getattr(owner, name)

    def paused(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        print(f"paused at {point}", file=sys.stderr, flush=True)
        time.sleep(60)
        return result

    setattr(owner, name, paused)


def _record_rss() -> None:
    """Peak RSS of this process since exec: VmHWM (ru_maxrss would carry the forking parent's peak)."""
    path = os.environ.get("NONSEQ_TEST_RSS_FILE")
    if path:
        with open("/proc/self/status", encoding="ascii") as fh:
            peak = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmHWM:"))
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(str(peak))


def main() -> None:
    """Wire the test hooks, then run the real CLI."""
    if os.environ.get("NONSEQ_TEST_RSS_FILE"):
        atexit.register(_record_rss)
    from devkit.loopback import guard_loopback

    guard_loopback(setattr)
    if os.environ.get("NONSEQ_TEST_KILL_AT"):
        _wire_kill_points()
    if os.environ.get("NONSEQ_TEST_PAUSE_AT"):
        _wire_pause(os.environ["NONSEQ_TEST_PAUSE_AT"])
    from nonseq.cli import main as cli_main

    sys.argv = ["nonseq", *sys.argv[1:]]
    cli_main()


def child_argv(args: Sequence[str]) -> list[str]:
    """The command line that runs `nonseq ARGS` in a child with the test wiring."""
    return [sys.executable, "-m", "devkit.child", *args]


def without_settings() -> dict[str, str]:
    """This process's environment without its NONSEQ_* settings, but for where vectors are kept (the test
    suite's shared vector cache: a child never writes into the user's ~/.cache)."""
    from nonseq.config import VECTOR_CACHE_ENV

    return {k: v for k, v in os.environ.items() if not k.startswith("NONSEQ_") or k == VECTOR_CACHE_ENV}


def child_env(kill_at: str = "", **extra: str) -> dict[str, str]:
    """This process's environment plus the repository on PYTHONPATH, a kill point and extra variables."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **extra}
    if kill_at:
        env["NONSEQ_TEST_KILL_AT"] = kill_at
    return env


def run_child(args: Sequence[str], cwd: Path | str | None = None, *, kill_at: str = "",
              env: Mapping[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """Run `nonseq ARGS` in a child (killed at `kill_at` when given); its exit code and text output."""
    return subprocess.run(child_argv(args), cwd=cwd, env=child_env(kill_at, **(env or {})), capture_output=True,
                          text=True, timeout=timeout, check=False)


if __name__ == "__main__":
    main()
