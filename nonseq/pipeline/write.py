"""`write`: move a topic through research, retrieval, the gate (and Uber Research) to a grounded article.

The stages themselves are driven by `pipeline.stages.advance`, the same driver a night run uses;
this module adds what only a person's write asks for: writing a written topic again, a draft again,
and the refusal of a topic whose research was found insufficient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nonseq import queue
from nonseq.errors import StageError
from nonseq.events import Progress, silent
from nonseq.models import Stage
from nonseq.pipeline.stages import Decider, Drive, Pace, WriteResult, advance

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

__all__ = ["Decider", "WriteResult", "write_topic"]


def write_topic(ws: Workspace, ref: int | str, *, decide: Decider | None = None,
                progress: Progress | None = None, force: bool = False,
                trigger: str = "write") -> WriteResult:
    """Take a topic from wherever it is to a written article, or to a recorded reason for none.

    After an article (or draft), its sources are distilled into facts for review when
    `[knowledge] extract` names the trigger ("write" for `nonseq write` and the menus, "night").
    """
    from nonseq.writing.articles import check_writable

    topic = queue.get_topic(ws.db, ref)
    check_writable(ws.articles_dir)  # before any research, gate or generation
    again = topic.stage is Stage.WRITTEN
    if again and not force:
        raise StageError(f"topic {topic.slug!r} is already written (see `nonseq articles list`); "
                         f"`nonseq write {topic.id} --force` writes a new version")
    if again:
        topic = queue.move(ws.db, topic.id, Stage.WRITING, reason="write again (--force)")
    if topic.stage is Stage.DRAFT:  # the last reply failed the quality gate: try again
        topic = queue.move(ws.db, topic.id, Stage.WRITING, reason="write again after a draft")
        again = True  # a new version beside the draft (<slug>-2.md)
    if topic.stage is Stage.INSUFFICIENT:
        raise StageError(f"topic {topic.slug!r} is insufficient_research: reopen it with `nonseq "
                         f"queue retry {topic.id}` (research kept) or add sources with `nonseq "
                         f"research {topic.id} --url/--file`")
    drive = Drive(decide=decide, force=force, trigger=trigger)
    return advance(ws, topic, drive, Pace(progress or silent), again=again)
