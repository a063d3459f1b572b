"""The Queue menu: the queue as a table, add a topic, and everything done to one topic.

Each action calls the service its command calls (the command is named in the label's comment).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from nonseq.menus.widgets import MenuContext, ask, ask_int, choose, confirm, pause, pick_from, run_action
from nonseq.ui.console import console
from nonseq.ui.topics import queue_table

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

QUEUE = [("a", "Add a topic"), ("t", "Choose a topic"), ("f", "Refresh")]
TOPIC = [("i", "Inspect the context pack"), ("r", "Research …"), ("g", "Gate"), ("w", "Write"),
         ("s", "Show details and history"), ("e", "Edit"), ("t", "Retry (failed or insufficient)"),
         ("d", "Remove")]
RESEARCH = [("1", "Research (search the web)"), ("2", "Add own sources (URLs, files, folders)"),
            ("3", "Uber Research (find and fill the gaps)")]


def _overview(ws: Workspace) -> list[dict[str, Any]]:
    """The queue rows (SQLite only)."""
    from nonseq import queue

    return queue.overview(ws.db)


def run(ctx: MenuContext) -> None:
    """The queue menu loop."""
    while True:
        rows = run_action(ctx, _overview, name="queue list", lock=False)
        if rows is None:
            return
        console.print(queue_table(rows) if rows else "[dim]the queue is empty: press a to add a topic[/dim]")
        key = choose("Queue", QUEUE)
        if key is None:
            return
        if key == "a":
            add_topic(ctx)
        elif key == "t" and rows:
            topic_id = pick_from("Which topic?", [(r["topic"].id, f"#{r['topic'].id} {r['topic'].title} "
                                                   f"({r['topic'].stage})") for r in rows])
            if topic_id is not None:
                topic_menu(ctx, topic_id)


def _names(ws: Workspace) -> tuple[list[str], list[str], list[str]]:
    """Categories, persona names and schema names for the add form."""
    from nonseq.writing.personas import list_personas
    from nonseq.writing.schemas import list_schemas

    return ws.categories, [p.name for p in list_personas(ws)], [s.name for s in list_schemas(ws)]


def add_topic(ctx: MenuContext) -> None:
    """Ask for a topic's fields and queue it (`nonseq queue add`)."""
    names = run_action(ctx, _names, name="queue add", lock=False)
    if names is None:
        return
    categories, personas, schemas = names
    title = ask("Title")
    if not title:
        return
    category = pick_from("Category", [(c, c) for c in categories])
    if category is None:
        return
    focus = ask("Focus (the article's angle, optional)")
    if focus is None:
        return
    queries: list[str] = []
    while (query := ask(f"Sub-query {len(queries) + 1} (empty: done)")):
        queries.append(query)
    priority = ask_int("Priority (higher runs first; empty: 0)") or 0
    persona = pick_from("Persona", [("", "(none)")] + [(p, p) for p in personas]) if personas else ""
    schema = pick_from("Schema", [(s, s) for s in schemas]) if schemas else "explainer"

    def add(_ws: Workspace) -> Any:
        """Add the topic as entered."""
        return ctx.api.add_topic(title, category=category, focus=focus, queries=queries, persona=persona or None,
                                 schema=schema or None, priority=priority)

    topic = run_action(ctx, add, name="queue add")
    if topic is not None:
        console.print(f"queued [bold]#{topic.id}[/bold] {topic.slug} ({topic.category})")


def topic_menu(ctx: MenuContext, topic_id: int) -> None:
    """What can be done to one topic; Esc goes back to the queue."""
    from nonseq import queue

    actions = {"i": inspect, "r": research_menu, "g": gate, "w": write, "s": show, "e": edit,
               "t": retry, "d": remove}
    while True:
        topic = run_action(ctx, lambda ws: queue.get_topic(ws.db, topic_id), lock=False)
        if topic is None:
            return
        key = choose(f"#{topic.id} {topic.title} — {topic.stage}", TOPIC)
        if key is None:
            return
        if actions[key](ctx, topic_id) == "removed":
            return


def inspect(ctx: MenuContext, topic_id: int) -> None:
    """The context pack (`nonseq inspect ID`)."""
    from nonseq.pipeline.topics import inspect_topic
    from nonseq.ui.pack import print_inspection

    run_action(ctx, lambda ws: print_inspection(inspect_topic(ws, topic_id)), name="inspect")
    pause()


def research_menu(ctx: MenuContext, topic_id: int) -> None:
    """[r] research: [1] search, [2] own sources, [3] Uber Research."""
    key = choose("Research", RESEARCH)
    if key == "1":
        research(ctx, topic_id)
    elif key == "2":
        own_sources(ctx, topic_id)
    elif key == "3":
        uber(ctx, topic_id)


