"""Docs stay true: every command has help text and the README names every top-level command."""

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
