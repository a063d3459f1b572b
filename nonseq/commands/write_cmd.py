"""`nonseq write TOPIC_ID` and `nonseq demo`: the main job, from queue to grounded article."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from nonseq.commands._common import console, err_console, print_json, workspace


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
    console.print(f"[green]wrote[/green] {art.path}", soft_wrap=True)
    console.print(f"  sources {len(art.sources)}, citations {art.citations} "
                  f"(resolved {art.resolved}, added {art.added}, removed {art.removed}), "
                  f"unsupported sentences {art.unsupported}/{art.sentences}, "
                  f"{result.seconds:.1f} s")


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
    force: Annotated[bool, typer.Option("--force", help="Overwrite an earlier article")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not stream the text")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON")] = False,
) -> None:
    """Research (if needed), retrieve, gate, write and ground an article for a topic."""
    from nonseq.writer import write_topic

    stream = sys.stderr if as_json else sys.stdout
    result = write_topic(workspace(ctx), topic_id, decide=_decider(no_input),
                         progress=_progress(stream, quiet or as_json), force=force)
    if as_json:
        print_json(result.to_dict())
    else:
        print_result(result)
    if result.article is None:
        raise typer.Exit(3)


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