def research(ctx: MenuContext, topic_id: int, urls: list[str] | None = None,
             files: list[str] | None = None) -> None:
    """Search, fetch and index with progress bars (`nonseq research ID [--url] [--file]`)."""
    from nonseq.ui.research import ResearchProgress, print_research

    def go(_ws: Workspace) -> Any:
        """Research the topic with its progress view."""
        with ResearchProgress() as view:
            return ctx.api.research(topic_id, urls=urls or [], files=files or [], progress=view)

    summary = run_action(ctx, go, name="research")
    if summary is not None:
        print_research(summary)
    pause()


def own_sources(ctx: MenuContext, topic_id: int) -> None:
    """Ask for URLs, files and folders (PDF, DOCX, EPUB, HTML, Markdown, text), then index them
    (`nonseq research ID --url U --file F`)."""
    urls: list[str] = []
    files: list[str] = []
    while (entry := ask(f"URL, file or folder {len(urls) + len(files) + 1} (empty: done)")):
        (urls if entry.startswith(("http://", "https://")) else files).append(entry)
    if urls or files:
        research(ctx, topic_id, urls, files)


def uber(ctx: MenuContext, topic_id: int) -> None:
    """Gap analysis, searches and indexing (`nonseq uber ID`)."""

    from nonseq.ui.gate import print_uber
    from nonseq.ui.write import step_lines

    def go(ws: Workspace) -> Any:
        """Run Uber Research on the topic, its steps as lines."""
        from nonseq.pipeline.uber import run_uber

        return run_uber(ws, topic_id, progress=step_lines)

    summary = run_action(ctx, go, name="uber")
    if summary is not None:
        print_uber(summary)
    pause()


def gate(ctx: MenuContext, topic_id: int) -> None:
    """The suitability verdict (`nonseq gate ID`)."""
    from nonseq.ui.gate import print_gate

    def go(_ws: Workspace) -> Any:
        """Gate the topic: the topic after it and the verdict."""
        verdict = ctx.api.gate(topic_id)
        return ctx.api.topic(topic_id).topic, verdict

    result = run_action(ctx, go, name="gate")
    if result is not None:
        topic, verdict = result
        print_gate(topic, verdict)
    pause()


def write(ctx: MenuContext, topic_id: int | str, force: bool = False) -> None:
    """Research if needed, gate, write and ground (`nonseq write ID`); THIN asks what to do."""
    import sys

    from nonseq.ui.thin_prompt import ask_thin_choice
    from nonseq.ui.write import WriteProgress, print_write_result

    def go(_ws: Workspace) -> Any:
        """Write the topic, asking what to do when it is thin."""
        return ctx.api.write(topic_id, decide=ask_thin_choice, progress=WriteProgress(sys.stdout), force=force)

    result = run_action(ctx, go, name="write")
    if result is not None:
        print_write_result(result)
    pause()


def show(ctx: MenuContext, topic_id: int) -> None:
    """A topic's fields, history and sources (`nonseq queue show ID`)."""
    from nonseq.pipeline.topics import show_topic
    from nonseq.ui.topics import print_topic

    run_action(ctx, lambda ws: print_topic(show_topic(ws, topic_id)), name="queue show", lock=False)
    pause()


def edit(ctx: MenuContext, topic_id: int) -> None:
    """Change title, focus, sub-queries or priority (`nonseq queue edit ID ...`)."""
    from nonseq import queue

    topic = run_action(ctx, lambda ws: queue.get_topic(ws.db, topic_id), lock=False)
    if topic is None:
        return
    title = ask("Title", topic.title)
    focus = None if title is None else ask("Focus", topic.focus)
    queries = None if focus is None else ask("Sub-queries (separated by ;)", "; ".join(topic.sub_queries))
    priority = None if queries is None else ask_int("Priority", topic.priority)
    if queries is None or priority is None:
        console.print("nothing changed")
        return
    changes = {"title": title, "focus": focus, "priority": priority,
               "sub_queries": [q.strip() for q in queries.split(";") if q.strip()]}
    changes = {k: v for k, v in changes.items() if v != getattr(topic, k)}
    if not changes:
        console.print("nothing changed")
        return
    from nonseq.pipeline.topics import edit_topic

    done = run_action(ctx, lambda ws: edit_topic(ws, topic_id, **changes), name="queue edit")
    if done is not None:
        console.print(f"updated #{done[0].id} {done[0].slug}")


def retry(ctx: MenuContext, topic_id: int) -> None:
    """Reopen a failed or insufficient topic (`nonseq queue retry ID`)."""
    from nonseq import queue

    topic = run_action(ctx, lambda ws: queue.retry(ws.db, topic_id), name="queue retry")
    if topic is not None:
        console.print(f"#{topic.id} {topic.slug} → {topic.stage}")


def remove(ctx: MenuContext, topic_id: int) -> str | None:
    """Delete a topic and its research chunks after a confirmation (`nonseq queue remove ID`)."""
    from nonseq.pipeline.topics import delete_topic

    if not confirm(f"Remove topic #{topic_id} and its research chunks?"):
        return None
    done = run_action(ctx, lambda ws: delete_topic(ws, topic_id), name="queue remove")
    if done is None:
        return None
    topic, removed = done
    console.print(f"removed #{topic.id} {topic.slug} and {removed} research chunk(s)")
    return "removed"
