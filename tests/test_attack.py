"""The faults found when nonseq was attacked like a hostile user would: each one reproduced here.

A second process in a busy workspace, a stacked gzip bomb, hostile --file inputs, inputs that used
to end in a traceback, the LLM down while writing, and unknown schemas/personas at queue time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nonseq import lock
from nonseq.config import load_settings
from nonseq.errors import UsageError
from nonseq.text.files import decode_text, read_text_file
from nonseq.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]


def child(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run the real CLI in a child process (tests/nonseq_child.py) in the current folder."""
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "tests.nonseq_child", *args], env=full,
                          capture_output=True, text=True, timeout=timeout, check=False)


def _history(cli: Any, ref: str) -> list[dict[str, Any]]:
    return json.loads(cli("queue", "show", ref, "--json").stdout)["history"]


# --- 1. a second process refuses at once, changing nothing ------------------------------------


def test_second_process_refuses_at_once_and_changes_nothing(cli: Any, isolated: Path) -> None:
    cli("queue", "add", "First topic", "-c", "science")
    cli("queue", "add", "Second topic", "-c", "science")
    before = [_history(cli, "1"), _history(cli, "2")]
    data_dir = load_settings().data_dir
    with lock.workspace_lock(data_dir, "research"):  # this process is "nonseq research 1"
        # A child that waited on the lock would never return while it is held here: child()'s
        # timeout would fail the test. Returning 75 at all is the proof that it refused at once.
        for args in (("research", "2"), ("night",), ("queue", "add", "Third", "-c", "science")):
            done = child(*args)
            assert done.returncode == 75, (args, done.stdout, done.stderr)
            assert done.stderr.count("\n") == 1 and "busy" in done.stderr
            assert "Traceback" not in done.stderr and "`nonseq research`" in done.stderr
        for args in (("queue", "show", "1"), ("articles", "list"), ("paths",), ("night", "status")):
            assert child(*args).returncode == 0, args  # read-only commands keep working
    assert [_history(cli, "1"), _history(cli, "2")] == before
    assert len(json.loads(cli("queue", "list", "--json").stdout)) == 2
    assert not lock.is_locked(data_dir)


def test_lock_lives_in_data_dir_also_with_a_qdrant_server(cli: Any, isolated: Path) -> None:
    (isolated / "config.toml").write_text('[qdrant]\nurl = "http://127.0.0.1:9"\n')
    data_dir = load_settings().data_dir
    with lock.workspace_lock(data_dir, "night"):
        assert (data_dir / "nonseq.lock").is_file()
        assert lock.holder(data_dir)["action"] == "night"
        done = child("queue", "add", "A topic", "-c", "science")
        assert done.returncode == 75 and "`nonseq night`" in done.stderr
    cli("queue", "add", "A topic", "-c", "science")  # free again once released


def test_lock_is_reentrant_in_one_process(ws: Workspace) -> None:
    with ws.lock("night"), ws.lock("write"):
        assert lock.is_locked(ws.data_dir)
    assert not lock.is_locked(ws.data_dir)


# --- 2. a stacked gzip bomb stays small in memory ---------------------------------------------


