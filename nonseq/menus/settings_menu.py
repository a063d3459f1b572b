"""The Settings menu: the effective config, the doctor, and config.toml in $EDITOR."""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import Any

from rich.markup import escape

from nonseq.menus.widgets import MenuContext, choose, confirm, console, pause, run_action

SETTINGS = [("c", "Show the effective config"), ("d", "Run the doctor"), ("e", "Edit config.toml in $EDITOR")]


def run(ctx: MenuContext) -> None:
    """Settings loop."""
    while True:
        key = choose("Settings", SETTINGS)
        if key is None:
            return
        {"c": show_config, "d": doctor, "e": edit_config}[key](ctx)


def show_config(ctx: MenuContext) -> None:
    """The effective settings (`nonseq config show`)."""
    from nonseq.config import masked, render_toml

    settings = ctx.state.settings
    console.print(f"[bold]config:[/bold] {settings.source or '(built-in defaults)'}")
    console.print(escape(render_toml(masked(settings), comments=False)), soft_wrap=True)  # keys as ***
    pause()


def doctor(ctx: MenuContext) -> None:
    """Check every backend (`nonseq doctor`)."""
    from nonseq.pipeline.doctor import run_checks

    results = run_action(ctx, run_checks, name="doctor", lock=False)
    for check in results or []:
        mark = "[green]ok[/green]  " if check.ok else "[red]FAIL[/red]"
        console.print(f"{mark} {check.name}: {escape(check.detail)}", soft_wrap=True)
    pause()


def edit_config(ctx: MenuContext) -> None:
    """Open config.toml in $EDITOR (writing the commented defaults first if there is none)."""
    from pathlib import Path

    from nonseq.config import render_toml

    settings = ctx.state.settings
    path = Path(settings.source) if settings.source else Path("config.toml")
    if not path.exists():
        if not confirm(f"There is no {path}. Write the commented defaults there?"):
            return
        path.write_text(render_toml(), encoding="utf-8")
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    try:
        subprocess.call([*shlex.split(editor), str(path)])  # noqa: S603 - the person's own editor
    except OSError as exc:
        console.print(f"[red]error:[/red] cannot start {editor!r}: {exc.strerror}")
        return
    _reload(ctx)


def _reload(ctx: MenuContext) -> Any:
    """Load the edited settings again; a bad file is reported and the old settings stay."""
    from nonseq.config import load_settings
    from nonseq.errors import NonseqError

    state = ctx.state
    try:
        fresh = load_settings(state.config)
    except NonseqError as exc:
        console.print(f"[red]the edited config is not valid:[/red] {escape(str(exc))}; "
                      "the settings in use are unchanged", soft_wrap=True)
        return None
    state.reload(fresh)
    console.print("settings reloaded")
    return fresh
