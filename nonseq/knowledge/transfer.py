"""Export and import of the knowledge base as JSON lines; import re-embeds with the workspace's models."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq.db import transaction
from nonseq.errors import UsageError
from nonseq.knowledge import records
from nonseq.knowledge.promote import index_facts
from nonseq.knowledge.records import FactRecord
from nonseq.models import FactStatus

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

#: Fields that belong to one workspace and are rebuilt on import.
LOCAL_FIELDS = ("id", "topic_id", "point_id", "collection")
_FIELDS = {f.name for f in fields(FactRecord)}


@dataclass
class ImportReport:
    """What an import did."""

    read: int = 0
    added: int = 0
    skipped: int = 0
    promoted: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def export_facts(ws: Workspace, path: Path) -> int:
    """Write every fact (all statuses, with evidence and decisions) as JSON lines; returns the count."""
    facts = records.select(ws.db)
    path = Path(path)
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


def _parse(path: Path) -> list[FactRecord]:
    """The records of an export file; UsageError naming the first bad line."""
    from nonseq.text.files import read_text_file

    lines = read_text_file(path, 2_000_000_000, what="a fact export").splitlines()
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or not data.get("uid") or not data.get("text"):
                raise ValueError("a fact needs uid and text")
            fact = FactRecord(**{k: v for k, v in data.items()
                                 if k in _FIELDS and k not in LOCAL_FIELDS})
            records.check_kind(fact.kind)
            records.check_status(fact.status)
        except (ValueError, TypeError, UsageError) as exc:
            raise UsageError(f"{path}:{n}: not a fact export line ({exc})") from None
        out.append(fact)
    return out


def import_facts(ws: Workspace, path: Path) -> ImportReport:
    """Add the facts of an export (uids already present are skipped); promoted ones are re-embedded."""
    facts = _parse(Path(path))
    report = ImportReport(read=len(facts))
    known = records.uids(ws.db)
    fresh = [f for f in facts if f.uid not in known]
    report.skipped = len(facts) - len(fresh)
    if not fresh:
        return report
    slugs = {r["slug"]: r["id"] for r in ws.db.execute("SELECT id, slug FROM topics")}
    vectors = ws.embedder.embed([f.text for f in fresh])
    promoted = [f for f in fresh if f.status == FactStatus.PROMOTED]
    for fact in promoted:  # stored as kept until the point exists
        fact.status = FactStatus.KEPT
    with transaction(ws.db):
        for fact, vector in zip(fresh, vectors, strict=True):
            fact.topic_id = slugs.get(fact.topic_slug)
            records.insert(ws.db, fact, vector, ws.embedder.name)
    report.added = len(fresh)
    if promoted:
        index_facts(ws, promoted)
        with transaction(ws.db):
            for fact in promoted:
                fact.status = FactStatus.PROMOTED
                records.update(ws.db, fact)
    report.promoted = len(promoted)
    return report
