"""No dead ends: a topic walks gated → more research → gated, and insufficient → reopened → written.

Real parts: saved news pages (their canonical URL gives each its own domain) read with
`research --file`, embedded Qdrant and the bundled embedder. The model restates each planned source
sentence as it is, scripted in process through the Python API's injected llm: what is under test
here is the stage machine, and the bundled SmolLM2 costs minutes an article (the writing itself is
covered by test_write_e2e and test_writer). Ctrl-C during a model call needs a model in another
process: that test keeps the OpenAI-compatible backend over HTTP on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from scripted_llm import restating, source_of

import nonseq
from nonseq.config import Settings

pytestmark = [pytest.mark.slow]

HTML = Path(__file__).parent / "fixtures" / "web" / "html"
#: Saved pages by topic: (file id prefix, canonical domain).
STADIA = {"digg": "680c2848", "hollywood": "8267acac"}
PLAGUE = {"sun": "8b194530", "smithsonian": "ea25dd7e", "express": "ba4dfe2d"}


class _Writer(BaseHTTPRequestHandler):
    """/v1/models and /v1/chat/completions (a plain JSON reply)."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet."""

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        self._send(200, {"data": [{"id": "cite-writer"}]} if self.path == "/v1/models" else {})

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path != "/v1/chat/completions":
            self._send(404, {"error": "not found"})
            return
        self._send(200, {"choices": [{"message": {"role": "assistant",
                                                  "content": source_of(body.get("messages", []))}}]})


def _page(folder: Path, prefix: str) -> str:
    """A saved page unpacked into folder; its path."""
    source = next(HTML.glob(f"{prefix}*.html.gz"))
    target = folder / f"{prefix}.html"
    target.write_bytes(gzip.decompress(source.read_bytes()))
    return str(target)


def _stages(cli: Any, topic: str) -> list[str]:
    history = json.loads(cli("queue", "show", topic, "--json").stdout)["history"]
    return [h["to"] for h in history if h["from"] != h["to"]]


class _HeldWriter(_Writer):
    """The same server, but chat calls wait until the test lets them go (a model still writing)."""

    def do_POST(self) -> None:  # noqa: N802
        server: Any = self.server
        server.entered.set()
        server.released.wait(120)
        with contextlib.suppress(ConnectionError):  # the interrupted client has gone
            super().do_POST()


@pytest.fixture
def held_writer() -> Iterator[Any]:
    """A _HeldWriter on 127.0.0.1 (its url, and the events `entered` and `released`)."""
    server: Any = ThreadingHTTPServer(("127.0.0.1", 0), _HeldWriter)
    server.daemon_threads = True
    server.entered, server.released = threading.Event(), threading.Event()
    server.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.released.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def env(isolated: Path) -> Path:
    """A workspace without Uber passes (no search here); its model is injected where it writes."""
    return write_env(isolated)


def write_env(isolated: Path, writer_url: str = "") -> Path:
    """The config of `env` (with an OpenAI-compatible server at writer_url when given), and a pages folder."""
    server = f'\n[llm]\nbackend = "openai"\nurl = "{writer_url}"\n' if writer_url else ""
    text = (f'[gate]\nuber_passes = 0\n{server}'
            "\n[retrieval]\nfinal_top = 4\nevergreen_top = 0\npersona_top = 2\n")
    writing = {"max_units": "4", "min_sentences": "0", "min_supported_share": "0.0", "echo_words": "50",
               "restate": "true"}  # the model writes: its calls, its Ctrl-C
    if "writing" in Settings.model_fields:  # only what the writer here knows: no drafts
        known = Settings.model_fields["writing"].annotation.model_fields  # type: ignore[union-attr]
        text += "\n[writing]\n" + "".join(f"{k} = {v}\n" for k, v in writing.items() if k in known)
    (isolated / "config.toml").write_text(text, encoding="utf-8")
    (isolated / "pages").mkdir()
    return isolated


