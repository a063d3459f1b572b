"""The `nonseq` script's entry: `--help` and `--version` answer without loading the CLI.

The root help is the typer app's own text, rendered once into `assets/root_help.txt`;
tests/test_launch.py fails when it drifts from the app (regenerate with
`python -m nonseq.launch --write-help`). Every other command line goes to `nonseq.cli.main`.
"""

from __future__ import annotations

import os
import sys

#: The width click renders help at when the terminal is at least this wide (click's max_width).
HELP_WIDTH = 80
HELP_FILE = os.path.join(os.path.dirname(__file__), "assets", "root_help.txt")


def main() -> None:
    """Answer `nonseq --help` / `--version` from text; run the full CLI for anything else."""
    args = sys.argv[1:]
    if args == ["--version"]:
        from nonseq import __version__

        sys.stdout.write(f"nonseq {__version__}\n")
        return
    if args == ["--help"] and _wide_enough():
        try:
            with open(HELP_FILE, encoding="utf-8") as handle:
                sys.stdout.write(handle.read())
            return
        except OSError:  # an install without the asset: the CLI renders it
            pass
    from nonseq.cli import main as cli_main

    cli_main()


def _wide_enough() -> bool:
    """True when click would render the help at its full width (so the stored text is exact)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns) >= HELP_WIDTH
    stdout = sys.__stdout__
    if stdout is None:
        return True
    try:
        return os.get_terminal_size(stdout.fileno()).columns >= HELP_WIDTH
    except (AttributeError, ValueError, OSError):
        return True  # no terminal: click falls back to 80 columns as well


def render_root_help() -> str:
    """The typer app's root help at full width, as `nonseq --help` prints it."""
    import subprocess

    env = {**os.environ, "COLUMNS": str(HELP_WIDTH)}
    code = "import sys; sys.argv[0] = 'nonseq'; from nonseq.cli import main; main()"
    done = subprocess.run([sys.executable, "-c", code, "--help"], env=env, capture_output=True, text=True,
                          check=True)
    return done.stdout


if __name__ == "__main__":
    if sys.argv[1:] == ["--write-help"]:
        with open(HELP_FILE, "w", encoding="utf-8") as out:
            out.write(render_root_help())
        print(f"wrote {HELP_FILE}")
    else:
        main()
