"""Near-duplicate facts: merged into a live fact as a corroborating source, dropped after a deleted one."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

import numpy as np

from nonseq.knowledge import records
from nonseq.knowledge.records import FactRecord
from nonseq.models import FactStatus

MERGED, DROPPED, NEW = "merged", "dropped", "new"


@dataclass
class Match:
    """The closest earlier fact and its cosine."""

    fact_id: int
    status: str
    cosine: float


class FactIndex:
    """The dense vectors of a category's facts, to find near-duplicates of new ones."""

    def __init__(self, conn: sqlite3.Connection, category: str, model: str, threshold: float) -> None:
        self.threshold = threshold
        self.model = model
        self.ids, self.statuses, self.matrix = records.vectors(conn, category, model)

    def nearest(self, vector: np.ndarray) -> Match | None:
        """The most similar fact at or above the threshold (None when there is none)."""
        if self.matrix is None or not self.ids:
            return None
        sims = self.matrix @ np.asarray(vector, dtype=np.float32)
        best = int(np.argmax(sims))
        if float(sims[best]) < self.threshold:
            return None
        return Match(self.ids[best], self.statuses[best], float(sims[best]))

    def add(self, fact_id: int, status: str, vector: np.ndarray) -> None:
        """Make a newly stored fact visible to the next lookups."""
        row = np.asarray(vector, dtype=np.float32)[None, :]
        self.matrix = row if self.matrix is None else np.vstack([self.matrix, row])
        self.ids.append(fact_id)
        self.statuses.append(status)


def corroboration(fact: FactRecord) -> dict[str, Any]:
    """The corroborating-source entry a merged duplicate leaves on the fact it joins."""
    return {"url": fact.url, "title": fact.title, "domain": fact.domain, "quote": fact.quote, "pages": fact.pages,
            "published": fact.published, "fetched_at": fact.fetched_at, "support": fact.support,
            "extractor": fact.extractor, "text": fact.text}


def resolve(conn: sqlite3.Connection, index: FactIndex, fact: FactRecord,
            vector: np.ndarray) -> str:
    """Store a new fact, merge it into its near-duplicate, or drop it; returns new/merged/dropped.

    Runs inside the caller's transaction.
    """
    match = index.nearest(vector)
    if match is None:
        records.insert(conn, fact, vector, model=index.model)
        index.add(int(fact.id or 0), fact.status, vector)
        return NEW
    if match.status == FactStatus.DELETED:
        return DROPPED
    target = records.get(conn, match.fact_id)
    known = {target.url, *(c.get("url") for c in target.corroborations)}
    if fact.url in known:
        return DROPPED
    target.corroborations.append(corroboration(fact))
    records.update(conn, target)
    return MERGED

