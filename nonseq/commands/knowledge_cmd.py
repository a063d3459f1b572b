"""`nonseq knowledge ...`: extract, review, promote and keep the knowledge base (thin layer)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nonseq.commands._common import locked_workspace, workspace
from nonseq.errors import UsageError
from nonseq.ui import console as out
from nonseq.ui.console import print_json, safe, short

app = typer.Typer(help="Facts distilled from sources: review them, promote them, reuse them.",
                  no_args_is_help=True, rich_markup_mode=None)

TopicArg = Annotated[str, typer.Argument(help="Topic id or slug")]
IdsArg = Annotated[list[int], typer.Argument(help="Fact ids")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON")]


@app.command("extract")
def extract(ctx: typer.Context, topic_id: TopicArg, as_json: JsonOpt = False) -> None:
    """Distil the topic's fetched pages into facts waiting for review (resumes where it stopped)."""
    from nonseq.knowledge import extract_facts
    from nonseq.ui.bars import CountBar
    from nonseq.ui.facts import print_extract_report

    ws = locked_workspace(ctx, "knowledge extract")
    if as_json:
        print_json(extract_facts(ws, topic_id).to_dict())
        return
    with CountBar("extracting") as bar:
        report = extract_facts(ws, topic_id, progress=bar)
    print_extract_report(report)


@app.command("review")
def review(ctx: typer.Context,
           topic_id: Annotated[str | None, typer.Argument(help="Topic id or slug (all when left out)")] = None,
           ) -> None:
    """Review pending facts one at a time: keep, edit, switch kind, delete, skip or quit."""
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("knowledge review needs a terminal; script it with "
                         "`nonseq knowledge keep|edit|delete ID...`")
    from nonseq.ui.fact_review import review_facts

    ws = locked_workspace(ctx, "knowledge review")
    summary = review_facts(ws, topic_id)
    out.console.print(summary.line())


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
        out.console.print("no facts: run `nonseq knowledge extract TOPIC_ID` after research")
        return
    from nonseq.ui.facts import facts_table

    out.console.print(facts_table(facts))


@app.command("show")
def show(ctx: typer.Context, fact_id: Annotated[int, typer.Argument(help="Fact id")],
         as_json: JsonOpt = False) -> None:
    """Show one fact with its quote, source, support, decisions and corroborating sources."""
    from nonseq.knowledge import get_fact
    from nonseq.ui.facts import fact_card

    fact = get_fact(workspace(ctx), fact_id)
    if as_json:
        print_json(fact.to_dict())
        return
    out.console.print(fact_card(fact))


@app.command("keep")
def keep(ctx: typer.Context, ids: IdsArg) -> None:
    """Keep facts for promotion."""
    from nonseq.knowledge import keep_facts

    n = keep_facts(locked_workspace(ctx, "knowledge keep"), ids)
    out.console.print(f"kept {n} fact(s)")


@app.command("delete")
def delete(ctx: typer.Context, ids: IdsArg) -> None:
    """Delete facts (a promoted fact's point is removed too)."""
    from nonseq.knowledge import delete_facts

    n = delete_facts(locked_workspace(ctx, "knowledge delete"), ids)
    out.console.print(f"deleted {n} fact(s)")


@app.command("edit")
def edit(
    ctx: typer.Context,
    fact_id: Annotated[int, typer.Argument(help="Fact id")],
    text: Annotated[str | None, typer.Option("--text", help="The new text (checked again)")] = None,
    kind: Annotated[str | None, typer.Option("--kind", help="topic or evergreen")] = None,
    seen: Annotated[str | None, typer.Option(
        "--seen", help="The fact's updated_at as you saw it (`knowledge show --json`): refused if it "
        "changed since")] = None,
) -> None:
    """Change a fact's text and/or kind (the new text gets the support check again)."""
    from nonseq.knowledge import edit_fact
    from nonseq.ui.facts import support_text

    fact = edit_fact(locked_workspace(ctx, "knowledge edit"), fact_id, text=text, kind=kind, seen=seen)
    out.console.print(f"#{fact.id} {fact.status} · {fact.kind} · support {support_text(fact.support)}"
                  f" {safe(' '.join(fact.flags))}")


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
    out.console.print(f"promoted {report.promoted} fact(s) of {report.slug}; {safe(report.note)}")


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
    from nonseq.knowledge import add_text, preview_text, read_source_file

    if (file is None) == (text is None):
        raise UsageError("give exactly one of --file F or --text T")
    if bool(topic) == evergreen:
        raise UsageError("give exactly one of --topic SLUG or --evergreen")
    ws = workspace(ctx) if dry_run else locked_workspace(ctx, "knowledge add")
    title, url = "", ""
    if file is not None:
        text, title, url = read_source_file(ws, file)
    assert text is not None
    chunks = preview_text(ws, text)
    for n, chunk in enumerate(chunks, 1):
        out.console.print(f"[dim]{n}.[/dim] {safe(short(chunk, 74))}")
    if dry_run:
        out.console.print(f"{len(chunks)} chunk(s); nothing stored (--dry-run)")
        return
    n = add_text(ws, text, category=category, topic_slug=topic, evergreen=evergreen,
                 title=title, url=url)
    where = "knowledge_evergreen" if evergreen else f"knowledge_{category}"
    out.console.print(f"promoted {n} chunk(s) into {where}")


@app.command("search")
def search(
    ctx: typer.Context, query: Annotated[str, typer.Argument(help="What to look for")],
    category: Annotated[str | None, typer.Option("--category", "-c")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=200)] = 10,
    as_json: JsonOpt = False,
) -> None:
    """Search the knowledge base with the writer's hybrid retrieval (dense + BM25)."""
    from nonseq.knowledge import search_knowledge
    from nonseq.ui.facts import print_hits

    hits = search_knowledge(workspace(ctx), query, category=category, limit=limit)
    if as_json:
        print_json(hits)
        return
    print_hits(hits)


@app.command("stats")
def stats(ctx: typer.Context, as_json: JsonOpt = False) -> None:
    """Facts by status, kind, extractor and category, and the stored knowledge points."""
    from nonseq.knowledge import knowledge_stats
    from nonseq.ui.facts import print_stats

    data = knowledge_stats(workspace(ctx))
    if as_json:
        print_json(data)
        return
    print_stats(data)


@app.command("export")
def export(ctx: typer.Context, path: Annotated[Path, typer.Argument(help="JSONL file to write")]) -> None:
    """Export every fact, with its evidence and decisions, as JSON lines."""
    from nonseq.knowledge import export_facts

    n = export_facts(workspace(ctx), path)
    out.console.print(f"exported {n} fact(s) to {path}")


@app.command("import")
def import_cmd(ctx: typer.Context, path: Annotated[Path, typer.Argument(help="JSONL file to read")],
               as_json: JsonOpt = False) -> None:
    """Import an export: every line checked first, then embedded once and stored (known uids are skipped).

    Safe to stop: run it again to finish (nothing is duplicated).
    """
    from nonseq.knowledge import import_facts
    from nonseq.ui.bars import CountBar

    ws = locked_workspace(ctx, "knowledge import")
    with CountBar("importing") as bar:
        report = import_facts(ws, path, progress=bar)
    if as_json:
        print_json(report.to_dict())
        return
    resumed = f", {report.resumed} unfinished point(s) written" if report.resumed else ""
    out.console.print(f"imported {report.added} of {report.read} fact(s) ({report.skipped} already "
                      f"present), {report.promoted} promoted point(s) rebuilt{resumed}")


def register(root: typer.Typer) -> None:
    """Attach `knowledge` to the root app."""
    root.add_typer(app, name="knowledge")
