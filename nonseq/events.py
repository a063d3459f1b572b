"""Progress events: the one shape in which every long service reports what it is doing.

A service takes `progress: Progress | None` and calls it with an `Event`: which step (an enum, never
display text), what kind of news it is, and the details. Views render events; the night-run log
records the START of each step and its end. Rewording a message never changes what is logged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Step(StrEnum):
    """The steps services report (their values are what the night-run log records)."""

    RESEARCH = "research"    # a whole research run
    SEARCH = "search"        # research: looking for URLs
    PAGE = "page"            # research: one page fetched, extracted and queued
    INDEX = "index"          # research: chunks written
    GATE = "gate"
    UBER = "uber"
    GENERATE = "generate"    # writing the article
    GROUND = "ground"        # checking it against its sources
    EXTRACT = "extract"      # distilling facts
    PROMOTE = "promote"
    IMPORT = "import"
    REEMBED = "reembed"
    REBUILD = "rebuild"      # the vector store rebuilt from SQLite
    MIGRATE = "migrate"      # an old local-mode store moved into qdrant-edge
    TOPIC = "topic"          # a night run: one topic finished (data: its entry)


class Kind(StrEnum):
    """What an event says about its step."""

    START = "start"    # the step begins (detail: what it does)
    UPDATE = "update"  # progress within the step (done/total, data: a snapshot)
    NOTE = "note"      # a line for people
    TEXT = "text"      # generated text, piece by piece (detail: the piece)
    DONE = "done"      # the step (or one unit of it) finished (data: its result)


@dataclass(frozen=True)
class Event:
    """One progress report."""

    step: Step
    kind: Kind = Kind.UPDATE
    detail: str = ""
    done: int | None = None
    total: int | None = None
    data: Any = None


#: A progress callback.
Progress = Callable[[Event], None]


def silent(_event: Event) -> None:
    """A progress callback that ignores everything."""


def emit(progress: Progress | None, step: Step, kind: Kind = Kind.UPDATE, detail: str = "", *,
         done: int | None = None, total: int | None = None, data: Any = None) -> None:
    """Send an event to progress when there is a callback."""
    if progress is not None:
        progress(Event(step, kind, detail, done, total, data))
