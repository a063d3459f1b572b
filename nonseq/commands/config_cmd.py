"""`nonseq init`, `nonseq config show|path` and `nonseq paths`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nonseq.commands._common import state
from nonseq.errors import UsageError
from nonseq.ui import console as out
from nonseq.ui.console import print_json

config_app = typer.Typer(help="Show the effective settings and where they come from.",
                         no_args_is_help=True)


def init(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="Where to write the config")] = Path("config.toml"),
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file")] = False,
) -> None:
    """Write a commented config.toml with every setting at its default."""
    from nonseq.config import render_toml

    if path.exists() and not force:
        raise UsageError(f"{path} already exists (use --force to overwrite)")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_toml(), encoding="utf-8")
    out.console.print(f"wrote {path}")


@config_app.command("show")
def config_show(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Print the effective settings (file + environment overrides + defaults); marks env values."""
    from nonseq.config import masked, render_toml, settings_dict

    settings = state(ctx).settings
    if as_json:
        print_json({**settings_dict(settings), "from_env": settings.from_env})
        return
    typer.echo(render_toml(masked(settings), comments=False))


@config_app.command("path")
def config_path(ctx: typer.Context) -> None:
    """Print the config file in use, or say that built-in defaults apply."""
    source = state(ctx).settings.source
    typer.echo(str(source) if source else "(none: built-in defaults; `nonseq init` writes one)")


def paths(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Print where the config, database, vector store, articles and logs live."""
    found = state(ctx).workspace.paths()
    if as_json:
        print_json(found)
        return
    width = max(len(k) for k in found)
    for key, value in found.items():
        out.console.print(f"{key.ljust(width)}  {value}")


def register(app: typer.Typer) -> None:
    """Attach these commands to the root app."""
    app.command("init")(init)
    app.add_typer(config_app, name="config")
    app.command("paths")(paths)
