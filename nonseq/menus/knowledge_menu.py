"""The Knowledge menu: review, keep, edit and delete facts, promote them, add your own text.

The numbers [3] Inspect & Promote and [8] Extract facts (LLM) are the contract's; every action
calls the nonseq.knowledge function its `nonseq knowledge ...` command calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.panel import Panel

from nonseq.menus.widgets import MenuContext, ask, choose, confirm, pause, pick_from, run_action
from nonseq.ui.console import console
from nonseq.ui.facts import fact_card, facts_table, print_extract_report

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

KNOWLEDGE = [
    ("1", "Review pending facts, one at a time"),
    ("2", "Promote a topic's kept facts"),
    ("3", "Inspect & Promote (your own text or file)"),
    ("4", "Search the knowledge base"),
    ("5", "List facts: keep, edit, delete"),
    ("6", "Stats"),
    ("7", "Export / import facts"),
    ("8", "Extract facts (LLM)"),
]
FACTS = [("k", "Keep facts"), ("e", "Edit a fact"), ("d", "Delete facts"), ("v", "View a fact")]


def run(ctx: MenuContext) -> None:
    """The knowledge menu loop."""
    actions = {"1": review, "2": promote, "3": inspect_and_promote, "4": search, "5": facts,
               "6": stats, "7": transfer, "8": extract}
    while True:
        key = choose("Knowledge", KNOWLEDGE)
        if key is None:
            return
        actions[key](ctx)


def _topics(ws: Workspace) -> list[Any]:
    """Every topic, in queue order."""
    from nonseq import queue

    return queue.list_topics(ws.db)


def pick_topic(ctx: MenuContext, title: str = "Which topic?") -> int | None:
    """Choose a topic from the queue; None on Esc or an empty queue."""
    topics = run_action(ctx, _topics, name="topics", lock=False)
    if not topics:
        if topics is not None:
            console.print("the queue is empty")
        return None
    return pick_from(title, [(t.id, f"#{t.id} {t.title} ({t.stage})") for t in topics])


def _ids(text: str | None) -> list[int]:
    """'1, 2 5' → [1, 2, 5]; words that are not numbers are ignored."""
    return [int(w) for w in (text or "").replace(",", " ").split() if w.isdigit()]


# -- [8] extract -----------------------------------------------------------------------------
def extract(ctx: MenuContext) -> None:
    """Distil a topic's fetched pages into pending facts (`nonseq knowledge extract ID`)."""
    topic_id = pick_topic(ctx, "Extract facts from which topic?")
    if topic_id is None:
        return

    def go(ws: Workspace) -> Any:
        """Extract the topic's facts with a progress bar over its pages."""
        from nonseq.knowledge import extract_facts
        from nonseq.ui.bars import CountBar

        with CountBar("pages", out=console) as bar:
            return extract_facts(ws, topic_id, progress=bar)

    report = run_action(ctx, go, name="knowledge extract")
    if report is not None:
        print_extract_report(report)
    pause()


# -- [1] review --------------------------------------------------------------------------------
def review(ctx: MenuContext) -> None:
    """The one-fact-at-a-time review (`nonseq knowledge review`)."""
    from nonseq.ui import fact_review

    # No lock across the session: it waits for keys, and each decision is one SQLite transaction
    # on pending facts (no Qdrant), so a night run is never blocked by a person reading a fact.
    summary = run_action(ctx, lambda ws: fact_review.review(ws, console=console),
                         name="knowledge review", lock=False)
    if summary is not None:
        console.print(summary.line())
    pause()


# -- [5] list, keep, edit, delete -------------------------------------------------------------
def facts(ctx: MenuContext) -> None:
    """List facts, then keep, edit or delete some (`nonseq knowledge list|keep|edit|delete`)."""
    from nonseq import knowledge

    while True:
        rows = run_action(ctx, lambda ws: [f for f in knowledge.list_facts(ws) if f.status != "deleted"],
                          name="knowledge list", lock=False)
        if rows is None:
            return
        if not rows:
            console.print("no facts yet: extract some with [8]")
            pause()
            return
        console.print(facts_table(rows))
        key = choose("Facts", FACTS)
        if key is None:
            return
        {"k": keep, "d": delete, "e": edit_fact, "v": view_fact}[key](ctx)


