"""`nonseq knowledge ...`: extract, review, promote and keep the knowledge base (thin layer)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from nonseq.commands._common import console, err_console, locked_workspace, print_json, workspace
from nonseq.errors import UsageError

app = typer.Typer(help="Facts distilled from sources: review them, promote them, reuse them.",
                  no_args_is_help=True, rich_markup_mode=None)

TopicArg = Annotated[str, typer.Argument(help="Topic id or slug")]
IdsArg = Annotated[list[int], typer.Argument(help="Fact ids")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON")]


def _short(text: str, width: int = 60) -> str:
    """One line of at most width characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _support(value: float | None) -> str:
    """A support score for a table."""
    return "-" if value is None else f"{value:.2f}"


@app.command("extract")
def extract(ctx: typer.Context, topic_id: TopicArg, as_json: JsonOpt = False) -> None:
    """Distil the topic's fetched pages into facts waiting for review (resumes where it stopped)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from nonseq.knowledge import extract_facts

    ws = locked_workspace(ctx, "knowledge extract")
    if as_json:
        print_json(extract_facts(ws, topic_id).to_dict())
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  console=err_console, transient=True) as bar:
        task = bar.add_task("extracting", total=None)

        def progress(url: str, done: int, total: int) -> None:
            """Advance the bar to the page being read."""
            bar.update(task, completed=done, total=total, description=_short(url, 40))

        report = extract_facts(ws, topic_id, progress=progress)
    for note in report.notes:
        console.print(f"[yellow]note[/yellow]: {escape(note)}")
    console.print(f"{report.new} new fact(s) from {report.pages} page(s) "
                  f"({report.llm} by the LLM, {report.extractive} extractive); "
                  f"{report.merged} merged as corroboration, {report.dropped} dropped, "
                  f"{report.skipped} page(s) done before, {report.empty} yielded nothing")
    if report.new:
        console.print(f"review them: nonseq knowledge review {report.topic_id}")


@app.command("review")
def review(ctx: typer.Context,
           topic_id: Annotated[str | None, typer.Argument(help="Topic id or slug (all when left out)")] = None,
           ) -> None:
    """Review pending facts one at a time: keep, edit, switch kind, delete, skip or quit."""
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("knowledge review needs a terminal; script it with "
                         "`nonseq knowledge keep|edit|delete ID...`")
    from nonseq.menus.fact_review import review_facts

    ws = locked_workspace(ctx, "knowledge review")
    summary = review_facts(ws, topic_id)
    console.print(summary.line())


@app.command("list")
def list_cmd(
    ctx: typer.Context,
    status: Annotated[str | None, typer.Option(
        "--status", "-s", help="pending, kept, edited, deleted or promoted")] = None,
    topic: Annotated[str | None, typer.Option("--topic", "-t", help="Topic id or slug")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List facts (every one not deleted, unless --status says otherwise)."""
    from nonseq.knowledge import list_facts

    facts = list_facts(workspace(ctx), status=status, topic_id=topic)  # type: ignore[arg-type]
    if as_json:
        print_json([f.to_dict() for f in facts])
        return
    if not facts:
        console.print("no facts: run `nonseq knowledge extract TOPIC_ID` after research")
        return
    table = Table(box=None, pad_edge=False)
    for col in ("id", "status", "kind", "sup", "src", "text"):
        table.add_column(col, overflow="ellipsis", no_wrap=col == "text")
    for f in facts:
        table.add_row(str(f.id), f.status, f.kind, _support(f.support), str(f.sources),
                      escape(_short(f.text, 48)))
    console.print(table)


def _show(fact: Any) -> None:
    """A fact with its evidence, for people."""
    console.print(f"[bold]#{fact.id}[/bold] {fact.status} · {fact.kind} · {fact.category}"
                  f"{' · ' + fact.topic_slug if fact.topic_slug else ''}")
    console.print(escape(fact.text))
    if fact.original_text:
        console.print(f"[dim]was:[/dim] {escape(fact.original_text)}")
    if fact.quote and fact.quote != fact.text:
        console.print(f"[dim]quote:[/dim] “{escape(fact.quote)}”")
    console.print(f"[dim]source:[/dim] {escape(fact.title or '-')} {escape(fact.url)}"
                  f" {fact.published[:10]}")
    console.print(f"[dim]support:[/dim] {_support(fact.support)} {' '.join(fact.flags)}"
                  f" · extractor {fact.extractor} · {fact.sources} source(s)")
    for c in fact.corroborations:
        console.print(f"  [dim]also:[/dim] {escape(c.get('url', ''))} “{escape(_short(c.get('quote', ''), 70))}”")


@app.command("show")
def show(ctx: typer.Context, fact_id: Annotated[int, typer.Argument(help="Fact id")],
         as_json: JsonOpt = False) -> None:
    """Show one fact with its quote, source, support, decisions and corroborating sources."""
    from nonseq.knowledge import get_fact

    fact = get_fact(workspace(ctx), fact_id)
    if as_json:
        print_json(fact.to_dict())
        return
    _show(fact)


@app.command("keep")
def keep(ctx: typer.Context, ids: IdsArg) -> None:
    """Keep facts for promotion."""
    from nonseq.knowledge import keep_facts

    n = keep_facts(locked_workspace(ctx, "knowledge keep"), ids)
    console.print(f"kept {n} fact(s)")


@app.command("delete")
def delete(ctx: typer.Context, ids: IdsArg) -> None:
    """Delete facts (a promoted fact's point is removed too)."""
    from nonseq.knowledge import delete_facts

    n = delete_facts(locked_workspace(ctx, "knowledge delete"), ids)
    console.print(f"deleted {n} fact(s)")


