"""`nonseq persona list|show|load`: author voices, from TOML files into `persona_{name}`."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import locked_workspace, workspace
from nonseq.ui import console as out
from nonseq.ui.console import print_json, safe

persona_app = typer.Typer(help="Author voices: list, show, and load them into the vector store.",
                          no_args_is_help=True)


@persona_app.command("list")
def list_(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List personas (the personas folder first, then the bundled ones)."""
    from rich.table import Table

    from nonseq.writing.personas import list_personas

    ws = workspace(ctx)
    skipped: list[str] = []
    found = list_personas(ws, skipped)
    for problem in skipped:
        out.err_console.print(f"[yellow]warning[/yellow]: skipped {safe(problem)}", soft_wrap=True)
    if as_json:
        print_json([p.to_dict() for p in found])
        return
    if not found:
        out.console.print(f"no personas: add one as {ws.personas_dir}/<name>.toml")
        return
    table = Table(title=f"{len(found)} persona(s)")
    for col in ("name", "voices", "from", "description"):
        table.add_column(col, overflow="fold")
    for p in found:
        origin = "bundled" if p.bundled else ("file (overrides bundled)"
                                              if p.overrides_bundled else "file")
        table.add_row(p.name, str(len(p.voices)), origin, p.description)
    out.console.print(table)


@persona_app.command("show")
def show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Persona name")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Show a persona's description and voice chunks."""
    from nonseq.writing.personas import get_persona

    persona = get_persona(workspace(ctx), name)
    if as_json:
        print_json(persona.to_dict())
        return
    out.console.print(f"[bold]{persona.name}[/bold]  ({persona.path})", soft_wrap=True)
    out.console.print(persona.description, soft_wrap=True)
    for i, voice in enumerate(persona.voices, 1):
        out.console.print(f"\n[bold]{i}. when:[/bold] {voice.trigger}", soft_wrap=True)
        out.console.print(f"   {voice.text}", soft_wrap=True)


@persona_app.command("load")
def load(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Persona name")],
) -> None:
    """Index a persona's voices (text and trigger vectors) into persona_{name}, replacing old ones."""
    from nonseq.writing.personas import load_persona

    persona, count = load_persona(locked_workspace(ctx, "persona load"), name)
    out.console.print(f"loaded {count} voice chunk(s) of {persona.name} into {persona.collection}")


def register(app: typer.Typer) -> None:
    """Attach the persona group to the root app."""
    app.add_typer(persona_app, name="persona")
