"""The `nonseq` script's entry: --help from stored text that matches the app, --version, the rest to the CLI."""

from __future__ import annotations

import os
import subprocess
import sys

from nonseq import __version__, launch


def _run(args: list[str], columns: int = 0) -> subprocess.CompletedProcess[str]:
    """`python -m nonseq ARGS` with stdout piped (COLUMNS set when given)."""
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS" and not k.startswith("NONSEQ_")}
    if columns:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "nonseq", *args], env=env,
                          capture_output=True, text=True, timeout=120)


def _imported(stderr: str) -> set[str]:
    """Top-level module names from `-X importtime` output."""
    return {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in stderr.splitlines()
            if line.startswith("import time:")}


def test_stored_root_help_is_the_apps_own_help():
    with open(launch.HELP_FILE, encoding="utf-8") as handle:
        stored = handle.read()
    assert stored == launch.render_root_help(), "regenerate: python -m nonseq.launch --write-help"
    assert stored.startswith("Usage: nonseq [OPTIONS] COMMAND")


def test_help_answers_without_loading_the_cli():
    done = _run(["--help"])
    assert done.returncode == 0
    with open(launch.HELP_FILE, encoding="utf-8") as handle:
        assert done.stdout == handle.read()
    assert not {"typer", "click", "rich", "pydantic", "nonseq.cli"} & _imported(done.stderr)


def test_narrow_terminal_gets_the_cli_rendering():
    done = _run(["--help"], columns=60)
    assert done.returncode == 0
    assert "typer" in _imported(done.stderr)  # the CLI rendered it for 60 columns
    assert max(len(line) for line in done.stdout.splitlines()) <= 60


def test_version_and_other_commands():
    done = _run(["--version"])
    assert done.stdout == f"nonseq {__version__}\n"
    assert "typer" not in _imported(done.stderr)
    bad = _run(["no-such-command"])
    assert bad.returncode == 2 and "No such command" in bad.stderr
