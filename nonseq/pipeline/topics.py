"""Topics as a person manages them: add, edit, remove, show and inspect, with every rule checked.

The queue module keeps the SQLite records; this service adds what needs the rest of the
workspace (personas and schemas that must exist, research chunks that follow a topic or leave with
it, whether there is anything to inspect), so a command and a menu action behave the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from nonseq import chunk_records, queue
from nonseq.db import transaction
from nonseq.index.vector_store import knowledge_collection, research_collection
from nonseq.models import ContextPack, Source, Topic
from nonseq.workspace import Workspace

if TYPE_CHECKING:
    from nonseq.writing.plan import WritePlan


@dataclass
class TopicDetails:
    """A topic with its stage history and the sources research recorded."""

    topic: Topic
    history: list[dict[str, Any]]
    sources: list[Source]

    @property
    def last_gate(self) -> dict[str, Any] | None:
        """The figures of the topic's last gate verdict (status, chunks, mean_score, domains, ...), None before one."""
        for entry in reversed(self.history):
            data = entry.get("data")
            if isinstance(data, dict) and data.get("status") in ("OK", "THIN") and "checks" in data:
                return data
        return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"topic": self.topic.to_dict(), "history": self.history,
                "sources": [s.to_dict() for s in self.sources]}


@dataclass
class Inspection:
    """A topic's context pack, the gate's quality setup and the write plan, or why there is nothing to show."""

    topic: Topic
    pack: ContextPack | None = None
    quality: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    plan: WritePlan | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (`inspect --json`)."""
        if self.pack is None:
            return {"topic": self.topic.to_dict(), "research": [], "message": self.message}
        plan = None if self.plan is None else self.plan.to_dict()
        return {**self.pack.to_dict(), "quality": self.quality, "plan": plan}


def check_voice(ws: Workspace, persona: str | None = None, schema: str | None = None) -> None:
    """NotFoundError now (not at write time) when a topic names a persona or schema that does not exist."""
    from nonseq.writing.personas import get_persona
    from nonseq.writing.schemas import load_schema

    if persona:
        get_persona(ws, persona)
    if schema:
        load_schema(ws, schema)


def add_topic(ws: Workspace, title: str, category: str, *, focus: str = "",
              sub_queries: list[str] | None = None, persona: str = "", schema: str = "explainer",
              priority: int = 0, slug: str | None = None) -> Topic:
    """Queue a new topic after checking its persona and schema exist."""
    check_voice(ws, persona, schema)
    return queue.insert_topic(ws.db, title, category, ws.categories, focus=focus,
                           sub_queries=sub_queries or [], persona=persona, schema=schema,
                           priority=priority, slug=slug)


def edit_topic(ws: Workspace, ref: int | str, **changes: Any) -> tuple[Topic, int]:
    """Change a topic's fields; its research follows a new category. Returns it and the chunks moved.

    A new category is copy-then-swap: the research is copied into the new collection first, the
    category switches in SQLite only then, and the old copies go last. A failure or kill at any
    point leaves the topic's research readable where its category says; editing again finishes.
    """
    check_voice(ws, changes.get("persona"), changes.get("schema"))
    edited = queue.check_edit(ws.db, ref, ws.categories, **changes)
    if changes.get("category") is not None:
        _copy_research(ws, edited.slug, research_collection(edited.category), edited.category)
    topic = queue.edit_topic(ws.db, ref, ws.categories, **changes)
    moved = follow_category(ws, topic.id or 0) if changes.get("category") is not None else 0
    return topic, moved


def show_topic(ws: Workspace, ref: int | str) -> TopicDetails:
    """A topic, its stage history and its recorded sources (SQLite only)."""
    topic = queue.get_topic(ws.db, ref)
    return TopicDetails(topic, queue.history(ws.db, topic.id or 0), queue.list_sources(ws.db, topic))


def has_research(ws: Workspace, topic: Topic) -> bool:
    """True when the topic has research chunks, or promoted facts (a wiped topic keeps those)."""
    mine = {"topic_slug": topic.slug}
    return (ws.store.count(research_collection(topic.category), mine) > 0
            or ws.store.count(knowledge_collection(topic.category), mine) > 0)


def inspect_topic(ws: Workspace, ref: int | str) -> Inspection:
    """The context pack a write would use, the gate's setup and the write plan; a message when there is none."""
    from nonseq.pipeline.gate import quality_setup
    from nonseq.retrieval.pipeline import retrieve
    from nonseq.writing.plan import build_plan, plan_settings
    from nonseq.writing.schemas import load_schema

    topic = queue.get_topic(ws.db, ref)
    if not has_research(ws, topic):
        return Inspection(topic, message=f"topic #{topic.id} {topic.slug} has no research chunks yet: "
                                         f"research it first, then run `nonseq inspect {topic.id}` again")
    pack = retrieve(ws, topic)
    plan = build_plan(pack, load_schema(ws, topic.schema), ws.embedder.embed, plan_settings(ws.settings.writing))
    return Inspection(topic, pack, quality_setup(pack, ws.settings.gate), plan=plan)


def delete_topic(ws: Workspace, ref: int | str) -> tuple[Topic, int]:
    """Delete a topic and its research chunks (knowledge stays); returns it and the points removed."""
    topic = queue.get_topic(ws.db, ref)
    collection = research_collection(topic.category)
    removed = ws.store.count(collection, {"topic_slug": topic.slug})
    ws.store.delete(collection, {"topic_slug": topic.slug})
    for stray in _other_research(ws, collection):  # left by an interrupted category change
        removed += ws.store.delete_where(stray, {"topic_slug": topic.slug})
    queue.remove_topic(ws.db, topic.id or 0)
    return topic, removed


def _other_research(ws: Workspace, collection: str) -> list[str]:
    """The research collections other than this one."""
    return [n for n in ws.store.collections() if n.startswith("research_") and n != collection]


def _copy_research(ws: Workspace, slug: str, target: str, category: str) -> int:
    """Copy a topic's research chunks from every other research collection into `target`."""
    return sum(ws.store.copy(name, target, {"topic_slug": slug}, {"category": category})
               for name in _other_research(ws, target))


def follow_category(ws: Workspace, ref: int | str) -> int:
    """Bring a topic's research chunks (and its unpromoted facts) into its current category.

    After the category changed the chunks would stay in the old research_{category}, where a
    later remove never finds them; this copies them (vectors kept) from any other research
    collection, then deletes the old ones, so rerunning it after an interruption finishes the move.
    Returns the chunks moved.
    """
    topic = queue.get_topic(ws.db, ref)
    target = research_collection(topic.category)
    mine = {"topic_slug": topic.slug}
    moved = 0
    for name in _other_research(ws, target):
        count = ws.store.count(name, mine)
        if count and ws.store.count(target, mine) < count:
            ws.store.copy(name, target, mine, {"category": topic.category})
        if count:
            ws.store.delete(name, mine)
            moved += count
    with transaction(ws.db):
        ws.db.execute("UPDATE facts SET category=? WHERE topic_id=?"
                      " AND status!='promoted'", (topic.category, topic.id))
        chunk_records.move_topic(ws.db, topic.id or 0, target, topic.category)
    return moved
