"""Human review: list, show, keep, edit (checked again), switch kind, delete; riskiest facts first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from nonseq.db import transaction
from nonseq.errors import UsageError
from nonseq.knowledge import records
from nonseq.knowledge.promote import index_facts, invalidate_cache, unindex
from nonseq.knowledge.records import FactRecord
from nonseq.models import FactStatus

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

#: Status moves `keep` makes (a promoted fact is already kept).
_KEEPABLE = (FactStatus.PENDING, FactStatus.DELETED, FactStatus.EDITED)


def list_facts(ws: Workspace, *, status: str | None = None, topic_id: int | None = None) -> list[FactRecord]:
    """Facts with a status (every one not deleted when None), of one topic or all."""
    if status is not None:
        statuses = [records.check_status(status)]
    else:
        statuses = [s for s in records.STATUSES if s != FactStatus.DELETED]
    if topic_id is not None:
        from nonseq import queue

        topic_id = int(queue.get_topic(ws.db, topic_id).id or 0)
    return records.select(ws.db, statuses=statuses, topic_id=topic_id)


def get_fact(ws: Workspace, fact_id: int) -> FactRecord:
    """One fact by id (NotFoundError when there is none)."""
    return records.get(ws.db, fact_id)


def risk(fact: FactRecord) -> tuple[float, int, int]:
    """Sort key, riskiest first: lowest support, then most flags, then oldest."""
    support = fact.support if fact.support is not None else -1.0
    return (support, -len(fact.flags), int(fact.id or 0))


def review_queue(ws: Workspace, topic_id: int | None = None) -> list[FactRecord]:
    """The pending facts (of one topic or all), riskiest first."""
    return sorted(list_facts(ws, status=FactStatus.PENDING, topic_id=topic_id), key=risk)


def reviewer(ws: Workspace) -> str:
    """Who is reviewing: [review] reviewer, or the login name."""
    from nonseq.config import reviewer_name

    return reviewer_name(ws.settings)


def _check_seen(ws: Workspace, fact: FactRecord, seen: Mapping[int, str] | None) -> str:
    """The updated_at the reviewer saw (given, else as read now); refused at once when it is already stale."""
    shown = (seen or {}).get(int(fact.id or 0), fact.updated_at)
    if shown != fact.updated_at:
        records.refuse_changed(ws.db, int(fact.id or 0))
    return shown


def keep_facts(ws: Workspace, ids: Sequence[int], *, seen: Mapping[int, str] | None = None) -> int:
    """Mark facts kept (an edited fact stays edited, a promoted one stays promoted); returns moves.

    `seen`: fact id → its updated_at when shown; a fact changed since is refused (ConflictError).
    """
    facts = records.get_many(ws.db, ids)
    moved = 0
    by = reviewer(ws)
    with transaction(ws.db):
        for fact in facts:
            shown = _check_seen(ws, fact, seen)
            if fact.status not in _KEEPABLE:
                continue
            target = FactStatus.EDITED if fact.original_text else FactStatus.KEPT
            if fact.status == target:
                continue
            records.claim_edit(ws.db, fact, shown, by)
            records.decide(fact, target, by=by)
            records.update(ws.db, fact)
            moved += 1
    return moved


def delete_facts(ws: Workspace, ids: Sequence[int], *, seen: Mapping[int, str] | None = None) -> int:
    """Mark facts deleted (any status; a promoted fact loses its point first); returns moves."""
    facts = records.get_many(ws.db, ids)
    moved = 0
    by = reviewer(ws)
    for fact in facts:
        shown = _check_seen(ws, fact, seen)
        if fact.status == FactStatus.DELETED:
            continue
        if fact.status == FactStatus.PROMOTED:
            unindex(ws, fact)
            invalidate_cache(ws)
            fact.point_id = fact.collection = ""
        with transaction(ws.db):
            records.claim_edit(ws.db, fact, shown, by)
            records.decide(fact, FactStatus.DELETED, by=by)
            records.update(ws.db, fact)
        moved += 1
    return moved


def edit_fact(ws: Workspace, fact_id: int, *, text: str | None = None, kind: str | None = None,
              seen: str | None = None) -> FactRecord:
    """Change a fact's text (support checked again against its quote) and/or its kind.

    A new text makes the fact `edited` (the first text is kept as original_text); a promoted fact
    stays promoted and its point is rewritten at once. `seen` is the fact's updated_at when it was
    shown: an edit to a fact changed since is refused in one line naming who changed it and when.
    """
    fact = records.get(ws.db, fact_id)
    shown = _check_seen(ws, fact, {int(fact_id): seen} if seen else None)
    by = reviewer(ws)
    if text is None and kind is None:
        raise UsageError("nothing to change: give --text and/or --kind")
    if kind is not None:
        fact.kind = records.check_kind(kind)
    vector = None
    if text is not None:
        text = " ".join(text.split())
        if not text:
            raise UsageError("a fact's text cannot be empty")
        if text != fact.text:
            fact.original_text = fact.original_text or fact.text
            fact.text = text
            recheck(ws, fact)
            vector = ws.embedder.embed([text])[0]
            if fact.status != FactStatus.PROMOTED:
                records.decide(fact, FactStatus.EDITED, by=by)
    if fact.status == FactStatus.PROMOTED:
        index_facts(ws, [fact], {int(fact.id or 0): vector} if vector is not None else None)
        fact.decisions.append({"status": "promoted", "at": records.now(), "note": "edited", "by": by})
    with transaction(ws.db):
        records.claim_edit(ws.db, fact, shown, by)
        records.update(ws.db, fact, vector, ws.embedder.name if vector is not None else "")
    return fact


def recheck(ws: Workspace, fact: FactRecord) -> None:
    """Run the support check of the fact's text against its quote, who does what included (hand-written facts
    need none)."""
    if not fact.quote or fact.extractor == records.HUMAN:
        return
    from nonseq.verify.support import checker_for, with_roles

    result = with_roles(fact.text, fact.quote, checker_for(ws).check(fact.text, fact.quote, setting="claim"))
    fact.support = round(float(result.score), 4)
    fact.flags = list(result.flags) + ([] if result.supported else ["unsupported"])
