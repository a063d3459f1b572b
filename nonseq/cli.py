"""The `nonseq` command line: a thin typer layer over the services."""

from __future__ import annotations

import os
import sys
from typing import Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from nonseq import __version__
from nonseq.commands import _common
from nonseq.errors import NonseqError, machine_fault

#: The exit code after Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130


class NonseqGroup(TyperGroup):
    """Root group: NonseqError becomes one red line and a non-zero exit; Ctrl-C exits 130.

    `ctx` is click's Context as typer ships it (vendored since typer 0.2x): typed Any here.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse the root options; --config and --debug may also follow the subcommand."""
        return super().parse_args(ctx, _common.hoist_global_options(list(args)))

    def invoke(self, ctx: Any) -> Any:
        """Run the command; turn expected errors into one-line messages."""
        try:
            return super().invoke(ctx)
        except NonseqError as exc:
            if isinstance(ctx.obj, _common.State) and ctx.obj.debug:
                raise
            from nonseq.ui.console import err_console, safe

            err_console.print(f"[red]error:[/red] {safe(exc)}", soft_wrap=True)
            raise typer.Exit(exc.exit_code) from None
        except KeyboardInterrupt:
            from nonseq.ui.console import err_console

            err_console.print("[yellow]interrupted[/yellow]: progress so far is saved; "
                              "run the same command again to resume")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:  # a full disk or a damaged database: one line (anything else is re-raised)
            self._fault(ctx, exc)
        finally:
            if isinstance(ctx.obj, _common.State):
                ctx.obj.close()

    @staticmethod
    def _fault(ctx: Any, exc: Exception) -> None:
        """A full disk, a damaged database or a read-only file: one line and exit 1 (re-raised otherwise)."""
        state = ctx.obj if isinstance(ctx.obj, _common.State) else None
        fault = machine_fault(exc, state.data_dir if state else "")
        if fault is None or (state and state.debug):
            raise exc
        from nonseq.ui.console import err_console, safe

        err_console.print(f"[red]error:[/red] {safe(fault)}", soft_wrap=True)
        raise typer.Exit(fault.exit_code) from None

    def list_commands(self, ctx: Any) -> list[str]:
        """Commands in the order they were added (the order of the workflow)."""
        return list(self.commands)


app = typer.Typer(
    cls=NonseqGroup,
    help="NonSequitur: turn a queue of topics into researched, grounded articles.",
    invoke_without_command=True,  # bare `nonseq`: the menus in a terminal, else the help
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    """Print the version and exit."""
    if value:
        typer.echo(f"nonseq {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    config: Annotated[str | None, typer.Option(
        "--config", metavar="PATH", help="config.toml to use (else $NONSEQ_CONFIG, else ./config.toml)")] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors")] = False,
    version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version and exit")] = False,
) -> None:
    """NonSequitur: turn a queue of topics into researched, grounded articles."""
    ctx.obj = _common.State(config=config, debug=debug)
    if ctx.invoked_subcommand is None:
        _menu_or_help(ctx)


def _menu_or_help(ctx: Any) -> None:
    """Open the main menu in a terminal; without one print the help and exit 0 (never wait)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        typer.echo(ctx.get_help())
        raise typer.Exit(0)
    from nonseq.menus.main_menu import run

    run(_common.state(ctx))
    raise typer.Exit(0)


@app.command("menu")
def menu(ctx: typer.Context) -> None:
    """Open the interactive menus (the same as `nonseq` alone in a terminal)."""
    _menu_or_help(ctx.find_root())


@app.command("mcp")
def mcp(
    ctx: typer.Context,
    allow_writes: Annotated[bool, typer.Option(
        "--allow-writes", help="Let agents add topics and propose facts (never promote, edit or delete)")] = False,
) -> None:
    """Serve the knowledge base, queue and articles to AI agents over MCP on stdio (docs/mcp.md)."""
    from nonseq.mcp_server import serve

    serve(_common.state(ctx).settings.source, allow_writes=allow_writes)


def _register() -> None:
    """Attach every command group, in workflow order (modules import their services lazily)."""
    from nonseq.commands import (
        articles_cmd,
        config_cmd,
        db_cmd,
        doctor_cmd,
        domains_cmd,
        gate_cmd,
        inspect_cmd,
        knowledge_cmd,
        night_cmd,
        persona_cmd,
        queue_cmd,
        research_cmd,
        schema_cmd,
        searxng_cmd,
        store_cmd,
        write_cmd,
    )

    for module in (queue_cmd, research_cmd, inspect_cmd, gate_cmd, write_cmd, knowledge_cmd, night_cmd, articles_cmd,
                   persona_cmd, schema_cmd, domains_cmd, searxng_cmd, store_cmd, db_cmd, doctor_cmd, config_cmd):
        module.register(app)


_register()


def main() -> None:
    """Entry point of the `nonseq` script."""
    try:
        app()
    except SystemExit as done:
        if done.code == EXIT_INTERRUPTED:
            _exit_at_once()
        raise
    except KeyboardInterrupt:  # pragma: no cover - interrupted before a command started
        sys.exit(EXIT_INTERRUPTED)


def _exit_at_once() -> NoReturn:
    """Exit 130 without tearing the loaded models down: after Ctrl-C the command has already saved
    its work and closed the workspace, and the teardown would hold the prompt back 1-2 s more."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)
