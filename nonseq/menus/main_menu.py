"""`nonseq` (no arguments) and `nonseq menu`: the main menu and its one-line status."""

from __future__ import annotations

from typing import Any

from nonseq.menus.widgets import MenuContext, choose, console, report_unexpected, run_action

MAIN = [("1", "Queue"), ("2", "Knowledge"), ("3", "Night run"), ("4", "Articles"),
        ("5", "Settings"), ("q", "Quit")]


def _submenus() -> dict[str, Any]:
    """Key → the submenu's run(ctx) (imported when chosen, so the main menu starts fast)."""
    from nonseq.menus import articles_menu, knowledge_menu, night_menu, queue_menu, settings_menu

    return {"1": queue_menu.run, "2": knowledge_menu.run, "3": night_menu.run,
            "4": articles_menu.run, "5": settings_menu.run}


def status_header(ctx: MenuContext) -> Any:
    """A callable giving the live status line (figures from SQLite; probes run in the background)."""
    from nonseq.menus.status import Probes, queue_counts, status_fragments

    counts = run_action(ctx, queue_counts, name="status", lock=False) or "?"  # creates the db first
    probes = Probes(ctx.state.settings)
    return lambda: status_fragments(counts, probes)


def run(state: Any) -> None:
    """The main loop: show the status, ask for a menu, run it; Esc, Ctrl-C or q quits."""
    ctx = MenuContext(state=state, debug=bool(getattr(state, "debug", False)))
    ctx.state.settings  # noqa: B018 - a bad config.toml fails here (one line, non-zero exit)
    while True:
        console.rule("[bold]NonSequitur[/bold]")
        header = status_header(ctx)
        key = choose("Main menu", MAIN, hint="press a key (or ↑↓ Enter); Esc or q quits", header=header)
        if key in (None, "q"):
            console.print("bye")
            return
        try:
            _submenus()[key](ctx)
        except KeyboardInterrupt:  # Ctrl-C between prompts: back to the main menu
            console.print()
        except Exception as exc:  # noqa: BLE001 - the menus never show a traceback (unless --debug)
            report_unexpected(ctx, exc)
        finally:
            ctx.release()
