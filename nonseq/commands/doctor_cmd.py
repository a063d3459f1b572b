"""`nonseq doctor`: check each configured backend and say how to fix what does not work."""

from __future__ import annotations

import typer
from rich.markup import escape

from nonseq.commands._common import console, workspace
from nonseq.doctor import run_checks


def doctor(ctx: typer.Context) -> None:
    """Check the workspace, Qdrant, the embedder, the sparse encoder, SearXNG and the LLM."""
    results = run_checks(workspace(ctx))
    failed = 0
    for check in results:
        mark = {"ok": "[green]ok[/green]  ", "warn": "[yellow]warn[/yellow]",
                "fail": "[red]FAIL[/red]"}[check.level]
        console.print(f"{mark} {check.name}: {escape(check.detail)}", soft_wrap=True)
        failed += not check.ok
    if failed:
        console.print(f"{failed} check(s) failed")
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Attach the doctor command."""
    app.command("doctor")(doctor)
