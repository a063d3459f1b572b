"""Shared CLI helpers: the settings/workspace from the context, consoles, JSON output."""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.console import Console

from nonseq.config import Settings, load_settings

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


class State:
    """Per-invocation state: the --config path, --debug, and the lazily built workspace."""

    def __init__(self, config: str | None = None, debug: bool = False) -> None:
        self.config = config
        self.debug = debug
        self._settings: Settings | None = None
        self._workspace: Any = None

    @property
    def settings(self) -> Settings:
        """The validated settings (loaded once)."""
        if self._settings is None:
            self._settings = load_settings(self.config)
        return self._settings

    @property
    def workspace(self) -> Any:
        """The workspace (built once, closed when the command ends)."""
        if self._workspace is None:
            from nonseq.workspace import Workspace

            self._workspace = Workspace(self.settings)
        return self._workspace

    def close(self) -> None:
        """Close the workspace if it was opened."""
        if self._workspace is not None:
            self._workspace.close()
            self._workspace = None


def state(ctx: typer.Context) -> State:
    """The State stored on the root context."""
    root = ctx.find_root()
    if not isinstance(root.obj, State):
        root.obj = State()
    return root.obj


def workspace(ctx: typer.Context) -> Any:
    """Shortcut: the workspace of this invocation."""
    return state(ctx).workspace


def print_json(data: Any) -> None:
    """Print one JSON document on stdout (no rich markup or wrapping)."""
    typer.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