def keep(ctx: MenuContext) -> None:
    """Keep facts by id (`nonseq knowledge keep IDS`)."""
    from nonseq.knowledge import keep_facts

    ids = _ids(ask("Keep which fact ids (e.g. 1 2 5)"))
    done = run_action(ctx, lambda ws: keep_facts(ws, ids), name="knowledge keep") if ids else None
    if done is not None:
        console.print(f"kept {done} fact(s)")


def delete(ctx: MenuContext) -> None:
    """Delete facts by id after a confirmation (`nonseq knowledge delete IDS`)."""
    from nonseq.knowledge import delete_facts

    ids = _ids(ask("Delete which fact ids"))
    if ids and confirm(f"Delete fact(s) {', '.join(map(str, ids))}?"):
        done = run_action(ctx, lambda ws: delete_facts(ws, ids), name="knowledge delete")
        if done is not None:
            console.print(f"deleted {done} fact(s)")


def _one_fact(ctx: MenuContext, verb: str) -> Any:
    """Ask for a fact id and load it; None when cancelled or unknown."""
    from nonseq.knowledge import get_fact

    ids = _ids(ask(f"{verb} which fact id"))
    if not ids:
        return None
    return run_action(ctx, lambda ws: get_fact(ws, ids[0]), name="knowledge show", lock=False)


def edit_fact(ctx: MenuContext) -> None:
    """Change a fact's text (`nonseq knowledge edit ID --text ...`)."""
    from nonseq.knowledge import edit_fact as edit

    fact = _one_fact(ctx, "Edit")
    if fact is None:
        return
    text = ask("Text", fact.text)
    if not text or text == fact.text:
        console.print("nothing changed")
        return
    done = run_action(ctx, lambda ws: edit(ws, fact.id, text=text), name="knowledge edit")
    if done is not None:
        console.print(f"fact {done.id} is now {done.status}")


def view_fact(ctx: MenuContext) -> None:
    """One fact with its evidence (`nonseq knowledge show ID`)."""
    fact = _one_fact(ctx, "View")
    if fact is None:
        return
    console.print(fact_card(fact), soft_wrap=True)
    pause()


# -- [2] promote a topic -------------------------------------------------------------------------
def promote(ctx: MenuContext) -> None:
    """Move a topic's kept facts into the knowledge base (`nonseq knowledge promote ID`)."""
    topic_id = pick_topic(ctx, "Promote which topic's kept facts?")
    if topic_id is None:
        return

    def go(ws: Workspace) -> Any:
        """Promote the topic's kept and edited facts."""
        from nonseq.knowledge import promote_topic

        return promote_topic(ws, topic_id)

    report = run_action(ctx, go, name="knowledge promote")
    if report is not None:
        console.print(f"promoted {report.promoted} fact(s) of {report.slug}; {escape(report.note)}")
    pause()


# -- [3] Inspect & Promote -----------------------------------------------------------------------
def _topic_slug(ctx: MenuContext) -> str | None:
    """The slug of a topic chosen from the queue (facts about a topic are retrieved by it)."""
    from nonseq import queue

    topic_id = pick_topic(ctx, "Which topic is this knowledge about?")
    if topic_id is None:
        return None
    topic = run_action(ctx, lambda ws: queue.get_topic(ws.db, topic_id), lock=False)
    return topic.slug if topic else None


