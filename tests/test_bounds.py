"""Bounded work on any page or file: chunk caps per page and per file, reported when they cut."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.test_extract import fragment_page

pytestmark = pytest.mark.usefixtures("loopback_only")


def test_chunk_caps_cut_a_huge_page_and_a_long_file_and_say_so(cli: Any, isolated: Path, http_server: Any) -> None:
    html = fragment_page(40_000).encode()

    def route(handler: Any, _path: str, _query: dict[str, str]) -> None:
        handler.send(200, html, "text/html; charset=utf-8")

    url = http_server(route) + "/fragments.html"
    long_file = isolated / "notes.txt"
    long_file.write_text("\n\n".join(f"Paragraph {n} says that cooling loop {n} keeps the reactor stable "
                                     f"under a load of {n} megawatts for hours." for n in range(3000)))
    (isolated / "config.toml").write_text('[fetch]\nallow_hosts = ["127.0.0.0/8"]\ntimeout = 60\n'
                                          "[research]\nmax_chunks_per_page = 6\nmax_chunks_per_file = 9\n")
    cli("queue", "add", "Cooling loops", "-c", "science")
    summary = json.loads(cli("research", "1", "--url", url, "--file", str(long_file), "--json").stdout)
    assert summary["chunks"] == 6 + 9
    cut = {c["url"]: c for c in summary["capped"]}
    assert cut[url] == {"url": url, "kept": 6, "setting": "[research] max_chunks_per_page"}
    assert cut[long_file.resolve().as_uri()]["kept"] == 9
    recorded = {s["url"]: s for s in json.loads(cli("queue", "show", "1", "--json").stdout)["sources"]}
    assert recorded[url]["reason"] == "kept the first 6 chunks ([research] max_chunks_per_page)"
    shown = cli("research", "1", "--url", url).stdout
    assert "cut short" in shown and "kept the first 6 chunks" in shown
