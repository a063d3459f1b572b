"""One fact at a time, riskiest first: [k]eep, [e]dit, [E]ditor, [s]witch kind, [d]elete, [n]ext, [q]uit.

Every decision is stored the moment it is made, so Ctrl-C (or q) ends the review keeping them all.
prompt_kwargs (input=..., output=...) go to prompt_toolkit so tests can drive the keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console

from nonseq import knowledge
from nonseq.ui.facts import fact_card

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

KEYS = {"k": "keep", "e": "edit", "E": "editor", "s": "switch", "d": "delete", "n": "skip",
        "q": "quit"}
HELP = "[k]eep  [e]dit  [E]ditor  [s]witch kind  [d]elete  [n]ext  [q]uit"


@dataclass
class ReviewSummary:
    """What a review session decided."""

    kept: int = 0
    edited: int = 0
    switched: int = 0
    deleted: int = 0
    skipped: int = 0
    left: int = 0

    def line(self) -> str:
        """One line for people."""
        return (f"kept {self.kept}, edited {self.edited}, switched {self.switched}, "
                f"deleted {self.deleted}, skipped {self.skipped}; {self.left} still pending")


def read_key(message: str, keys: str, **prompt_kwargs: Any) -> str | None:
    """Wait for one of keys; None on Ctrl-C, Esc or the end of input."""
    from prompt_toolkit.application import Application
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl

    bindings = KeyBindings()
    for key in keys:
        bindings.add(key)(lambda event, k=key: event.app.exit(result=k))
    for key in ("c-c", "escape", "c-d"):
        bindings.add(key)(lambda event: event.app.exit(result=None))
    app: Application[str | None] = Application(
        layout=Layout(Window(FormattedTextControl(message), height=1)), key_bindings=bindings,
        full_screen=False, **prompt_kwargs)
    try:
        return app.run()
    except (KeyboardInterrupt, EOFError):
        return None


def ask_text(message: str, default: str, **prompt_kwargs: Any) -> str | None:
    """A one-line text prompt prefilled with default; None on Ctrl-C, Esc or the end of input."""
    from prompt_toolkit.shortcuts import PromptSession

    try:
        return PromptSession(**prompt_kwargs).prompt(message, default=default)
    except (KeyboardInterrupt, EOFError):
        return None


def _editor(text: str) -> str | None:
    """The text edited in $EDITOR (None when it was not saved)."""
    import click

    edited = click.edit(text)
    return None if edited is None else " ".join(edited.split())


def review(ws: Workspace, topic_id: int | str | None = None, *, console: Console | None = None,
           **prompt_kwargs: Any) -> ReviewSummary:
    """Walk the pending facts (of a topic or all), riskiest first; returns what was decided."""
    console = console or Console(highlight=False)
    todo = knowledge.review_queue(ws, topic_id)  # type: ignore[arg-type]
    summary = ReviewSummary()
    for n, fact in enumerate(todo, 1):
        if not _one(ws, fact, n, len(todo), summary, console, prompt_kwargs):
            break
    summary.left = len(knowledge.review_queue(ws, topic_id))  # type: ignore[arg-type]
    return summary


def _one(ws: Workspace, fact: knowledge.FactRecord, n: int, total: int, summary: ReviewSummary,
         console: Console, prompt_kwargs: dict[str, Any]) -> bool:
    """Review one fact until it is decided or skipped; False to stop the session."""
    while True:
        console.print(fact_card(fact, heading=f"{n}/{total}  "))
        key = read_key(HELP + " > ", "".join(KEYS), **prompt_kwargs)
        action = KEYS.get(key or "q")
        if action == "quit":
            return False
        if action == "skip":
            summary.skipped += 1
            return True
        if action == "keep":
            knowledge.keep_facts(ws, [int(fact.id or 0)], seen={int(fact.id or 0): fact.updated_at})
            summary.kept += 1
            return True
        if action == "delete":
            knowledge.delete_facts(ws, [int(fact.id or 0)], seen={int(fact.id or 0): fact.updated_at})
            summary.deleted += 1
            return True
        if action == "switch":
            kind = "topic" if fact.evergreen else "evergreen"
            fact = knowledge.edit_fact(ws, int(fact.id or 0), kind=kind, seen=fact.updated_at)
            summary.switched += 1
            continue
        new = (ask_text("text: ", fact.text, **prompt_kwargs) if action == "edit"
               else _editor(fact.text))
        if new and new.strip() and new.strip() != fact.text:
            fact = knowledge.edit_fact(ws, int(fact.id or 0), text=new, seen=fact.updated_at)
            summary.edited += 1
            return True


review_facts = review