@app.command("edit")
def edit(
    ctx: typer.Context,
    fact_id: Annotated[int, typer.Argument(help="Fact id")],
    text: Annotated[str | None, typer.Option("--text", help="The new text (checked again)")] = None,
    kind: Annotated[str | None, typer.Option("--kind", help="topic or evergreen")] = None,
) -> None:
    """Change a fact's text and/or kind (the new text gets the support check again)."""
    from nonseq.knowledge import edit_fact

    fact = edit_fact(locked_workspace(ctx, "knowledge edit"), fact_id, text=text, kind=kind)
    console.print(f"#{fact.id} {fact.status} · {fact.kind} · support {_support(fact.support)}"
                  f" {' '.join(fact.flags)}")


@app.command("promote")
def promote(
    ctx: typer.Context, topic_id: TopicArg,
    keep_research: Annotated[bool, typer.Option("--keep-research", help="Do not wipe the research chunks")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Promote the topic's kept facts into the knowledge base, then wipe its research chunks."""
    from nonseq.knowledge import promote_topic

    report = promote_topic(locked_workspace(ctx, "knowledge promote"), topic_id,
                           keep_research=keep_research)
    if as_json:
        print_json(report.to_dict())
        return
    console.print(f"promoted {report.promoted} fact(s) of {report.slug}; {report.note}")


@app.command("add")
def add(
    ctx: typer.Context,
    category: Annotated[str, typer.Option("--category", "-c", help="The knowledge category")],
    file: Annotated[Path | None, typer.Option("--file", "-f", help="A text or Markdown file")] = None,
    text: Annotated[str | None, typer.Option("--text", help="The text itself")] = None,
    topic: Annotated[str | None, typer.Option("--topic", help="Topic slug it belongs to")] = None,
    evergreen: Annotated[bool, typer.Option("--evergreen", help="Background knowledge of the category")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only show the chunks")] = False,
) -> None:
    """Add hand-written knowledge: chunked, shown, and promoted directly."""
    from nonseq.knowledge import add_text, preview_text

    if (file is None) == (text is None):
        raise UsageError("give exactly one of --file F or --text T")
    if bool(topic) == evergreen:
        raise UsageError("give exactly one of --topic SLUG or --evergreen")
    title, url = "", ""
    if file is not None:
        from nonseq.userfiles import read_text_file

        text = read_text_file(file)
        title, url = file.name, file.resolve().as_uri()
    assert text is not None
    ws = workspace(ctx) if dry_run else locked_workspace(ctx, "knowledge add")
    chunks = preview_text(ws, text)
    for n, chunk in enumerate(chunks, 1):
        console.print(f"[dim]{n}.[/dim] {escape(_short(chunk, 74))}")
    if dry_run:
        console.print(f"{len(chunks)} chunk(s); nothing stored (--dry-run)")
        return
    n = add_text(ws, text, category=category, topic_slug=topic, evergreen=evergreen,
                 title=title, url=url)
    where = "knowledge_evergreen" if evergreen else f"knowledge_{category}"
    console.print(f"promoted {n} chunk(s) into {where}")


@app.command("search")
def search(
    ctx: typer.Context, query: Annotated[str, typer.Argument(help="What to look for")],
    category: Annotated[str | None, typer.Option("--category", "-c")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200)] = 10,
    as_json: JsonOpt = False,
) -> None:
    """Search the knowledge base with the writer's hybrid retrieval (dense + BM25)."""
    from nonseq.knowledge import search_knowledge

    hits = search_knowledge(workspace(ctx), query, category=category, limit=limit)
    if as_json:
        print_json(hits)
        return
    if not hits:
        console.print("nothing found in the knowledge base")
    for h in hits:
        head = f"#{h['fact_id']} {h['kind']} {h['category']} {h['score']:.4f} "
        console.print(f"[bold]{head}[/bold]{escape(_short(h['text'], max(20, 79 - len(head))))}")


@app.command("stats")
def stats(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Facts by status, kind, extractor and category, and the stored knowledge points."""
    from nonseq.knowledge import knowledge_stats

    data = knowledge_stats(workspace(ctx))
    if as_json:
        print_json(data)
        return
    console.print(f"facts: {data['facts']} ({data['corroborated']} corroborated)")
    for key in ("by_status", "by_kind", "by_extractor", "by_category", "points"):
        parts = ", ".join(f"{k} {v}" for k, v in sorted(data[key].items())) or "-"
        console.print(f"  {key.replace('by_', '')}: {parts}")


@app.command("export")
def export(ctx: typer.Context, path: Annotated[Path, typer.Argument(help="JSONL file to write")]) -> None:
    """Export every fact, with its evidence and decisions, as JSON lines."""
    from nonseq.knowledge import export_facts

    n = export_facts(workspace(ctx), path)
    console.print(f"exported {n} fact(s) to {path}")


@app.command("import")
def import_cmd(ctx: typer.Context, path: Annotated[Path, typer.Argument(help="JSONL file to read")]) -> None:
    """Import an export (re-embedded with this workspace's models; known uids are skipped)."""
    from nonseq.knowledge import import_facts

    report = import_facts(locked_workspace(ctx, "knowledge import"), path)
    console.print(f"imported {report.added} of {report.read} fact(s) ({report.skipped} already "
                  f"present), {report.promoted} promoted point(s) rebuilt")


def register(root: typer.Typer) -> None:
    """Attach `knowledge` to the root app."""
    root.add_typer(app, name="knowledge")
