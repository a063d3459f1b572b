"""Shared CLI helpers: the settings and API object of one invocation, and --config/--debug anywhere."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from nonseq.api import WorkspaceAPI
    from nonseq.config import Settings
    from nonseq.workspace import Workspace

class State:
    """Per-invocation state: the --config path, --debug, and the lazily built API object (it owns the lock)."""

    def __init__(self, config: str | None = None, debug: bool = False) -> None:
        self.config = config
        self.debug = debug
        self._settings: Settings | None = None
        self._api: WorkspaceAPI | None = None

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
    def api(self) -> WorkspaceAPI:
        """The Python API over this invocation's workspace (built once, closed when the command ends)."""
        if self._api is None:
            from nonseq.api import WorkspaceAPI

            self._api = WorkspaceAPI.from_settings(self.settings)
        return self._api

    @property
    def workspace(self) -> Workspace:
        """The service-level workspace of the API object."""
        return self.api.ws

    @property
    def opened(self) -> Workspace | None:
        """The workspace if this invocation built it, else None (nothing to close)."""
        return self._api.ws if self._api is not None else None

    def lock(self, action: str) -> Workspace:
        """Take the workspace lock until the command ends (the API's, re-entrant); the workspace, locked."""
        self.api.acquire(action)
        return self.workspace

    def reload(self, settings: Settings) -> None:
        """Use new settings from now on (the workspace of the old ones is closed)."""
        self.close()
        self._settings = settings

    def close(self) -> None:
        """Close the workspace if it was opened, then give back the workspace lock."""
        if self._api is not None:
            self._api.close()
            self._api = None


def state(ctx: typer.Context) -> State:
    """The State stored on the root context."""
    root = ctx.find_root()
    if not isinstance(root.obj, State):
        root.obj = State()
    return root.obj


def workspace(ctx: typer.Context) -> Workspace:
    """Shortcut: the workspace of this invocation."""
    return state(ctx).workspace


def api(ctx: typer.Context) -> WorkspaceAPI:
    """Shortcut: the API object of this invocation (its write methods lock for their call)."""
    return state(ctx).api


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
