"""Night-run benchmark: 10 topics on the local web of real pages, with the default models.

Starts the local web of tests/web.py (real article pages on 127.0.0.0/8), its search API and a
real SearXNG over it, queues 10 topics in a temporary workspace and runs `nonseq night` as a child
process, sampling the RSS of its whole process tree from /proc. Prints the wall time of each topic
by stage (from the night's JSON-lines log) and the peak RSS. Goal: peak < 2 GB.
With --kills N it then runs the crash check N times (SIGKILL at seeded random points, rerun, check).
With --workers N it runs N workers side by side on its own PostgreSQL and Qdrant server (bench/_team.py)
and prints topics_per_hour, peak_rss_mb (the largest of any worker) and written.

    python bench/night.py [--topics 10] [--max-tokens N] [--kills N] [--seed 14] [--workers N] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from devkit.web import NIGHT_TOPICS as TOPICS  # noqa: E402  (after the sys.path line above)
from devkit.web import UNCACHED  # noqa: E402


def tree_rss(root: int) -> int:
    """Resident bytes of a process and all its descendants (from /proc)."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children[ppid].append(int(entry))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(children.get(pid, []))
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def run_child(folder: Path, args: list[str], kill_at: str = "") -> tuple[int, int, float]:
    """Run the CLI in a child (devkit/child.py); (exit code, peak tree RSS, seconds)."""
    from devkit.child import child_argv, child_env

    started = time.perf_counter()
    proc = subprocess.Popen(child_argv(args), cwd=folder, env=child_env(kill_at), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.2)
    return proc.returncode, peak, time.perf_counter() - started


def stage_table(log: Path) -> dict[str, dict[str, float]]:
    """{topic: {step: seconds, "total": seconds, "outcome": ...}} from the night log."""
    rows: dict[str, dict[str, Any]] = defaultdict(dict)
    for line in log.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event["event"] == "step_end":
            row = rows[event["topic"]]
            row[event["step"]] = round(row.get(event["step"], 0) + event["seconds"], 1)
        elif event["event"] == "topic":
            rows[event["topic"]].update(total=event.get("seconds", 0), outcome=event.get("outcome"))
    return dict(rows)


def setup(folder: Path, searxng_url: str, topics: int, max_tokens: int | None) -> None:
    """config.toml for the local web, and the queue."""
    from devkit.web import write_config

    write_config(folder, searxng_url)
    with (folder / "config.toml").open("a", encoding="utf-8") as fh:
        fh.write(UNCACHED)
        if max_tokens:
            fh.write(f"\n[llm]\nmax_tokens = {max_tokens}\n")
    for title, category in TOPICS[:topics]:
        code = subprocess.run([sys.executable, "-m", "nonseq", "queue", "add", title, "-c", category],
                              cwd=folder, env={**os.environ, "PYTHONPATH": str(REPO)},
                              capture_output=True, check=False).returncode
        assert code == 0, title


def echo(folder: Path, stack: contextlib.ExitStack) -> None:
    """`--llm echo`: the writer's model is a loopback server that repeats each unit; facts are not extracted."""
    from devkit.llm_servers import ScriptedChat, echo_unit, point_llm_at

    chat = stack.enter_context(ScriptedChat(answer=echo_unit))
    point_llm_at(folder, chat.url)
    with (folder / "config.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n[knowledge]\nuse_llm = false\n")


