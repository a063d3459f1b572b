"""Article schemas: sections, opening and closing rules, target length; bundled or user TOML files.

A schema is one TOML file `<name>.toml`:

    name = "news"                      # optional; must equal the file name when given
    description = "..."
    target_words = 600
    headings = true                    # sections become `## ` headings (false: plain paragraphs)
    opening = "..."                    # rule for the first paragraph
    closing = "..."                    # rule for the last paragraph
    [[sections]]                       # in reading order
    name = "Lede"
    guidance = "..."

Bundled schemas live in `nonseq/data/schemas/` (the repo's top-level `data/` is a symlink to
`nonseq/data`); a `[paths] schemas_dir` folder overrides them by name and may add new ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq.errors import UsageError
from nonseq.writing import overlay

if TYPE_CHECKING:
    from nonseq.workspace import Workspace

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "data" / "schemas"
NAME_RE = overlay.NAME_RE
ALLOWED_KEYS = {"name", "description", "target_words", "headings", "opening", "closing", "sections"}


@dataclass
class SchemaSection:
    """One part of an article: its name and what belongs in it."""

    name: str
    guidance: str


@dataclass
class Schema:
    """An article structure: sections in order, opening/closing rules, target length."""

    name: str
    description: str
    sections: list[SchemaSection]
    opening: str
    closing: str
    target_words: int
    headings: bool = True
    path: Path | None = None
    bundled: bool = False
    overrides_bundled: bool = field(default=False, compare=False)

    def render(self) -> str:
        """The schema as text (`nonseq schema show`)."""
        lines = [f"Article type: {self.name} ({self.description})",
                 f"Length: about {self.target_words} words.",
                 f"Opening: {self.opening}"]
        if self.headings:
            lines.append("Sections, in this order, each under a `## ` heading with its name:")
        else:
            lines.append("Parts, in this order, as plain paragraphs (no headings):")
        for i, section in enumerate(self.sections, 1):
            lines.append(f"{i}. {section.name}: {section.guidance}")
        lines.append(f"Closing: {self.closing}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "name": self.name,
            "description": self.description,
            "target_words": self.target_words,
            "headings": self.headings,
            "opening": self.opening,
            "closing": self.closing,
            "sections": [{"name": s.name, "guidance": s.guidance} for s in self.sections],
            "path": str(self.path) if self.path else "",
            "bundled": self.bundled,
        }


def check_name(name: str, what: str = "schema") -> str:
    """A lower-case file-safe name, or UsageError."""
    cleaned = name.strip().lower()
    if not NAME_RE.match(cleaned):
        raise UsageError(f"invalid {what} name {name!r}: use 1-60 letters, digits, - or _")
    return cleaned


def _text(data: dict[str, Any], key: str, path: Path, required: bool = True) -> str:
    """A non-empty string value, or UsageError naming the file and key."""
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise UsageError(f"{path}: {key!r} must be a non-empty string")
    return " ".join(value.split())


def _sections(raw: Any, path: Path) -> list[SchemaSection]:
    """The [[sections]] tables, checked."""
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{path}: needs at least one [[sections]] table with name and guidance")
    out = []
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict) or set(item) - {"name", "guidance"}:
            raise UsageError(f"{path}: section {i} must have only 'name' and 'guidance'")
        out.append(SchemaSection(_text(item, "name", path), _text(item, "guidance", path)))
    return out


def parse_schema(path: Path, bundled: bool = False) -> Schema:
    """Read and validate one schema file; UsageError with the file and key on problems."""
    data = overlay.read_toml(path)
    unknown = sorted(set(data) - ALLOWED_KEYS)
    if unknown:
        raise UsageError(f"{path}: unknown key {unknown[0]!r} "
                         f"(allowed: {', '.join(sorted(ALLOWED_KEYS))})")
    name = path.stem.lower()
    if data.get("name", name) != name:
        raise UsageError(f"{path}: name {data.get('name')!r} must match the file name {name!r}")
    words = data.get("target_words")
    if not isinstance(words, int) or isinstance(words, bool) or not 50 <= words <= 20000:
        raise UsageError(f"{path}: 'target_words' must be a whole number from 50 to 20000")
    headings = data.get("headings", True)
    if not isinstance(headings, bool):
        raise UsageError(f"{path}: 'headings' must be true or false")
    return Schema(name=name, description=_text(data, "description", path),
                  sections=_sections(data.get("sections"), path),
                  opening=_text(data, "opening", path), closing=_text(data, "closing", path),
                  target_words=words, headings=headings, path=path, bundled=bundled)


def user_schemas_dir(ws: Workspace) -> Path | None:
    """The `[paths] schemas_dir` folder, or None when only the bundled schemas are used."""
    value = ws.settings.paths.schemas_dir
    return ws.settings.resolve(value) if value else None


def list_schemas(ws: Workspace) -> list[Schema]:
    """Every schema by name: user files override bundled ones of the same name."""
    return overlay.list_all(BUNDLED_DIR, user_schemas_dir(ws), parse_schema)


def load_schema(ws: Workspace, name: str) -> Schema:
    """One schema by name (user folder first, then bundled); NotFoundError lists the known ones."""
    return overlay.get_one(BUNDLED_DIR, user_schemas_dir(ws), check_name(name), parse_schema, "schema")