def test_gated_topic_takes_more_research_and_is_gated_again(
        cli: Any, env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = {k: _page(env / "pages", v) for k, v in STADIA.items()}
    cli("queue", "add", "Google Stadia game streaming launch", "-c", "software")
    cli("research", "1", "--file", pages["digg"], "--json")
    thin = json.loads(cli("gate", "1", "--json").stdout)
    assert thin["status"] == "THIN" and thin["stage"] == "thin" and thin["domains"] == 1
    monkeypatch.setenv("NONSEQ_GATE__MIN_DOMAINS", "1")  # the rule relaxed: judged again, OK
    first = json.loads(cli("gate", "1", "--json").stdout)
    assert first["status"] == "OK" and first["stage"] == "gated"
    more = json.loads(cli("research", "1", "--file", pages["hollywood"], "--json").stdout)
    assert more["stage"] == "researched" and more["chunks"] > 0
    again = json.loads(cli("gate", "1", "--json").stdout)
    assert again["stage"] == "gated" and again["chunks"] > first["chunks"]
    assert again["domains"] == first["domains"] + 1
    assert "already OK" in cli("uber", "1").stdout  # Uber on a gated topic: nothing to fill
    assert _stages(cli, "1") == ["queued", "researching", "researched", "gated", "thin", "gated",
                                 "researching", "researched", "gated"]


def test_insufficient_topic_is_reopened_and_written_then_written_again(cli: Any, env: Path) -> None:
    pages = {k: _page(env / "pages", v) for k, v in PLAGUE.items()}
    cli("queue", "add", "Bubonic plague cases in China", "-c", "health",
        "--focus", "hunter infected after eating wild rabbit", "--persona", "the-skeptic")
    cli("research", "1", "--file", pages["sun"], "--json")
    thin = json.loads(cli("write", "1", "--no-input", "--json", code=3).stdout)
    assert thin["stage"] == "insufficient_research"
    refused = cli("write", "1", code=1)
    assert "queue retry 1" in refused.stderr and refused.stderr.count("\n") == 1

    assert "→ researched" in cli("queue", "retry", "1").stdout
    kept = json.loads(cli("queue", "show", "1", "--json").stdout)["sources"]
    assert [s["outcome"] for s in kept] == ["fetched"]  # research kept
    pack = json.loads(cli("inspect", "1", "--json").stdout)
    assert pack["research"], "the reopened topic still has its chunks"
    assert any("not loaded" in note and "persona load" in note for note in pack["notes"])

    cli("research", "1", "--file", pages["smithsonian"], "--file", pages["express"], "--json")
    model = restating()
    with nonseq.open_workspace(".", llm=model) as ws:
        written = ws.write(1).to_dict()
    assert written["outcome"] == "written" and written["stage"] == "written" and model.calls > 0
    first = Path(written["article"]["path"])
    assert first.name == "bubonic-plague-cases-in-china.md"
    assert written["prompt"]["units"] > 0 and sum(written["prompt"][k] for k in ("quoted", "verbatim", "restated")) > 0

    refused = cli("write", "1", code=1)
    assert "--force" in refused.stderr and refused.stderr.count("\n") == 1
    before = first.read_bytes()
    with nonseq.open_workspace(".", llm=model) as ws:
        again = ws.write(1, force=True).to_dict()
    assert Path(again["article"]["path"]).name == "bubonic-plague-cases-in-china-2.md"
    assert first.read_bytes() == before  # the first version is kept
    assert _stages(cli, "1") == [
        "queued", "researching", "researched", "gated", "thin", "insufficient_research",
        "researched", "researching", "researched", "gated", "writing", "written",
        "writing", "written"]


def test_ctrl_c_while_the_model_writes_exits_130_and_the_rerun_writes(cli: Any, isolated: Path,
                                                                     held_writer: Any) -> None:
    env = write_env(isolated, held_writer.url)
    pages = [_page(env / "pages", v) for v in PLAGUE.values()]
    cli("queue", "add", "Bubonic plague cases in China", "-c", "health")
    cli("research", "1", *[arg for page in pages for arg in ("--file", page)], "--json")
    proc = subprocess.Popen([sys.executable, "-m", "nonseq", "write", "1", "--no-input"], cwd=env,
                            env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert held_writer.entered.wait(180), "the write never reached the model"
        proc.send_signal(signal.SIGINT)  # while the model call is in flight
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    held_writer.released.set()
    lines = [line for line in err.strip().splitlines() if not line.startswith("warning:")]
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert lines[-1].startswith("interrupted: progress so far is saved"), err
    assert not list((env / "articles").glob("*.md")) if (env / "articles").is_dir() else True
    assert _stages(cli, "1")[-1] == "writing"
    chunks = len(json.loads(cli("inspect", "1", "--json").stdout)["research"])
    written = json.loads(cli("write", "1", "--no-input", "--json").stdout)  # the rerun finishes the job
    assert written["outcome"] == "written" and Path(written["article"]["path"]).is_file()
    stages = _stages(cli, "1")
    assert stages.count("researching") == 1 and stages[-2:] == ["writing", "written"], stages  # no re-research
    assert len(json.loads(cli("inspect", "1", "--json").stdout)["research"]) == chunks
