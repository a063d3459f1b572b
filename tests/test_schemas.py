"""Tests for nonseq.writing.schemas and `nonseq schema`: bundled schemas, user overrides, validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nonseq.config import load_settings
from nonseq.errors import NotFoundError, UsageError
from nonseq.workspace import Workspace
from nonseq.writing.schemas import BUNDLED_DIR, list_schemas, load_schema, parse_schema

REPO_DATA = Path(__file__).resolve().parents[1] / "data" / "schemas"

CUSTOM = """description = "A short local news item."
target_words = 300
opening = "Start with the fact."
closing = "Stop."
[[sections]]
name = "Only part"
guidance = "Say it once."
"""


def _ws_with_schemas(tmp: Path, files: dict[str, str]) -> Workspace:
    """A workspace whose config points [paths] schemas_dir at a folder holding files."""
    folder = tmp / "my-schemas"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    (tmp / "config.toml").write_text('[paths]\nschemas_dir = "my-schemas"\n', encoding="utf-8")
    return Workspace(load_settings())


@pytest.mark.parametrize("name", ["news", "explainer", "opinion", "how-to"])
def test_bundled_schemas(name: str) -> None:
    """The four bundled schemas parse and render sections in order with both rules."""
    schema = parse_schema(BUNDLED_DIR / f"{name}.toml", bundled=True)
    assert schema.name == name and 300 <= schema.target_words <= 2000
    assert len(schema.sections) >= 4 and all(s.guidance for s in schema.sections)
    text = schema.render()
    positions = [text.index(f"{i}. {s.name}:") for i, s in enumerate(schema.sections, 1)]
    assert positions == sorted(positions)
    assert text.index("Opening:") < positions[0] < positions[-1] < text.index("Closing:")
    assert f"about {schema.target_words} words" in text


def test_data_symlink_points_at_the_package() -> None:
    """The repo's data/schemas is the packaged nonseq/data/schemas."""
    assert REPO_DATA.resolve() == BUNDLED_DIR


def test_list_and_load_bundled(ws) -> None:  # noqa: ANN001
    """Without a schemas_dir the bundled schemas are the whole list."""
    names = [s.name for s in list_schemas(ws)]
    assert {"news", "explainer", "opinion", "how-to"} <= set(names)
    assert load_schema(ws, "News").bundled
    with pytest.raises(NotFoundError, match=r"unknown schema 'essay' \(known: .*news"):
        load_schema(ws, "essay")


def test_user_dir_overrides_by_name(isolated: Path) -> None:
    """A file in schemas_dir replaces the bundled schema of that name and may add new ones."""
    ws = _ws_with_schemas(isolated, {"news.toml": CUSTOM, "brief.toml": CUSTOM})
    news = load_schema(ws, "news")
    assert not news.bundled and news.target_words == 300 and news.sections[0].name == "Only part"
    listed = {s.name: s for s in list_schemas(ws)}
    assert listed["news"].overrides_bundled and not listed["brief"].overrides_bundled
    assert listed["opinion"].bundled


@pytest.mark.parametrize(("content", "message"), [
    (CUSTOM.replace("target_words = 300", "target_words = 'many'"), "target_words"),
    (CUSTOM.replace("target_words = 300", "target_words = 5"), "target_words"),
    (CUSTOM.split("[[sections]]")[0], "at least one \\[\\[sections\\]\\]"),
    ("tone = 'x'\n" + CUSTOM, "unknown key 'tone'"),
    (CUSTOM + "tone = 'x'\n", "section 1 must have only"),
    (CUSTOM.replace('closing = "Stop."', 'closing = ""'), "'closing' must be"),
    ("name = 'other'\n" + CUSTOM, "must match"),
    (CUSTOM + "[[sections]]\nname = 'x'\n", "'guidance' must be"),
])
def test_invalid_schema_files(isolated: Path, content: str, message: str) -> None:
    """Broken schema files give one-line errors naming the file."""
    ws = _ws_with_schemas(isolated, {"bad.toml": content})
    with pytest.raises(UsageError, match=message) as err:
        load_schema(ws, "bad")
    assert "\n" not in str(err.value) and "bad.toml" in str(err.value)


def test_cli(cli) -> None:  # noqa: ANN001
    """schema list/show with JSON, and one-line errors with exit codes."""
    rows = json.loads(cli("schema", "list", "--json").stdout)
    assert {"news", "explainer", "opinion", "how-to"} <= {r["name"] for r in rows}
    assert "how-to" in cli("schema", "list").stdout
    shown = cli("schema", "show", "opinion").stdout
    assert "The best objection" in shown and "Closing:" in shown
    data = json.loads(cli("schema", "show", "news", "--json").stdout)
    assert data["sections"][0]["name"] == "Lede" and data["headings"] is False
    result = cli("schema", "show", "essay", code=1)
    assert result.stderr.startswith("error: unknown schema 'essay'")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "invalid schema name" in cli("schema", "show", "a/b", code=2).stderr
