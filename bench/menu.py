"""How fast the main menu appears: `nonseq` in a real pseudo-terminal, N starts in a fresh workspace.

Prints, per start, the seconds until "Main menu" is on the screen and until the SearXNG probe
has answered (here a port that accepts and never answers: the probe's 1 s timeout), then the
median. Usage: python bench/menu.py [--runs 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: nonseq, devkit, bench

from devkit.terminal import Terminal  # noqa: E402 - after the path setup


def one_start(folder: Path) -> tuple[float, float]:
    """Seconds to the menu, and to the SearXNG probe's answer."""
    started = time.monotonic()
    term = Terminal(folder)
    try:
        term.wait("Main menu")
        shown = time.monotonic() - started
        term.wait("SearXNG down", timeout=10)
        probed = time.monotonic() - started
        term.press("q")
        term.finish()
    finally:
        term.close()
    return shown, probed


def main() -> None:
    """Run the starts and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", "--limit", type=int, default=5, help="starts to time")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    opts = parser.parse_args()
    runs = opts.runs
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "config.toml").write_text(
            f'[searxng]\nurl = "http://127.0.0.1:{silent.getsockname()[1]}"\n', encoding="utf-8")
        shown, probed = [], []
        for n in range(1, runs + 1):
            a, b = one_start(folder)
            shown.append(a)
            probed.append(b)
            if not opts.json:
                print(f"start {n}: main menu after {a:.2f} s, SearXNG probe shown after {b:.2f} s")
    silent.close()
    if opts.json:
        print(json.dumps({"runs": runs, "menu_seconds": [round(s, 3) for s in shown],
                          "probe_seconds": [round(s, 3) for s in probed],
                          "menu_median_s": round(statistics.median(shown), 3),
                          "probe_median_s": round(statistics.median(probed), 3)}))
        return
    print(f"median: main menu {statistics.median(shown):.2f} s, "
          f"probe {statistics.median(probed):.2f} s ({runs} starts)")


if __name__ == "__main__":
    main()
