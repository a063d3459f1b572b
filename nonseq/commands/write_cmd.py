"""`nonseq write TOPIC_ID` and `nonseq demo`: the main job, from queue to grounded article."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from nonseq.commands._common import console, err_console, locked_workspace, print_json


def _progress(stream_to: Any, quiet: bool):  # noqa: ANN202 - a writer.Progress callback
    """A progress callback: stage lines on stderr, generated text streamed as it comes."""

    def report(event: str, detail: str) -> None:
        """Print one progress event."""
        if event == "token":
            if not quiet:
                stream_to.write(detail)
                stream_to.flush()
        elif event == "stage":
            err_console.print(f"[cyan]›[/cyan] {detail}")
        else:
            err_console.print(f"  {detail}")

    return report


def print_result(result: Any) -> None:
    """The closing summary of a write."""
    topic = result.topic
    console.print()
    if result.article is None:
        console.print(f"[yellow]no article[/yellow] for {topic.slug}: {result.outcome}")
        if result.verdict is not None:
            for reason in result.verdict.reasons:
                console.print(f"  - {reason}")
        return
    art = result.article
    if art.status == "draft":
        console.print(f"[yellow]draft[/yellow] {art.path} (not presented as written: "
                      f"{'; '.join(art.reasons)}); `nonseq write {topic.id}` tries again",
                      soft_wrap=True)
    else:
        console.print(f"[green]wrote[/green] {art.path}", soft_wrap=True)
    console.print(f"  sources {len(art.sources)}, citations {art.citations} "
                  f"(resolved {art.resolved}, added {art.added}, removed {art.removed}), "
                  f"unsupported sentences {art.unsupported}/{art.sentences} "
                  f"(supported {art.supported_share:.0%}), {result.seconds:.1f} s")


def _decider(no_input: bool):  # noqa: ANN202 - writer.Decider or None
    """The THIN prompt in a terminal; None (the night-run path) with --no-input or no terminal."""
    if no_input or not sys.stdin.isatty():
        return None
    from nonseq.menus.thin_prompt import ask_thin_choice

    return ask_thin_choice


def write(
    ctx: typer.Context,
    topic_id: Annotated[str, typer.Argument(help="Topic id or slug")],
    no_input: Annotated[bool, typer.Option(
        "--no-input", help="Never ask: on THIN research take the night-run path")] = False,
    force: Annotated[bool, typer.Option(
        "--force", help="Write a written topic again (a new version, <slug>-2.md)")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not stream the text")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON")] = False,
) -> None:
    """Research (if needed), retrieve, gate, write and ground an article for a topic."""
    from nonseq.writer import write_topic

    stream = sys.stderr if as_json else sys.stdout
    ws = locked_workspace(ctx, "write")
    result = write_topic(ws, topic_id, decide=_decider(no_input),
                         progress=_progress(stream, quiet or as_json), force=force)
    if as_json:
        print_json(result.to_dict())
    else:
        print_result(result)
    if result.article is None:
        raise typer.Exit(3)
    if "write" in ws.settings.knowledge.extract:
        _extract_facts(ws, result.topic.id)


def _extract_facts(ws: Any, topic_id: int) -> None:
    """[knowledge] extract includes write: distil the topic's sources into facts for review."""
    from nonseq.errors import NonseqError
    from nonseq.knowledge import extract_facts

    try:
        report = extract_facts(ws, topic_id)
    except NonseqError as exc:
        err_console.print(f"[yellow]facts not extracted[/yellow]: {exc}")
        return
    err_console.print(f"facts: {report.new} new for review ({report.merged} merged); "
                      f"`nonseq knowledge review {topic_id}`")


def demo(
    ctx: typer.Context,
    directory: Annotated[str | None, typer.Option(
        "--dir", help="Keep the demo workspace here (default: a new temporary folder)")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not stream the text")] = False,
) -> None:
    """Run the whole pipeline offline on bundled real pages and print the article's path."""
    from nonseq.demo import run_demo

    result = run_demo(directory, progress=_progress(sys.stdout, quiet))
    print_result(result)
    if result.article is None:
        raise typer.Exit(3)
    typer.echo(f"article: {result.article.path}")


def register(app: typer.Typer) -> None:
    """Attach write and demo."""
    app.command("write")(write)
    app.command("demo")(demo)