def crash_checks(base: Path, searxng_url: str, kills: int, seed: int) -> list[dict[str, Any]]:
    """Kill a night run at seeded random points, rerun it, check it completed consistently."""
    from devkit.checks import check_consistent, kill_points
    from nonseq.config import load_settings
    from nonseq.workspace import Workspace

    results = []
    for i in range(kills):
        folder = base / f"crash-{i}"
        folder.mkdir()
        setup(folder, searxng_url, 1, 120)
        points = kill_points(seed + i, 4)
        codes = [run_child(folder, ["night"], point)[0] for point in points]
        final = run_child(folder, ["night"])[0]
        os.chdir(folder)
        with Workspace(load_settings(folder / "config.toml")) as ws:
            check_consistent(ws)
        results.append({"points": points, "codes": codes, "final": final})
    return results


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", "--limit", type=int, default=10, help="topics in the night run")
    parser.add_argument("--max-tokens", type=int, default=None, help="[llm] max_tokens (default: the default)")
    parser.add_argument("--kills", type=int, default=0, help="crash checks to run after the benchmark")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--workers", type=int, default=0,
                        help="team mode: N workers on one PostgreSQL database and a Qdrant server")
    parser.add_argument("--llm", choices=("config", "echo"), default="config",
                        help="echo: a stand-in writer that repeats its sources, no fact extraction (plumbing checks)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    # `kill` (SIGTERM) unwinds like Ctrl-C: the bench's PostgreSQL, SearXNG and workers are stopped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.workers:
        team(args)
        return

    from devkit.web import HOSTS, LocalWeb, SearchApi, _common_port, free_port, start_server, stop_server
    from nonseq.research.searxng_local import LocalSearxng, json_engine

    web = LocalWeb(_common_port(list(HOSTS.values())))
    web.start()
    api = SearchApi(web)
    server = start_server(api)
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory(prefix="nonseq-night-bench-") as tmp:
        base = Path(tmp)
        searx = LocalSearxng(base / "searxng", free_port())
        searx.write_settings(engines=[json_engine(
            "localweb", f"{api.url}/api/search?q={{query}}&page={{pageno}}", shortcut="lw")], keep_only=[])
        url = searx.start(timeout=60, attached=True)
        try:
            folder = base / "ws"
            folder.mkdir()
            setup(folder, url, args.topics, args.max_tokens)
            with contextlib.ExitStack() as stack:
                if args.llm == "echo":
                    echo(folder, stack)
                code, peak, seconds = run_child(folder, ["night", "--max-topics", str(args.topics)])
            table = stage_table(folder / ".nonseq" / "night.jsonl")
            crashes = crash_checks(base, url, args.kills, args.seed) if args.kills else []
        finally:
            searx.stop()
            stop_server(server)
            web.stop()
    figures = {"exit_code": code, "seconds": round(seconds, 1), "peak_rss_mb": round(peak / 2**20),
               "topics": table, "crashes": crashes}
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    steps = ["research", "gate", "uber", "generate", "ground", "extract"]
    print(f"night run of {args.topics} topic(s): exit {code}, {seconds:.1f} s wall, "
          f"peak RSS of the process tree {peak / 2**20:.0f} MB (goal < 2048 MB)")
    print(f"{'topic':44} {'outcome':22} " + " ".join(f"{s:>8}" for s in steps) + f" {'total':>8}")
    for slug, row in table.items():
        print(f"{slug[:44]:44} {str(row.get('outcome', ''))[:22]:22} "
              + " ".join(f"{row.get(s, 0):8.1f}" for s in steps) + f" {row.get('total', 0):8.1f}")
    for crash in crashes:
        print(f"crash check {crash['points']}: exits {crash['codes']} then {crash['final']} (consistent)")


def team(args: argparse.Namespace) -> None:
    """`--workers N`: the team night (bench/_team.py) on the same local web; prints its figures."""
    from bench._team import run_team
    from devkit.web import HOSTS, LocalWeb, SearchApi, _common_port, free_port, start_server, stop_server
    from nonseq.research.searxng_local import LocalSearxng, json_engine

    web = LocalWeb(_common_port(list(HOSTS.values())))
    web.start()
    api = SearchApi(web)
    server = start_server(api)
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    with tempfile.TemporaryDirectory(prefix="nonseq-team-bench-") as tmp:
        searx = LocalSearxng(Path(tmp) / "searxng", free_port())
        searx.write_settings(engines=[json_engine(
            "localweb", f"{api.url}/api/search?q={{query}}&page={{pageno}}", shortcut="lw")], keep_only=[])
        url = searx.start(timeout=60, attached=True)
        try:
            figures = run_team(Path(tmp), url, args.workers, TOPICS[:args.topics], args.max_tokens)
        finally:
            searx.stop()
            stop_server(server)
            web.stop()
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    print(f"{figures['workers']} worker(s), {figures['topics']} topic(s): {figures['seconds']} s wall, "
          f"{figures['topics_per_hour']} topics/hour, {figures['written']} written, peak RSS of any worker "
          f"{figures['peak_rss_mb']} MB (exits {figures['exit_codes']})")


if __name__ == "__main__":
    main()
