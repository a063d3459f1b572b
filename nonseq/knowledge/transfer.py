"""Export and import of the knowledge base as JSON lines; import re-embeds with the workspace's models."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq.db import transaction
from nonseq.errors import UsageError
from nonseq.events import Kind, Progress, Step, emit
from nonseq.knowledge import records
from nonseq.knowledge.factfile import check_file, read_facts
from nonseq.knowledge.promote import index_facts
from nonseq.knowledge.records import FactRecord
from nonseq.models import FactStatus

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

#: Fields that belong to one workspace and are rebuilt on import.
LOCAL_FIELDS = ("id", "topic_id", "point_id", "collection")


@dataclass
class ImportReport:
    """What an import did."""

    read: int = 0
    added: int = 0
    skipped: int = 0
    promoted: int = 0
    #: Promoted facts an interrupted import stored without their point, finished by this one.
    resumed: int = 0
    #: Lines handled so far.
    done: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def export_facts(ws: Workspace, path: Path) -> int:
    """Write every fact (all statuses, with evidence and decisions) as JSON lines; returns the count."""
    path = Path(path)
    if path.exists() and not path.is_file():
        raise UsageError(f"{path} is not a regular file; export writes (or replaces) a file: give a file path")
    facts = records.select(ws.db)
    tmp = path.with_name(path.name + ".part")
    try:
        with tmp.open("w", encoding="utf-8") as out:
            for fact in facts:
                data = {k: v for k, v in asdict(fact).items() if k not in LOCAL_FIELDS}
                out.write(json.dumps(data, ensure_ascii=False) + "\n")
        tmp.replace(path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    return len(facts)


def import_facts(ws: Workspace, path: Path, progress: Progress | None = None) -> ImportReport:
    """Add the facts of an export: the whole file checked first, then stored in batches, each fact embedded once.

    Known uids are skipped. A promoted fact is stored promoted with no point yet, then its point is
    written with the same vector and recorded; a rerun after Ctrl-C or a kill finds such facts and
    writes their points from the vectors kept in SQLite, so nothing is duplicated or left without a point.
    """
    path = Path(path)
    check = check_file(path, ws.categories)
    report = ImportReport(read=check.facts)
    emit(progress, Step.IMPORT, Kind.START, f"importing {check.facts} fact(s) from {path.name}", total=check.facts)
    slugs = {r["slug"]: r["id"] for r in ws.db.execute("SELECT id, slug FROM topics")}
    batch: list[FactRecord] = []
    for fact in read_facts(path, ws.categories):
        batch.append(fact)
        if len(batch) >= ws.settings.knowledge.import_batch:
            _import_batch(ws, batch, slugs, report)
            batch = []
            emit(progress, Step.IMPORT, Kind.UPDATE, "facts", done=report.done, total=check.facts)
    if batch:
        _import_batch(ws, batch, slugs, report)
    emit(progress, Step.IMPORT, Kind.UPDATE, "facts", done=report.done, total=check.facts)
    return report


def _import_batch(ws: Workspace, batch: list[FactRecord], slugs: dict[str, int], report: ImportReport) -> None:
    """Store one batch: new facts with their vectors, then the points of its promoted facts."""
    known = records.by_uid(ws.db, [f.uid for f in batch])
    fresh = [f for f in batch if f.uid not in known]
    unfinished = [f for f in known.values() if f.status == FactStatus.PROMOTED and not f.point_id]
    report.skipped += len(batch) - len(fresh) - len(unfinished)
    report.resumed += len(unfinished)
    vectors: dict[int, Any] = {}
    if fresh:
        dense = ws.embedder.embed([f.text for f in fresh])
        with transaction(ws.db):
            for fact, vector in zip(fresh, dense, strict=True):
                fact.topic_id = slugs.get(fact.topic_slug)
                fact.point_id = fact.collection = ""
                vectors[records.insert(ws.db, fact, vector, ws.embedder.name)] = vector
        report.added += len(fresh)
    promoted = [f for f in fresh if f.status == FactStatus.PROMOTED] + unfinished
    if promoted:
        index_facts(ws, promoted, vectors)
        with transaction(ws.db):
            for fact in promoted:
                records.update(ws.db, fact)
        report.promoted += len(promoted)
    report.done += len(batch)
