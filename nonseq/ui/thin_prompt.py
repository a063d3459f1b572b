"""The [C]ontinue / [R]etry research / [D]elete prompt shown after a THIN gate verdict."""

from __future__ import annotations

from typing import Any

from nonseq.models import GateVerdict, ThinChoice, Topic

CHOICES = {"c": ThinChoice.CONTINUE, "r": ThinChoice.RETRY, "d": ThinChoice.DELETE}


def thin_choices(verdict: GateVerdict) -> list[tuple[str, str]]:
    """(key, label) pairs offered after THIN; no Continue after a hard-gate failure."""
    options = []
    if verdict.can_continue:
        options.append(("c", "Continue: write from the research there is"))
    options.append(("r", "Retry research: search and fetch again"))
    options.append(("d", "Delete the topic and its research"))
    return options


def ask_thin_choice(topic: Topic, verdict: GateVerdict, **prompt_kwargs: Any) -> ThinChoice:
    """Ask what to do with a THIN topic: Continue, Retry or Delete.

    prompt_kwargs go to prompt_toolkit (input=..., output=...) so tests can drive it.
    """
    import questionary

    reasons = "; ".join(verdict.reasons) or "research is thin"
    choices = [questionary.Choice(title=f"[{key.upper()}] {label}", value=key, shortcut_key=key)
               for key, label in thin_choices(verdict)]
    question = questionary.rawselect(
        f"Research for {topic.slug!r} is THIN ({reasons}). What now?",
        choices=choices, **prompt_kwargs)
    answer = question.unsafe_ask()
    return CHOICES[answer]
