"""`nonseq write TOPIC_ID` and `nonseq demo`: the main job, from queue to grounded article."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from nonseq.commands._common import api
from nonseq.ui.console import print_json

if TYPE_CHECKING:
    from nonseq.pipeline.write import Decider


def _decider(no_input: bool) -> Decider | None:
    """The THIN prompt in a terminal; None (the night-run path) with --no-input or no terminal."""
    if no_input or not sys.stdin.isatty():
        return None
    from nonseq.ui.thin_prompt import ask_thin_choice

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
    from nonseq.ui.write import WriteProgress, print_write_result

    stream = sys.stderr if as_json else sys.stdout
    result = api(ctx).write(topic_id, decide=_decider(no_input), progress=WriteProgress(stream, quiet or as_json),
                            force=force)
    if as_json:
        print_json(result.to_dict())
    else:
        print_write_result(result)
    if result.article is None:
        raise typer.Exit(3)


def demo(
    ctx: typer.Context,
    directory: Annotated[str | None, typer.Option(
        "--dir", help="Keep the demo workspace here (default: a new temporary folder)")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not stream the text")] = False,
) -> None:
    """Run the whole pipeline offline on bundled real pages and print the article's path."""
    from nonseq.api import run_demo
    from nonseq.ui.write import WriteProgress, print_write_result

    result = run_demo(directory, progress=WriteProgress(sys.stdout, quiet))
    print_write_result(result)
    if result.article is None:
        raise typer.Exit(3)
    typer.echo(f"article: {result.article.path}")


def register(app: typer.Typer) -> None:
    """Attach write and demo."""
    app.command("write")(write)
    app.command("demo")(demo)
