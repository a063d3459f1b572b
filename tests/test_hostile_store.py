"""The store tells the truth about its damage (issue #52, points 6 and 7): a collection is created whole or
not at all, a damaged one is named with its fix by every command and by doctor, `store rebuild` rebuilds it
from the database, and a full disk is one line before the engine grows a memory-mapped file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from nonseq.config import load_settings
from nonseq.errors import StoreError
from nonseq.index.vector_store import EVERGREEN
from nonseq.workspace import Workspace

FACT = "A heat pump moves heat instead of making it."


def _one_line(result: Any) -> str:
    """The one error line of a failed command (warnings may come first, never a traceback)."""
    lines = [x for x in result.stderr.strip().splitlines() if not x.startswith("warning:")]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    return lines[0]


def _collection() -> Path:
    """The evergreen knowledge collection's folder."""
    return load_settings().data_dir / "qdrant" / "edge" / EVERGREEN


def _segment() -> Path:
    """The (only) segment folder of the evergreen collection."""
    return next((_collection() / "segments").iterdir())


def test_a_collection_is_created_whole_or_not_at_all(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import nonseq.index.edge as edge

    def killed(path: Path, data: dict[str, Any]) -> None:
        """A kill just before nonseq.json is written."""
        raise KeyboardInterrupt

    with Workspace(load_settings()) as ws:
        store = ws.raw_store
        with monkeypatch.context() as patch:
            patch.setattr(edge, "write_json", killed)
            with pytest.raises(KeyboardInterrupt):
                store.create(EVERGREEN, 384, False, {"model": "m", "dim": 384, "trigger": False})
        assert not store.exists(EVERGREEN) and store.collections() == []
        store.create(EVERGREEN, 384, False, {"model": "m", "dim": 384, "trigger": False})
        assert store.metadata(EVERGREEN) == {"model": "m", "dim": 384, "trigger": False}
    leftovers = [p.name for p in _collection().parent.iterdir() if p.name.startswith(".")]
    assert leftovers == []


def _truncate_vectors() -> None:
    """A dense-vector file cut short."""
    os.truncate(_segment() / "vector_storage-dense" / "vectors" / "chunk_0.mmap", 100)


def _garble_payloads() -> None:
    """Garbage over the first payload page."""
    with (_segment() / "payload_storage" / "page_0.dat").open("r+b") as fh:
        fh.write(os.urandom(4096))


def _drop_metadata() -> None:
    """A collection whose nonseq.json was never written (an older version killed mid-create)."""
    (_collection() / "nonseq.json").unlink()


DAMAGE = {"vectors truncated": _truncate_vectors, "payload page garbled": _garble_payloads,
          "metadata missing": _drop_metadata}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damage_is_named_by_commands_and_doctor_and_rebuilt(cli: Any, isolated: Path, damage: str) -> None:
    cli("knowledge", "add", "--category", "science", "--evergreen", "--text", FACT)
    DAMAGE[damage]()
    line = _one_line(cli("knowledge", "search", "heat pump", code=None))
    assert EVERGREEN in line and "nonseq store rebuild" in line
    doctor = cli("doctor", code=1).stdout
    qdrant = next(x for x in doctor.splitlines() if "qdrant" in x)
    assert qdrant.startswith("FAIL") and EVERGREEN in qdrant and "nonseq store rebuild" in qdrant
    report = json.loads(cli("store", "rebuild", "--json").stdout)
    assert report["damaged"] == [EVERGREEN] and report["knowledge"] == 1
    found = json.loads(cli("knowledge", "search", "heat pump", "--json").stdout)
    assert found[0]["text"] == FACT
    assert next(x for x in cli("doctor", code=None).stdout.splitlines() if "qdrant" in x).startswith("ok")


def test_a_full_disk_is_one_line_before_the_store_grows(cli: Any, isolated: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import nonseq.index.edge as edge

    cli("knowledge", "add", "--category", "science", "--evergreen", "--text", FACT)
    with monkeypatch.context() as patch:
        patch.setattr(edge, "free_bytes", lambda folder: 10 * 2**20)  # the probe says 10 MB are left
        line = _one_line(cli("knowledge", "add", "--category", "science", "--evergreen", "--text",
                             "Ground-source heat pumps draw heat from the soil.", code=None))
        assert "(nearly) full: 10 MB free" in line and "nothing was written" in line
    from nonseq.pipeline.rebuild import missing_points

    with Workspace(load_settings()) as ws:  # space again: the new text is kept in SQLite, the store is whole
        assert missing_points(ws) == {} and ws.store.count(EVERGREEN) == 1
        statuses = [r[0] for r in ws.db.execute("SELECT status FROM facts ORDER BY id")]
        assert statuses == ["promoted", "kept"]
    cli("knowledge", "add", "--category", "science", "--evergreen", "--text", "Heat pumps run on electricity.")
    with Workspace(load_settings()) as ws:
        assert ws.store.count(EVERGREEN) == 2


def test_the_free_space_check_counts_the_batch(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import nonseq.index.edge as edge

    monkeypatch.setattr(edge, "free_bytes", lambda folder: edge.MIN_FREE_BYTES + 1000)
    edge.ensure_free_space(isolated, 999)
    with pytest.raises(StoreError, match="nothing was written"):
        edge.ensure_free_space(isolated, 1001)