def _gzip_stream(chunks: Iterator[bytes]) -> Iterator[bytes]:
    """gzip-compress a stream of chunks, never holding more than one chunk."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    for chunk in chunks:
        out = comp.compress(chunk)
        if out:
            yield out
    yield comp.flush()


def stacked_bomb(gib: int = 1) -> bytes:
    """gzip(gzip(gib GiB of spaces: text, so only the size bound stops it)), built streaming (~2 KB)."""
    spaces = b" " * (1 << 20)
    inner = _gzip_stream(spaces for _ in range(gib * 1024))
    return b"".join(_gzip_stream(inner))


def test_stacked_gzip_bomb_stays_under_800_mb(cli: Any, isolated: Path, http_server: Any) -> None:
    body = stacked_bomb()
    assert len(body) < 8192

    def route(handler: Any, _path: str, _query: dict[str, str]) -> None:
        handler.send(200, body, "text/html; charset=utf-8",
                     headers={"Content-Encoding": "gzip, gzip"})

    url = http_server(route) + "/bomb.html"
    (isolated / "config.toml").write_text('[fetch]\nallow_hosts = ["127.0.0.0/8"]\ntimeout = 20\n')
    cli("queue", "add", "Bomb", "-c", "science")
    rss_file = isolated / "rss"
    done = child("research", "1", "--url", url, "--json",
                 env={"NONSEQ_TEST_RSS_FILE": str(rss_file)})
    assert done.returncode == 0, done.stderr
    peak = int(rss_file.read_text())
    assert peak < 800 * 2**20, f"peak RSS {peak / 2**20:.0f} MB; {done.stdout[-2000:]}"
    sources = json.loads(cli("queue", "show", "1", "--json").stdout)["sources"]
    assert [s["outcome"] for s in sources] == ["too_large"]


def test_decoder_handles_chains_members_and_corruption() -> None:
    import gzip

    from nonseq.research.fetch import BodyDecoder, _Stop

    text = b"<html><body>" + b"hello world " * 1000 + b"</body></html>"
    for header, data in (("gzip", gzip.compress(text)), ("gzip, gzip", gzip.compress(gzip.compress(text))),
                         ("deflate", zlib.compress(text)), ("", text), ("identity", text),
                         ("gzip", gzip.compress(text[:500]) + gzip.compress(text[500:]))):
        decoder = BodyDecoder(header, 10**6)
        out = b"".join(p for i in range(0, len(data), 7) for p in decoder.feed(data[i:i + 7]))
        assert out == text, header
    with pytest.raises(_Stop, match="larger than"):
        list(BodyDecoder("gzip", 1000).feed(gzip.compress(text)))
    with pytest.raises(_Stop, match="corrupt"):
        list(BodyDecoder("gzip", 10**6).feed(b"\x1f\x8b\x08\x00garbage-garbage-garbage"))
    with pytest.raises(_Stop, match="unsupported"):
        BodyDecoder("br", 10**6)


# --- 3. --file: a size limit first, real text detection, BOMs ---------------------------------


def test_file_over_the_limit_is_refused_before_it_is_read(cli: Any, isolated: Path) -> None:
    big = isolated / "big.txt"
    with big.open("wb") as fh:
        fh.truncate(50 * 2**20)  # sparse: 50 MB that cost nothing to make
    cli("queue", "add", "Big file", "-c", "science")
    result = cli("research", "1", "--file", str(big), code=2)
    assert "max_file_bytes" in result.stderr and "10,000,000" in result.stderr
    assert result.stderr.count("\n") == 1
    assert json.loads(cli("queue", "show", "1", "--json").stdout)["topic"]["stage"] == "queued"


@pytest.mark.parametrize("name, data, kind", ids=["bytes", "compressed"], argvalues=[
    ("blob.txt", bytes(range(1, 256)) * 200, "binary"),
    ("packed.txt", zlib.compress(os.urandom(20000)).replace(b"\x00", b"\x01"), "binary"),
])
def test_binary_files_without_nul_bytes_are_refused(cli: Any, isolated: Path, name: str, data: bytes,
                                                    kind: str) -> None:
    (isolated / name).write_bytes(data)
    cli("queue", "add", "Binary", "-c", "science")
    result = cli("research", "1", "--file", name, code=2)
    assert kind in result.stderr and "not a text file" in result.stderr


def test_text_detection_and_boms(isolated: Path) -> None:
    text = "Europa's ocean — naïve café\nsecond line\n"
    for encoded in (text.encode("utf-16"), text.encode("utf-16-be").join([b"\xfe\xff", b""]),
                    text.encode("utf-8-sig"), text.encode("utf-32"), text.encode("utf-8")):
        assert decode_text(encoded) == text
    assert decode_text("caf\u00e9 au lait, na\u00efve".encode("cp1252")) == "caf\u00e9 au lait, na\u00efve"
    assert decode_text(b"%PDF-1.7 ...") is None
    path = isolated / "t.txt"
    path.write_bytes(b"x" * 2000)
    with pytest.raises(UsageError, match="over the limit of 1,000 bytes"):
        read_text_file(path, 1000)


def test_utf16_file_with_a_bom_is_read_as_text(isolated: Path) -> None:
    from nonseq.pipeline.ingest import read_local

    body = "Europa, one of Jupiter's moons, hides a salty ocean beneath its ice shell.\n" * 20
    (isolated / "europa.txt").write_bytes(body.encode("utf-16"))
    page = read_local(isolated / "europa.txt", max_bytes=1_000_000)
    assert page.text == body and page.source.outcome == "fetched"


# --- 4. one line, never a traceback ------------------------------------------------------------


@pytest.mark.parametrize("config", ids=["random", "utf16"], argvalues=[
    os.urandom(600), b"\xff\xfe" + "[paths]\ndata_dir = 3\n".encode("utf-16-le")])
def test_bad_config_files_give_one_line(cli: Any, isolated: Path, config: bytes) -> None:
    (isolated / "config.toml").write_bytes(config)
    result = cli("queue", "list", code=2)
    assert result.stderr.startswith("error:") and result.stderr.count("\n") == 1


def test_utf16_config_with_a_bom_is_read(cli: Any, isolated: Path) -> None:
    (isolated / "config.toml").write_bytes("[night]\nmax_topics = 3\n".encode("utf-16"))
    assert "max_topics = 3" in cli("config", "show").stdout


@pytest.mark.parametrize("data_dir", ["/proc/nonseq-data", "a-file"])
def test_unusable_data_dir_gives_one_line(cli: Any, isolated: Path, data_dir: str) -> None:
    (isolated / "a-file").write_text("not a folder")
    (isolated / "config.toml").write_text(f'[paths]\ndata_dir = "{data_dir}"\n')
    for args in (("queue", "list"), ("queue", "add", "T", "-c", "science")):
        result = cli(*args, code=2)
        assert "data_dir" in result.stderr and result.stderr.count("\n") == 1


def test_huge_numbers_and_broken_urls_give_one_line(cli: Any, isolated: Path) -> None:
    huge = "99999999999999999999999"
    assert "out of range" in cli("queue", "add", "T", "-c", "science", "--priority", huge, code=2).stderr
    cli("queue", "add", "T", "-c", "science")
    assert "no topic" in cli("queue", "show", huge, code=1).stderr
    assert "not a valid URL" in cli("research", "1", "--url", "http://[::1", code=2).stderr
    assert json.loads(cli("queue", "show", "1", "--json").stdout)["topic"]["stage"] == "queued"


def test_markup_and_control_characters_in_titles_are_shown_inert(cli: Any, isolated: Path) -> None:
    cli("queue", "add", "Bold [/bold] move [red]x", "-c", "science", "--focus", "ring \x07 \x1b[2J")
    shown = cli("queue", "show", "1").stdout
    assert "[/bold]" in shown and "\x07" not in shown and "\x1b" not in shown


# --- 6. unknown schemas and personas are refused at queue time ---------------------------------


def test_unknown_schema_or_persona_is_refused_when_queued(cli: Any, isolated: Path) -> None:
    assert "nosuch" in cli("queue", "add", "T", "-c", "science", "--schema", "nosuch", code=1).stderr
    assert "nosuch" in cli("queue", "add", "T", "-c", "science", "--persona", "nosuch", code=1).stderr
    assert json.loads(cli("queue", "list", "--json").stdout) == []
    cli("queue", "add", "T", "-c", "science", "--schema", "news")
    cli("queue", "edit", "1", "--schema", "nosuch", code=1)
