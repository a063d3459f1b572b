"""`nonseq doctor`: check each configured backend and say how to fix what does not work."""

from __future__ import annotations

import typer

from nonseq.commands._common import workspace
from nonseq.ui import console as out
from nonseq.ui.console import safe


def doctor(ctx: typer.Context) -> None:
    """Check the workspace, Qdrant, the embedder, the sparse encoder, SearXNG and the LLM."""
    from nonseq.pipeline.doctor import run_checks

    results = run_checks(workspace(ctx))
    failed = 0
    for check in results:
        mark = {"ok": "[green]ok[/green]  ", "warn": "[yellow]warn[/yellow]",
                "fail": "[red]FAIL[/red]"}[check.level]
        out.console.print(f"{mark} {check.name}: {safe(check.detail)}", soft_wrap=True)
        failed += not check.ok
    if failed:
        out.console.print(f"{failed} check(s) failed")
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Attach the doctor command."""
    app.command("doctor")(doctor)