def inspect_and_promote(ctx: MenuContext) -> None:
    """Hand-written content: see its chunks, then promote them (`nonseq knowledge add`)."""
    how = choose("Inspect & Promote: where is the text?", [("f", "A file"), ("t", "Type it here")])
    if how is None:
        return
    source: tuple[str, str, str] | None = None
    if how == "f":
        path = ask("File path")
        from nonseq.knowledge import read_source_file

        source = run_action(ctx, lambda ws: read_source_file(ws, path), name="read file", lock=False) if path else None
    else:
        typed = ask("Text")
        source = (typed, "", "") if typed else None
    if not source or not source[0].strip():
        return
    text, title, url = source
    from nonseq import knowledge

    chunks = run_action(ctx, lambda ws: knowledge.preview_text(ws, text), name="knowledge preview", lock=False)
    if not chunks:
        return
    for n, chunk in enumerate(chunks, 1):
        console.print(Panel(escape(chunk), title=f"chunk {n} of {len(chunks)}", title_align="left"))
    if not confirm(f"Promote these {len(chunks)} chunk(s) into the knowledge base?"):
        return
    categories = run_action(ctx, lambda ws: ws.categories, lock=False) or []
    category = pick_from("Category", [(c, c) for c in categories])
    if category is None:
        return
    evergreen = confirm("Evergreen (background for every topic of the category)?")
    slug = None
    if not evergreen:
        slug = _topic_slug(ctx)
        if slug is None:
            return
    added = run_action(ctx, lambda ws: knowledge.add_text(ws, text, category=category, topic_slug=slug,
                                                            evergreen=evergreen, title=title, url=url),
                       name="knowledge add")
    if added is not None:
        console.print(f"promoted {added} chunk(s) into the knowledge base")
    pause()


# -- [4] search, [6] stats, [7] export / import ------------------------------------------------
def search(ctx: MenuContext) -> None:
    """Search the knowledge base (`nonseq knowledge search QUERY`)."""
    from nonseq.knowledge import search_knowledge

    query = ask("Search for")
    if not query:
        return
    hits = run_action(ctx, lambda ws: search_knowledge(ws, query), name="knowledge search")
    if hits is not None and not hits:
        console.print("nothing found")
    for n, hit in enumerate(hits or [], 1):
        where = f"{hit.get('kind', '')} {hit.get('category', '')} {hit.get('topic') or hit.get('url') or ''}"
        console.print(f"{n:>2}. {hit.get('score', 0):.3f}  {escape(where)}", soft_wrap=True)
        console.print(f"    {escape(str(hit.get('text', ''))[:300])}", soft_wrap=True)
    pause()


def stats(ctx: MenuContext) -> None:
    """Facts by status and points per collection (`nonseq knowledge stats`)."""
    from nonseq.knowledge import knowledge_stats
    from nonseq.ui.facts import print_stats

    data = run_action(ctx, knowledge_stats, name="knowledge stats")
    if data is not None:
        print_stats(data)
    pause()


def transfer(ctx: MenuContext) -> None:
    """Export facts to a JSON-lines file or import them (`nonseq knowledge export|import PATH`)."""
    from pathlib import Path

    from nonseq import knowledge

    key = choose("Export / import", [("e", "Export facts to a file"), ("i", "Import facts from a file")])
    if key is None:
        return
    path = ask("File path", "facts.jsonl" if key == "e" else "")
    if not path:
        return
    if key == "e":
        count = run_action(ctx, lambda ws: knowledge.export_facts(ws, Path(path)), name="knowledge export")
        if count is not None:
            console.print(f"exported {count} fact(s) to {escape(path)}")
    else:
        def go(ws: Workspace) -> Any:
            """Import the facts file with a progress bar."""
            from nonseq.ui.bars import CountBar

            with CountBar("importing", out=console) as bar:
                return knowledge.import_facts(ws, Path(path), progress=bar)

        report = run_action(ctx, go, name="knowledge import")
        if report is not None:
            shown = report.to_dict() if hasattr(report, "to_dict") else report
            console.print(f"imported: {escape(str(shown))}", soft_wrap=True)
    pause()
