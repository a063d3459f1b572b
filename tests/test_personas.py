"""Tests for nonseq.writing.personas and `nonseq persona`: files, overrides, and loading into Qdrant."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nonseq.errors import NotFoundError, UsageError
from nonseq.index.vector_store import TRIGGER
from nonseq.models import SourceKind
from nonseq.writing.personas import (
    BUNDLED_DIR,
    get_persona,
    list_personas,
    load_persona,
    loaded_count,
    parse_persona,
)

REPO_PERSONAS = Path(__file__).resolve().parents[1] / "personas"

SMALL = """name = "the-skeptic"
description = "A local override."
[[voice]]
trigger = "opening"
text = "Local opening voice."
[[voice]]
trigger = "closing"
text = "Local closing voice."
"""


def test_bundled_and_repo_copies_are_identical() -> None:
    """The wheel's personas and the repo's user-facing personas/ are one source of truth."""
    bundled = {p.name: p.read_bytes() for p in BUNDLED_DIR.glob("*.toml")}
    repo = {p.name: p.read_bytes() for p in REPO_PERSONAS.glob("*.toml")}
    assert bundled and bundled == repo


@pytest.mark.parametrize("name", ["the-skeptic", "the-explainer"])
def test_bundled_personas_are_complete(name: str) -> None:
    """At least eight voices, each with a distinct trigger and a few sentences of text."""
    persona = parse_persona(BUNDLED_DIR / f"{name}.toml", bundled=True)
    assert persona.name == name and persona.description
    assert len(persona.voices) >= 8
    assert len({v.trigger for v in persona.voices}) == len(persona.voices)
    assert all(len(v.text.split()) >= 40 and v.text.count(".") >= 2 for v in persona.voices)
    triggers = " ".join(v.trigger for v in persona.voices)
    assert "opening" in triggers and "closing" in triggers


def test_user_file_overrides_bundled(ws) -> None:  # noqa: ANN001
    """A file in the personas folder wins over the bundled persona of the same name."""
    ws.personas_dir.mkdir()
    (ws.personas_dir / "the-skeptic.toml").write_text(SMALL, encoding="utf-8")
    (ws.personas_dir / "notes.txt").write_text("ignored", encoding="utf-8")
    persona = get_persona(ws, "The-Skeptic")
    assert not persona.bundled and len(persona.voices) == 2
    listed = {p.name: p for p in list_personas(ws)}
    assert set(listed) == {"the-skeptic", "the-explainer"}
    assert listed["the-skeptic"].overrides_bundled and listed["the-explainer"].bundled


@pytest.mark.parametrize(("content", "message"), [
    ("description = 'x'\n", r"at least one \[\[voice\]\]"),
    ("description = 'x'\n[[voice]]\ntrigger = 'a'\n", "voice 1: 'text'"),
    ("description = 'x'\nvoices = []\n", "unknown key 'voices'"),
    ("name = 'other'\ndescription = 'x'\n[[voice]]\ntrigger='a'\ntext='b'\n", "must match"),
    ("description = \n", "not valid TOML"),
])
def test_invalid_persona_files(ws, content: str, message: str) -> None:  # noqa: ANN001
    """Broken files give one-line errors naming the file and the problem."""
    ws.personas_dir.mkdir()
    (ws.personas_dir / "mine.toml").write_text(content, encoding="utf-8")
    with pytest.raises(UsageError, match=message) as err:
        get_persona(ws, "mine")
    assert "\n" not in str(err.value) and "mine.toml" in str(err.value)


def test_unknown_and_invalid_names(ws) -> None:  # noqa: ANN001
    """Unknown personas list the known ones; path-like names are refused."""
    with pytest.raises(NotFoundError, match="known: the-explainer, the-skeptic"):
        get_persona(ws, "nobody")
    with pytest.raises(UsageError, match="invalid persona name"):
        get_persona(ws, "../etc/passwd")


def test_load_into_qdrant_with_both_vectors(ws) -> None:  # noqa: ANN001
    """Voices land in persona_{name} with dense (text) and trigger_dense (trigger) vectors."""
    persona, count = load_persona(ws, "the-explainer")
    assert count == len(persona.voices) == loaded_count(ws, "the-explainer")
    points = ws.store.scroll_all("persona_the_explainer", vectors=True)
    assert len(points) == count
    by_pos = {p.chunk.position: p for p in points}
    for i, voice in enumerate(persona.voices):
        point = by_pos[i]
        assert point.chunk.source_kind is SourceKind.PERSONA
        assert point.chunk.text == voice.text and point.chunk.extra["trigger"] == voice.trigger
        assert point.chunk.extra["persona"] == "the-explainer"
        dense = np.asarray(point.vectors["dense"])
        trigger = np.asarray(point.vectors[TRIGGER])
        assert dense.shape == trigger.shape == (ws.embedder.dim,)
        assert float(dense @ ws.embedder.embed_query(voice.text)) > 0.99
        assert float(trigger @ ws.embedder.embed_query(voice.trigger)) > 0.99
    query = ws.embedder.embed_query("the final paragraph: leave the reader with one idea")
    best = ws.store.search("persona_the_explainer", query, using=TRIGGER, limit=1)[0]
    assert best.chunk.extra["trigger"].startswith("closing")


def test_reload_replaces(ws) -> None:  # noqa: ANN001
    """Loading again after the file changed leaves exactly the new voices."""
    load_persona(ws, "the-skeptic")
    assert loaded_count(ws, "the-skeptic") == 8
    ws.personas_dir.mkdir()
    (ws.personas_dir / "the-skeptic.toml").write_text(SMALL, encoding="utf-8")
    _, count = load_persona(ws, "the-skeptic")
    texts = sorted(p.chunk.text for p in ws.store.scroll_all("persona_the_skeptic"))
    assert count == 2 and texts == ["Local closing voice.", "Local opening voice."]


def test_cli(cli) -> None:  # noqa: ANN001
    """list/show/load, JSON output, and one-line errors with exit codes."""
    rows = json.loads(cli("persona", "list", "--json").stdout)
    assert [r["name"] for r in rows] == ["the-explainer", "the-skeptic"]
    assert "the-skeptic" in cli("persona", "list").stdout
    shown = cli("persona", "show", "the-skeptic").stdout
    assert "when:" in shown and "opening" in shown
    assert json.loads(cli("persona", "show", "the-skeptic", "--json").stdout)["collection"] == \
        "persona_the_skeptic"
    result = cli("persona", "show", "nobody", code=1)
    assert result.stderr.strip().startswith("error: unknown persona 'nobody'")
    assert len(result.stderr.strip().splitlines()) == 1
    assert cli("persona", "load", "../x", code=2).stderr.count("\n") == 1
    assert "loaded 8 voice chunk(s)" in cli("persona", "load", "the-explainer").stdout
