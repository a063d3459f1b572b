"""Author personas: a voice per file, listed, shown and indexed into `persona_{name}` collections.

A persona is one TOML file `<name>.toml` in the personas folder (`[paths] personas_dir`):

    name = "the-skeptic"               # optional; must equal the file name when given
    description = "..."
    [[voice]]                          # one table per voice chunk
    trigger = "opening: ..."           # when this voice fits (embedded as `trigger_dense`)
    text = "..."                       # example sentences in the voice (embedded as `dense`)

Bundled personas ship inside the package (`nonseq/assets/personas/`); the repository's top-level
`personas/` holds identical copies for people to read and copy (a test keeps them equal). A file
in the personas folder overrides a bundled persona of the same name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq.errors import UsageError
from nonseq.models import Chunk, SourceKind, content_hash
from nonseq.writing import overlay
from nonseq.writing.schemas import check_name

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "assets" / "personas"
ALLOWED_KEYS = {"name", "description", "voice"}


@dataclass
class Voice:
    """One voice chunk: when to use it and example text in that voice."""

    trigger: str
    text: str


@dataclass
class Persona:
    """An author voice: name, description and voice chunks."""

    name: str
    description: str
    voices: list[Voice]
    path: Path | None = None
    bundled: bool = False
    overrides_bundled: bool = field(default=False, compare=False)

    @property
    def collection(self) -> str:
        """The Qdrant collection the voices are indexed into."""
        from nonseq.index.vector_store import persona_collection

        return persona_collection(self.name)

    def chunks(self) -> list[Chunk]:
        """The voice chunks as persona-kind Chunks (provenance: persona, trigger, file)."""
        return [
            Chunk(text=v.text, topic_slug="", category="", url=f"persona:{self.name}#{i + 1}",
                  domain="persona", title=f"{self.name}: {v.trigger}",
                  content_hash=content_hash(v.text), source_kind=SourceKind.PERSONA, position=i,
                  extra={"persona": self.name, "trigger": v.trigger})
            for i, v in enumerate(self.voices)
        ]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "name": self.name,
            "description": self.description,
            "voices": [{"trigger": v.trigger, "text": v.text} for v in self.voices],
            "path": str(self.path) if self.path else "",
            "bundled": self.bundled,
            "collection": self.collection,
        }


def _text(data: dict[str, Any], key: str, path: Path, where: str = "") -> str:
    """A non-empty string with whitespace runs collapsed, or UsageError naming the file."""
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{path}: {where}{key!r} must be a non-empty string")
    return " ".join(value.split())


def parse_persona(path: Path, bundled: bool = False) -> Persona:
    """Read and validate one persona file; UsageError with the file and key on problems."""
    data = overlay.read_toml(path)
    unknown = sorted(set(data) - ALLOWED_KEYS)
    if unknown:
        raise UsageError(f"{path}: unknown key {unknown[0]!r} (allowed: description, name, voice)")
    name = path.stem.lower()
    if data.get("name", name) != name:
        raise UsageError(f"{path}: name {data.get('name')!r} must match the file name {name!r}")
    raw = data.get("voice")
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{path}: needs at least one [[voice]] table with trigger and text")
    voices = []
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict) or set(item) - {"trigger", "text"}:
            raise UsageError(f"{path}: voice {i} must have only 'trigger' and 'text'")
        where = f"voice {i}: "
        voices.append(Voice(_text(item, "trigger", path, where), _text(item, "text", path, where)))
    return Persona(name=name, description=_text(data, "description", path), voices=voices,
                   path=path, bundled=bundled)


def list_personas(ws: Workspace, skipped: list[str] | None = None) -> list[Persona]:
    """Every persona by name: files in the personas folder override bundled ones.

    With a `skipped` list, malformed files are left out and their errors collected there.
    """
    return overlay.list_all(BUNDLED_DIR, ws.personas_dir, parse_persona, skipped)


def get_persona(ws: Workspace, name: str) -> Persona:
    """One persona by name (personas folder first, then bundled); NotFoundError lists the known."""
    return overlay.get_one(BUNDLED_DIR, ws.personas_dir, check_name(name, "persona"), parse_persona, "persona")


def load_persona(ws: Workspace, name: str) -> tuple[Persona, int]:
    """Index a persona's voices into `persona_{name}` (dense + trigger_dense), replacing old ones."""
    persona = get_persona(ws, name)
    collection = persona.collection
    ws.store.drop(collection)
    count = ws.indexer.index(collection, persona.chunks(), triggers=[v.trigger for v in persona.voices])
    return persona, count


def loaded_count(ws: Workspace, name: str) -> int:
    """How many voice chunks of a persona are indexed (0 when never loaded)."""
    from nonseq.index.vector_store import persona_collection

    return ws.store.count(persona_collection(check_name(name, "persona")))
