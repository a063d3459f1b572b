"""Team mode of bench/night.py (`--workers N`): N `nonseq night` workers on one PostgreSQL database.

Starts its own PostgreSQL 15 (devkit/pg_server.py, as the tests' fixture does) and the Qdrant REST
fake (`python -m devkit.qdrant_fake`), queues the topics, runs the workers side by side (each with
the default models) and samples each worker's process tree RSS from /proc. NONSEQ_* variables of
the caller's environment are ignored: the workspace is the bench's own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def clean_env(**extra: str) -> dict[str, str]:
    """The caller's environment without any NONSEQ_* setting, plus the repository and `extra`."""
    from devkit.child import child_env

    env = {k: v for k, v in child_env().items() if not k.startswith("NONSEQ_")}
    return {**env, **extra}


def _team_config(folder: Path, searxng_url: str, database: str, qdrant: str, max_tokens: int | None) -> None:
    """config.toml for the local web, the shared database and the Qdrant server."""
    from devkit.web import UNCACHED, write_config

    write_config(folder, searxng_url)
    with (folder / "config.toml").open("a", encoding="utf-8") as fh:
        fh.write(f'\n[database]\nurl = "{database}"\n\n[qdrant]\nurl = "{qdrant}"\n{UNCACHED}')
        if max_tokens:
            fh.write(f"\n[llm]\nmax_tokens = {max_tokens}\n")


def _start_qdrant(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """The Qdrant REST fake in its own process; (process, URL)."""
    proc = subprocess.Popen([sys.executable, "-m", "devkit.qdrant_fake", "--port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def _run_workers(folder: Path, count: int, topics: int, env: dict[str, str]) -> tuple[list[int], list[int], float]:
    """Run `count` workers at once; (exit codes, peak tree RSS of each, wall seconds)."""
    from bench.night import tree_rss
    from devkit.child import child_argv

    started = time.perf_counter()
    procs = [subprocess.Popen(child_argv(["night", "--max-topics", str(topics)]), cwd=folder,
                              env={**env, "NONSEQ_NIGHT__WORKER": f"w{i + 1}"}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) for i in range(count)]
    peaks = [0] * count
    try:
        while any(p.poll() is None for p in procs):
            for i, proc in enumerate(procs):
                if proc.poll() is None:
                    peaks[i] = max(peaks[i], tree_rss(proc.pid))
            time.sleep(0.2)
    finally:  # a bench stopped half-way leaves no worker behind
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return [int(p.returncode) for p in procs], peaks, time.perf_counter() - started


def run_team(base: Path, searxng_url: str, workers: int, titles: list[tuple[str, str]],
             max_tokens: int | None) -> dict[str, Any]:
    """The team night: figures as bench/night.py --json prints them."""
    from devkit.pg_server import PgServer
    from nonseq.db import open_database

    server = PgServer().start()
    env = clean_env(**server.env)
    qdrant, qdrant_url = _start_qdrant(env)
    try:
        database = server.create_database("bench")
        folder = base / "team"
        folder.mkdir()
        _team_config(folder, searxng_url, database, qdrant_url, max_tokens)
        for title, category in titles:
            done = subprocess.run([sys.executable, "-m", "nonseq", "queue", "add", title, "-c", category],
                                  cwd=folder, env=env, capture_output=True, text=True, check=False)
            assert done.returncode == 0, done.stderr
        codes, peaks, seconds = _run_workers(folder, workers, len(titles), env)
        os.environ["PGPASSWORD"] = server.env["PGPASSWORD"]
        conn = open_database(database, folder / "unused.db")
        stages = [str(row[0]) for row in conn.execute("SELECT stage FROM topics")]
        rows = conn.execute("SELECT worker, COUNT(*) FROM articles GROUP BY worker").fetchall()
        by_worker = {str(r[0]): int(r[1]) for r in rows}
        conn.close()
    finally:
        qdrant.terminate()
        qdrant.wait(timeout=30)
        server.remove()
    ended = sum(s in ("written", "draft", "insufficient_research") for s in stages)
    return {"workers": workers, "topics": len(titles), "exit_codes": codes, "seconds": round(seconds, 1),
            "written": stages.count("written"), "drafts": stages.count("draft"), "ended": ended,
            "topics_per_hour": round(ended / seconds * 3600, 1) if seconds else 0.0,
            "peak_rss_mb": round(max(peaks) / 2**20), "peak_rss_mb_by_worker": [round(p / 2**20) for p in peaks],
            "articles_by_worker": by_worker}
