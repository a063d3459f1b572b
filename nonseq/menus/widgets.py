"""The menus' building blocks: one-key choices, text prompts, and running one action at a time.

Every prompt returns None when the person presses Esc or Ctrl-C (go back one level). An action
runs under the workspace lock and closes SQLite and Qdrant again when it ends, so a menu that
waits for a key holds nothing a night run needs.
"""

from __future__ import annotations

import contextlib
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from rich.markup import escape

from nonseq.errors import NonseqError, machine_fault
from nonseq.ui.console import console

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples

T = TypeVar("T")

#: (key, label) pairs of a menu; a key is one character.
Options = Sequence[tuple[str, str]]


@dataclass
class MenuContext:
    """What every menu shares: the CLI state (settings, lazily built workspace) and --debug."""

    state: Any
    debug: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def ws(self) -> Any:
        """The workspace (its SQLite and Qdrant handles are closed after each action)."""
        return self.state.workspace

    @property
    def api(self) -> Any:
        """The Python API object the menus act through (it owns the workspace lock)."""
        return self.state.api

    def release(self) -> None:
        """Close SQLite and Qdrant (models stay loaded), so another process may use the workspace."""
        ws = self.state.opened
        if ws is not None:
            ws.close()


def _escape_bindings() -> Any:
    """Key bindings: Esc and Ctrl-C leave the prompt with None."""
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()

    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _back(event: Any) -> None:
        """Leave the menu with no choice."""
        event.app.exit(result=None)

    return kb


def choose(title: str, options: Options, *, hint: str = "press a key (or ↑↓ Enter); Esc back",
           header: Callable[[], list[tuple[str, str]]] | None = None) -> str | None:
    """Show a one-key menu; returns the chosen key, or None on Esc/Ctrl-C.

    header() gives lines shown above the title, redrawn while the menu waits (live status).
    """
    from prompt_toolkit.application import Application
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    if not options:
        return None
    index = [0]
    kb = _escape_bindings()

    def render() -> StyleAndTextTuples:
        """The title and the options, the current one marked."""
        lines: StyleAndTextTuples = [*(header() if header else []), ("bold", f"{title}\n")]
        for i, (key, label) in enumerate(options):
            mark = "›" if i == index[0] else " "
            lines.append(("reverse" if i == index[0] else "", f"{mark}[{key}] {label}"))
            lines.append(("", "\n"))
        lines.append(("italic", f"  {hint}"))
        return lines

    def pick(key: str) -> Callable[[Any], None]:
        """A key binding that chooses `key`."""
        return lambda event: event.app.exit(result=key)

    for key, _label in options:
        kb.add(key)(pick(key))

    @kb.add("up")
    def _up(_event: Any) -> None:
        """Move the mark up (wrapping round)."""
        index[0] = (index[0] - 1) % len(options)

    @kb.add("down")
    def _down(_event: Any) -> None:
        """Move the mark down (wrapping round)."""
        index[0] = (index[0] + 1) % len(options)

    @kb.add("enter")
    def _enter(event: Any) -> None:
        """Choose the marked option."""
        event.app.exit(result=options[index[0]][0])

    app: Application[str | None] = Application(
        layout=Layout(Window(FormattedTextControl(render, show_cursor=False), wrap_lines=True)),
        key_bindings=kb, full_screen=False, erase_when_done=True,
        refresh_interval=0.25 if header else None)
    pressed: str | None = app.run()
    chosen = dict(options).get(pressed or "", "back")
    console.print(f"[bold]{escape(title)}[/bold] › {escape(f'[{pressed}] ' if pressed else '')}{escape(chosen)}",
                  soft_wrap=True)
    return pressed


def ask(message: str, default: str = "") -> str | None:
    """A one-line text prompt; None on Esc/Ctrl-C."""
    from prompt_toolkit import PromptSession

    session: PromptSession[str] = PromptSession(key_bindings=_escape_bindings())
    answer = session.prompt(f"{message}: ", default=default)
    return None if answer is None else answer.strip()


def ask_int(message: str, default: int | None = None) -> int | None:
    """A whole number (asked again until it is one); None on Esc/Ctrl-C or an empty answer."""
    while True:
        answer = ask(message, "" if default is None else str(default))
        if not answer:
            return None
        try:
            return int(answer)
        except ValueError:
            console.print(f"[red]not a number:[/red] {escape(answer)}")


def confirm(message: str) -> bool:
    """Yes only when the person presses y."""
    return choose(message, [("y", "yes"), ("n", "no")], hint="y or n; Esc = no") == "y"


def pick_from(title: str, entries: Sequence[tuple[T, str]]) -> T | None:
    """Choose one of many entries (keys 1-9, then a-z); None on Esc."""
    keys = "123456789abcdefghijklmnoprstuvwxyz"  # no q: it never means "pick"
    shown = list(entries)[: len(keys)]
    if not shown:
        return None
    options = [(keys[i], label) for i, (_value, label) in enumerate(shown)]
    key = choose(title, options)
    if key is None:
        return None
    return shown[keys.index(key)][0]


def pause(message: str = "press any key to go on") -> None:
    """Wait for one key (Esc and Ctrl-C count) so the person can read the output."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.keys import Keys
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    kb = KeyBindings()

    @kb.add(Keys.Any)
    @kb.add("escape", eager=True)
    @kb.add("c-c")
    @kb.add("enter")
    def _any(event: Any) -> None:
        """Any key ends the pause."""
        event.app.exit(result=None)

    Application(layout=Layout(Window(FormattedTextControl([("italic", f"({message})")]), height=1)),
                key_bindings=kb, full_screen=False).run()


def report_unexpected(ctx: MenuContext, exc: Exception) -> None:
    """One line for an error nobody expected (the traceback only with --debug)."""
    fault = machine_fault(exc, ctx.state.settings.data_dir)
    if fault is not None and not ctx.debug:
        console.print(f"[red]error:[/red] {escape(str(fault))}", soft_wrap=True)
        return
    if ctx.debug:
        console.print(escape("".join(traceback.format_exception(exc))))
    console.print(f"[red]unexpected error:[/red] {type(exc).__name__}: {escape(str(exc))}", soft_wrap=True)


def run_action(ctx: MenuContext, action: Callable[[Any], T], *, name: str = "menu",
               lock: bool = True) -> T | None:
    """Run one action (under the workspace lock unless it only reads SQLite); errors become one
    line, Ctrl-C stops it cleanly; SQLite and Qdrant are closed again afterwards."""
    try:
        with ctx.api.locked(f"menu: {name}") if lock else contextlib.nullcontext(ctx.ws) as ws:
            return action(ws)
    except NonseqError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
    except KeyboardInterrupt:
        console.print("\n[yellow]stopped[/yellow]: what was done is saved; run it again to resume")
    except Exception as exc:  # noqa: BLE001 - a menu never shows a traceback (unless --debug)
        report_unexpected(ctx, exc)
    finally:
        ctx.release()
    return None
