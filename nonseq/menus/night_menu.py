"""The Night run menu: what would run, run it with progress, then the summary and the report."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markdown import Markdown
from rich.markup import escape

from nonseq.menus.widgets import MenuContext, choose, pause, run_action
from nonseq.ui.console import console

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

NIGHT = [("r", "Run it now"), ("l", "Show the last morning report")]


def plan(ws: Workspace) -> list[Any]:
    """The topics a night run would take, in order (`nonseq night` picks the same)."""
    from nonseq.pipeline.night import plan as night_plan

    cfg = ws.settings.night
    return night_plan(ws, cfg.retries)[: cfg.max_topics]


def run(ctx: MenuContext) -> None:
    """Show the plan; run it, or show the last report."""
    while True:
        topics = run_action(ctx, plan, name="night plan", lock=False)
        if topics is None:
            return
        if topics:
            console.print(f"[bold]A night run would write {len(topics)} topic(s), in this order:[/bold]")
            for t in topics:
                console.print(f"  #{t.id} {escape(t.title)} ({t.stage}, priority {t.priority})")
        else:
            console.print("nothing to run: no queued or unfinished topics")
        key = choose("Night run", NIGHT if topics else NIGHT[1:])
        if key is None:
            return
        if key == "r":
            run_now(ctx, len(topics))
        else:
            last_report(ctx)


def run_now(ctx: MenuContext, total: int) -> None:
    """Run the night with a topics-done bar and the current step (`nonseq night`)."""
    from nonseq.ui.night import NightBars, print_night_summary

    def go(_ws: Workspace) -> Any:
        """Run the night now with its progress bars."""
        with NightBars(total) as bars:
            return ctx.api.night(progress=bars)

    summary = run_action(ctx, go, name="night")
    if summary is not None:
        print_night_summary(summary)
        show_report(Path(summary.report))
    pause()


def show_report(path: Path) -> None:
    """The morning report (Markdown) rendered in the terminal."""
    if path.is_file():
        console.print(Markdown(path.read_text(encoding="utf-8")))


def last_report(ctx: MenuContext) -> None:
    """The newest morning report in articles/reports."""

    def newest(ws: Workspace) -> Path | None:
        """The newest night report, or None."""
        from nonseq.pipeline.report import reports_dir

        found = sorted(reports_dir(ws).glob("night-*.md"), key=lambda p: p.stat().st_mtime)
        return found[-1] if found else None

    path = run_action(ctx, newest, name="night report", lock=False)
    if path is None:
        console.print("no night run yet")
    else:
        console.print(f"[bold]{escape(str(path))}[/bold]")
        show_report(path)
    pause()
