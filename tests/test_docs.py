"""Docs stay true: help texts, the README's commands and length, links, the generated configuration reference."""

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import typer

from nonseq.cli import app

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _commands() -> list[tuple[str, click.Command]]:
    root = typer.main.get_command(app)
    out = []
    for name, cmd in root.commands.items():
        out.append((name, cmd))
        if isinstance(cmd, click.Group):
            out.extend((f"{name} {sub}", subcmd) for sub, subcmd in cmd.commands.items())
    return out


def test_every_command_has_help_text() -> None:
    missing = [name for name, cmd in _commands() if not (cmd.help or "").strip()]
    assert missing == []


def test_readme_names_every_top_level_command() -> None:
    root = typer.main.get_command(app)
    missing = [name for name in root.commands if f"nonseq {name}" not in README]
    assert missing == []


def test_readme_starts_with_the_two_commands() -> None:
    blocks = README.split("```bash\n")
    assert blocks[1].startswith("scripts/install.sh && nonseq demo")
    assert blocks[2].startswith("scripts/install.sh --dev && python -m pytest -q")


# -- the README stays short, the links resolve, the configuration reference is generated ------------
REPO = Path(__file__).resolve().parent.parent
DOCS = sorted((REPO / "docs").glob("*.md"))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def relative_links(path: Path) -> list[str]:
    """The targets of the Markdown links in a file that point into the repository."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return [t for t in LINK.findall(text) if not re.match(r"[a-z][a-z0-9+.-]*:|#", t)]


def test_readme_stays_short() -> None:
    assert len(README.splitlines()) <= 220


def test_every_relative_link_points_to_a_file_that_exists() -> None:
    broken = [f"{page.relative_to(REPO)}: {target}" for page in [REPO / "README.md", *DOCS]
              for target in relative_links(page)
              if not (page.parent / target.split("#", 1)[0]).exists()]
    assert broken == []


def test_the_link_check_sees_a_broken_link(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("[ok](page.md#top) [web](https://example.org) [gone](docs/missing.md)\n"
                    "```\n[in code](not-a-link.md)\n```\n", encoding="utf-8")
    assert relative_links(page) == ["page.md#top", "docs/missing.md"]


def test_configuration_reference_is_what_the_generator_prints() -> None:
    from nonseq.config_reference import COMMAND, reference

    written = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert written == reference(), f"docs/configuration.md is out of date: run `{COMMAND}`"


def test_configuration_reference_lists_every_key_with_its_default_and_bounds() -> None:
    from nonseq.config import SECTIONS, Settings
    from nonseq.config_reference import reference

    text = reference()
    for name in SECTIONS:
        assert f"## [{name}]\n" in text
        for key in type(getattr(Settings(), name)).model_fields:
            assert f"| `{key}` |" in text.split(f"## [{name}]\n", 1)[1].split("\n## ", 1)[0], (name, key)
    fetch = text.split("## [fetch]\n", 1)[1].split("\n## ", 1)[0]
    assert "| `timeout` | number | `20.0` | > 0, ≤ 3600 |" in fetch
    assert "| `allow_hosts` | list of strings | `[]` |" in fetch
    backend = next(line for line in text.splitlines() if line.startswith("| `backend` | one of `\"llamacpp\"`"))
    assert "`\"ollama\"`" in backend and "`\"llamacpp\"` |" in backend


def test_the_generator_reads_a_section_it_has_never_seen() -> None:
    from typing import Literal

    from pydantic import Field, field_validator

    from nonseq.config import Section
    from nonseq.config_reference import section_reference

    class TeamSettings(Section):
        """[team] A section added later."""

        members: int = Field(3, ge=1, lt=100, description="People | roles")
        mode: Literal["solo", "team"] = Field("solo", description="How")

        @field_validator("members")
        @classmethod
        def _odd(cls, value: int) -> int:
            """Members must be odd."""
            return value

    table = section_reference("team", TeamSettings)
    assert table.startswith("## [team]\n\nA section added later.\n")
    assert "| `members` | integer | `3` | ≥ 1, < 100; Members must be odd | People \\| roles |" in table
    assert '| `mode` | one of `"solo"`, `"team"` | `"solo"` |  | How |' in table


def test_the_cli_never_imports_the_reference_generator() -> None:
    code = "import sys, nonseq.cli; print('nonseq.config_reference' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.stdout.strip() == "False", done.stderr


TEXT_FILES = (".py", ".md", ".toml", ".json", ".sh", ".txt", ".cfg", ".ini", ".yml", ".yaml")


def repository_text_files() -> list[Path]:
    """The repository's own text files (no hidden folders but .ci, no symlinked copies, no caches)."""
    found = []
    for top in sorted(REPO.iterdir()):
        if top.is_symlink() or top.name.startswith(".") and top.name != ".ci" or top.name.endswith(".egg-info"):
            continue
        for path in [top] if top.is_file() else sorted(top.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and (
                    path.suffix in TEXT_FILES or path.parent.name == ".ci"):
                found.append(path)
    return found


def test_no_session_numbers_in_the_repository() -> None:
    pattern = re.compile(r"\bstops? \d+\b", re.I)
    found = [f"{path.relative_to(REPO)}:{n}" for path in repository_text_files()
             for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             if pattern.search(line)]
    assert found == []
