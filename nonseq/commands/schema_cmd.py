"""`nonseq schema list|show`: article structures (bundled, or from [paths] schemas_dir)."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import workspace
from nonseq.ui import console as out
from nonseq.ui.console import print_json

schema_app = typer.Typer(help="Article schemas: sections, opening/closing rules, target length.",
                         no_args_is_help=True)


@schema_app.command("list")
def list_(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List article schemas (user files override bundled ones by name)."""
    from rich.table import Table

    from nonseq.writing.schemas import list_schemas

    found = list_schemas(workspace(ctx))
    if as_json:
        print_json([s.to_dict() for s in found])
        return
    table = Table(title=f"{len(found)} schema(s)")
    for col in ("name", "words", "sections", "from", "description"):
        table.add_column(col, overflow="fold")
    for s in found:
        origin = "bundled" if s.bundled else ("file (overrides bundled)"
                                              if s.overrides_bundled else "file")
        table.add_row(s.name, str(s.target_words), ", ".join(x.name for x in s.sections),
                      origin, s.description)
    out.console.print(table)


@schema_app.command("show")
def show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Schema name")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Show a schema as the writer sees it."""
    from nonseq.writing.schemas import load_schema

    schema = load_schema(workspace(ctx), name)
    if as_json:
        print_json(schema.to_dict())
        return
    out.console.print(f"[bold]{schema.name}[/bold]  ({schema.path})", soft_wrap=True)
    typer.echo(schema.render())


def register(app: typer.Typer) -> None:
    """Attach the schema group to the root app."""
    app.add_typer(schema_app, name="schema")
