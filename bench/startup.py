"""How heavy start-up is: the CPU seconds (user + system) of cheap commands, as whole processes.

Each command runs N times after a warm-up in a fresh workspace; the CPU time comes from the
operating system's accounting of the finished child (getrusage), so a busy machine inflates the
wall time but much less the CPU time. Prints min / median / max per command and, with --json, one
JSON object. Also lists the heavy modules a command imported (`-X importtime`), so a regression
names its cause. Goal: `nonseq --help` at 0.1 s of CPU or less.

    python bench/startup.py [--runs 7] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

COMMANDS = {"--help": ["--help"], "queue list": ["queue", "list"], "--version": ["--version"]}
#: Modules that have no business in a cheap command.
HEAVY = ("pydantic", "numpy", "fastembed", "onnxruntime", "qdrant_client", "torch", "llama_cpp",
         "trafilatura", "httpx", "sqlite3")


def cpu_seconds(args: list[str], cwd: Path) -> float:
    """User + system CPU of one `python -m nonseq ARGS` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "nonseq", *args], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _env() -> dict[str, str]:
    """The environment without NONSEQ_* overrides."""
    return {k: v for k, v in os.environ.items() if not k.startswith("NONSEQ_")}


def heavy_imports(args: list[str], cwd: Path) -> list[str]:
    """Top-level packages from HEAVY that the command imported."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "nonseq", *args], cwd=cwd,
                          capture_output=True, text=True, env=_env())
    names = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in done.stderr.splitlines()
             if line.startswith("import time:")}
    return sorted(n for n in HEAVY if n in names)


def main() -> None:
    """Run every command and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", "--limit", type=int, default=7, help="timed runs per command")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        for name, args in COMMANDS.items():
            cpu_seconds(args, cwd)  # warm-up: the OS file cache, .pyc files
            runs = [cpu_seconds(args, cwd) for _ in range(opts.runs)]
            results[name] = {"cpu_min": round(min(runs), 3), "cpu_median": round(statistics.median(runs), 3),
                             "cpu_max": round(max(runs), 3), "heavy_imports": heavy_imports(args, cwd)}
    if opts.json:
        print(json.dumps(results, indent=2))
        return
    for name, r in results.items():
        print(f"nonseq {name:12} CPU s min {r['cpu_min']:.3f}  median {r['cpu_median']:.3f}  "
              f"max {r['cpu_max']:.3f}  heavy: {', '.join(r['heavy_imports']) or '-'}")


if __name__ == "__main__":
    main()
