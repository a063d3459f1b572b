"""The vector store measured against SQLite, rebuilt from it, and moved out of qdrant-client's local mode.

SQLite holds what must never be lost: every promoted fact (with its vector) and the text of every
research chunk of an active topic. `missing_points` says what the store lacks; `rebuild_store`
writes it back (knowledge from the stored vectors, research re-embedded, personas from their files).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from itertools import islice
from typing import Any

from nonseq import chunk_records, queue
from nonseq.db import transaction
from nonseq.errors import BackendError, NonseqError, StoreError, UsageError
from nonseq.events import Kind, Progress, Step, emit
from nonseq.index.vector_store import VectorStore, persona_collection
from nonseq.knowledge import records
from nonseq.knowledge.promote import collection_of, fact_point_id, index_facts
from nonseq.knowledge.records import FactRecord
from nonseq.models import Chunk, FactStatus
from nonseq.workspace import Workspace, belongs

#: Points written per batch of a rebuild.
REBUILD_BATCH = 256
#: Points read with their vectors and payloads when a collection is checked (doctor, store rebuild).
SAMPLE_POINTS = 64


@dataclass
class RebuildReport:
    """What a rebuild restored."""

    knowledge: int = 0
    research: int = 0
    personas: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def expected_ids(ws: Workspace) -> dict[str, set[str]]:
    """collection → the point ids SQLite says it must hold (promoted facts, kept research chunks)."""
    wanted: dict[str, set[str]] = defaultdict(set)
    for page in records.iter_facts(ws.db, [FactStatus.PROMOTED]):
        for fact in page:
            wanted[collection_of(fact)].add(fact_point_id(fact))
    for name in chunk_records.collections(ws.db):
        wanted[name] |= chunk_records.point_ids(ws.db, name)
    return dict(wanted)


def present_ids(store: VectorStore, name: str) -> set[str]:
    """The point ids a collection holds (a damaged one raises StoreError)."""
    return store.point_ids(name)


def missing_points(ws: Workspace) -> dict[str, int]:
    """collection → how many of the points SQLite expects it lacks (only collections that lack some)."""
    store = ws.store
    gaps = {name: len(ids - present_ids(store, name)) for name, ids in expected_ids(ws).items()}
    return {name: n for name, n in sorted(gaps.items()) if n}


def rebuild_store(ws: Workspace, progress: Progress | None = None) -> RebuildReport:
    """Write back every point SQLite says must exist; damaged collections are rebuilt whole."""
    store = ws.raw_store
    belongs(ws, store, repairing=True)
    report = RebuildReport()
    wanted = expected_ids(ws)
    total = sum(len(ids) for ids in wanted.values())
    emit(progress, Step.REBUILD, Kind.START, f"checking {total} point(s) against the database", total=total)
    present = {name: _present_or_drop(store, name, report) for name in sorted(set(wanted) | set(store.collections()))}
    todo = {name: wanted[name] - present[name] for name in wanted}
    report.knowledge = _restore_facts(ws, todo, progress, total)
    report.research = _restore_research(ws, todo, progress, total, report.knowledge)
    report.personas = _restore_personas(ws, report)
    return report


def check_readable(store: VectorStore, name: str) -> None:
    """Read a sample of a collection's points with their vectors and payloads (its metadata first); a
    damaged file is a StoreError naming `nonseq store rebuild`."""
    store.metadata(name)
    sample = getattr(store, "read_sample", None)  # the embedded store spreads its sample over the collection
    try:
        if sample is not None:
            sample(name)
        else:
            for _ in islice(store.iter_points(name, vectors=True, page=SAMPLE_POINTS), SAMPLE_POINTS):
                pass
    except BackendError as exc:
        raise StoreError(f"vector collection {name} cannot be read ({exc}); run `nonseq store rebuild` "
                         "to rebuild it from the database") from None


def _present_or_drop(store: VectorStore, name: str, report: RebuildReport) -> set[str]:
    """The ids a collection holds; a collection that fails to read (metadata, a sample of its vectors and
    payloads, its ids) is dropped and rebuilt whole."""
    try:
        if store.exists(name):
            check_readable(store, name)
        return present_ids(store, name)
    except (StoreError, BackendError):
        store.drop(name)
        report.damaged.append(name)
        return set()


def _restore_facts(ws: Workspace, todo: dict[str, set[str]], progress: Progress | None, total: int) -> int:
    """Index the promoted facts whose points are missing, from the vectors kept in SQLite."""
    done = 0
    for page in records.iter_facts(ws.db, [FactStatus.PROMOTED], page=REBUILD_BATCH):
        lost = [f for f in page if fact_point_id(f) in todo.get(collection_of(f), set())]
        if not lost:
            continue
        index_facts(ws, lost)
        _save(ws, lost)
        done += len(lost)
        emit(progress, Step.REBUILD, Kind.UPDATE, "knowledge", done=done, total=total)
    return done


def _save(ws: Workspace, facts: list[FactRecord]) -> None:
    """Record where the facts' points are."""
    with transaction(ws.db):
        for fact in facts:
            records.update(ws.db, fact)


def _restore_research(ws: Workspace, todo: dict[str, set[str]], progress: Progress | None, total: int,
                      done: int) -> int:
    """Re-embed the kept research chunks whose points are missing."""
    restored = 0
    for name in chunk_records.collections(ws.db):
        lost = todo.get(name, set())
        if not lost:
            continue
        ws.indexer.ensure(name)
        batch: list[Chunk] = []
        for pid, chunk in chunk_records.chunks_of(ws.db, name):
            if pid in lost:
                batch.append(chunk)
            if len(batch) >= REBUILD_BATCH:
                restored += ws.indexer.index(name, batch)
                batch = []
                emit(progress, Step.REBUILD, Kind.UPDATE, name, done=done + restored, total=total)
        if batch:
            restored += ws.indexer.index(name, batch)
    return restored


def _restore_personas(ws: Workspace, report: RebuildReport) -> list[str]:
    """Load again, from their files, the personas topics use whose collections are missing or were damaged."""
    from nonseq.writing.personas import load_persona

    names = sorted({t.persona for t in queue.list_topics(ws.db) if t.persona})
    loaded = []
    for name in names:
        collection = persona_collection(name)
        if collection in report.damaged or not ws.store.exists(collection):
            try:
                load_persona(ws, name)
            except NonseqError:  # the persona's file is gone or broken: nothing to load
                continue
            loaded.append(name)
    return loaded


@dataclass
class MigrationReport:
    """The move out of qdrant-client's local mode: points per collection, and where the old files are."""

    points: dict[str, int]
    backup: str
    pruned: bool = False

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def migrate_store(ws: Workspace, progress: Progress | None = None, *, prune: bool = False) -> MigrationReport:
    """Move an old local-mode store into qdrant-edge now (it also happens on first use); prune drops the backup."""
    from nonseq.index import local_mode

    if ws.settings.qdrant.url:
        raise UsageError("[qdrant] url is set: a server needs no migration (only an embedded store does)")
    ws.open_store(progress)
    root = ws.qdrant_path
    backup = root / local_mode.BACKUP_DIR
    report = MigrationReport(local_mode.migrated(root), str(backup) if backup.exists() else "")
    if prune:
        report.pruned = local_mode.prune_backup(root)
        report.backup = ""
    return report
