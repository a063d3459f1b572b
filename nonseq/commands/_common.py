"""Shared CLI helpers: the settings and workspace of one invocation, and --config/--debug anywhere."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from nonseq.config import Settings
    from nonseq.workspace import Workspace

class State:
    """Per-invocation state: the --config path, --debug, and the lazily built workspace."""

    def __init__(self, config: str | None = None, debug: bool = False) -> None:
        self.config = config
        self.debug = debug
        self._settings: Settings | None = None
        self._workspace: Workspace | None = None
        self._locked: Path | None = None
        self._team_locked = False  # the database's lock goes with its connection

    @property
    def data_dir(self) -> str:
        """The workspace folder, once the settings are loaded (else empty)."""
        return str(self._settings.data_dir) if self._settings is not None else ""

    @property
    def settings(self) -> Settings:
        """The validated settings (loaded once)."""
        if self._settings is None:
            from nonseq.config import load_settings

            self._settings = load_settings(self.config)
        return self._settings

    @property
    def workspace(self) -> Workspace:
        """The workspace (built once, closed when the command ends)."""
        if self._workspace is None:
            from nonseq.workspace import Workspace

            self._workspace = Workspace(self.settings)
        return self._workspace

    def lock(self, action: str) -> Workspace:
        """Take the workspace lock until the command ends; the workspace, locked.

        On a PostgreSQL database (a team) the lock is the database's maintenance lock instead: shared
        by workers and editors, held alone by maintenance.
        """
        if not self._team_locked and self.workspace.team:
            from nonseq.config import reviewer_name, worker_name
            from nonseq.db import team_lock

            who = worker_name(self.settings) if action == "night" else reviewer_name(self.settings)
            team_lock(self.workspace.db, action, who)
            self._team_locked = True
        if self._locked is None and not self._team_locked:
            from nonseq.lock import acquire

            acquire(self.settings.data_dir, action)
            self._locked = self.settings.data_dir
        return self.workspace

    def close(self) -> None:
        """Close the workspace if it was opened, then give back the workspace lock."""
        try:
            if self._workspace is not None:
                self._workspace.close()
                self._workspace = None
        finally:
            self._team_locked = False
            if self._locked is not None:
                from nonseq.lock import release

                release(self._locked)
                self._locked = None


def state(ctx: typer.Context) -> State:
    """The State stored on the root context."""
    root = ctx.find_root()
    if not isinstance(root.obj, State):
        root.obj = State()
    return root.obj


def workspace(ctx: typer.Context) -> Workspace:
    """Shortcut: the workspace of this invocation."""
    return state(ctx).workspace


def locked_workspace(ctx: typer.Context, action: str) -> Workspace:
    """The workspace, after taking its lock for the rest of the command (refuses at once, exit 75).

    Call it first in every command that changes the workspace, before any state change.
    """
    return state(ctx).lock(action)


# -- --config and --debug on every command -------------------------------------------------------
#: Root options every command accepts, also after the subcommand (`nonseq queue list --config c`).
GLOBAL_FLAGS, GLOBAL_VALUES = ("--debug",), ("--config",)


def hoist_global_options(args: list[str]) -> list[str]:
    """Move --config PATH / --config=PATH / --debug given after the subcommand to the front."""
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        name = arg.split("=", 1)[0]
        if arg in GLOBAL_FLAGS or (name in GLOBAL_VALUES and "=" in arg):
            front.append(arg)
        elif arg in GLOBAL_VALUES and i + 1 < len(args):
            front.extend(args[i:i + 2])
            i += 1
        else:
            rest.append(arg)
        i += 1
    return front + rest
