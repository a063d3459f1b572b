"""The Python API: docs/python-api.md's examples run as written; the lock, read-only use and lazy import."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nonseq
from nonseq.errors import WorkspaceBusyError
from nonseq.pipeline.demo import unpack_pages

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "python-api.md"


def _env() -> dict[str, str]:
    """This process's environment (the test's, as the fixtures left it), children importing this checkout's nonseq."""
    return {**os.environ, "PYTHONPATH": str(REPO)}


def _examples() -> list[str]:
    """The doc's ```python blocks, in order."""
    return re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.slow
def test_the_docs_examples_run(isolated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every example of docs/python-api.md runs, in order, in one namespace (research, gate, write, read)."""
    _spec, pages = unpack_pages(isolated)
    for page in pages:  # the three pages about Europa's water (three domains: the gate says OK), no more
        if not page.name.startswith(("14cc2a0c", "686bb170", "f344ca5f")):
            page.unlink()
    blocks = _examples()
    assert len(blocks) >= 5
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 - the doc's own examples
    out = capsys.readouterr().out
    assert "unknown category 'astrology'" in out and "open read-only" in out
    topic = namespace["topic"]
    result = namespace["result"]
    assert result.outcome in ("written", "draft") and Path(result.article.path).is_file()  # type: ignore[attr-defined]
    article = namespace["article"]
    assert article.markdown.startswith("# ") and article.meta["slug"] == topic.slug  # type: ignore[attr-defined]
    score = float(re.findall(r"^(0\.\d+|1\.0|0)$", out, flags=re.M)[-1])
    assert 0.5 < score <= 1.0
    with nonseq.open_workspace(".", read_only=True) as ws:
        assert [t.title for t in ws.topics()] == [topic.title, "Europa Clipper"]  # type: ignore[attr-defined]
        assert ws.topic(topic.id).last_gate["status"] == "OK"  # type: ignore[attr-defined]
        assert ws.fact(namespace["fact"].id).extractor == "proposed"  # type: ignore[attr-defined]


def test_the_with_block_holds_the_lock_and_a_second_process_is_refused(isolated: Path) -> None:
    """Inside open_workspace another process gets exit 75 and one line; after it, it goes through."""
    args = [sys.executable, "-m", "nonseq", "queue", "add", "Europa Clipper", "-c", "space"]
    with nonseq.open_workspace(".") as ws:
        busy = subprocess.run(args, capture_output=True, text=True, cwd=isolated, check=False, env=_env())
        assert busy.returncode == 75 and busy.stderr.count("\n") == 1, busy.stderr
        assert "`nonseq api`" in busy.stderr and "busy" in busy.stderr
        assert ws.topics() == []
    done = subprocess.run(args, capture_output=True, text=True, cwd=isolated, check=False, env=_env())
    assert done.returncode == 0, done.stderr
    held = subprocess.Popen([sys.executable, "-c", "import nonseq, sys\n"
                             "with nonseq.open_workspace('.'):\n    print('in', flush=True)\n"
                             "    sys.stdin.readline()\n"],
                            cwd=isolated, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=_env())
    try:
        assert held.stdout is not None and held.stdout.readline() == "in\n"
        with nonseq.open_workspace(".", read_only=True) as ws:  # reading needs no lock
            assert [t.title for t in ws.topics()] == ["Europa Clipper"]
        with pytest.raises(WorkspaceBusyError, match="busy"):
            nonseq.open_workspace(".").__enter__()
    finally:
        held.communicate("\n", timeout=30)
    with nonseq.open_workspace(".") as ws:  # given back when the other program's block ended
        assert ws.add_topic("Europa plumes", category="space").id == 2


def test_read_only_refuses_every_write_in_one_line(isolated: Path) -> None:
    """Each method that changes the workspace raises ReadOnlyError without touching it."""
    with nonseq.open_workspace(".", read_only=True) as ws:
        calls = {"add_topic": lambda: ws.add_topic("Europa", category="space"),
                 "research": lambda: ws.research(1), "gate": lambda: ws.gate(1), "write": lambda: ws.write(1),
                 "night": lambda: ws.night(),
                 "propose_fact": lambda: ws.propose_fact("a b c", "a b c", "https://x.org", category="space")}
        for name, call in calls.items():
            with pytest.raises(nonseq.ReadOnlyError) as caught:
                call()
            assert "\n" not in str(caught.value) and "read-only" in str(caught.value), name
        assert ws.topics() == []
    assert not (isolated / ".nonseq" / "nonseq.lock").exists()


def test_open_workspace_errors_are_the_cli_lines(isolated: Path) -> None:
    """A missing folder, a bad config and a bad stage are one-line NonseqErrors."""
    with pytest.raises(nonseq.NonseqError, match="workspace folder not found"):
        nonseq.open_workspace(isolated / "nowhere").__enter__()
    (isolated / "bad").mkdir()
    (isolated / "bad" / "config.toml").write_text("[gate\n", encoding="utf-8")
    with pytest.raises(nonseq.NonseqError, match="not valid TOML"):
        nonseq.open_workspace(isolated / "bad").__enter__()
    with nonseq.open_workspace(".") as ws, pytest.raises(nonseq.NonseqError, match="unknown stage 'done'"):
        ws.topics(stage="done")


def test_import_nonseq_is_light() -> None:
    """`import nonseq` loads no other nonseq module and none of the heavy libraries."""
    code = ("import sys, nonseq\n"
            "heavy = [m for m in sys.modules if m.split('.')[0] in ('pydantic', 'numpy', 'httpx', 'torch')"
            " or (m.startswith('nonseq.'))]\n"
            "print(heavy)\n"
            "nonseq.open_workspace\n"
            "print('nonseq.api' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=_env()).stdout
    assert out.splitlines() == ["[]", "True"]
