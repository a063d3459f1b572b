"""`nonseq searxng start|stop|status`: a local SearXNG on 127.0.0.1 in one command."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from nonseq.commands._common import state
from nonseq.ui import console as out
from nonseq.ui.console import print_json

if TYPE_CHECKING:
    from nonseq.research.searxng_local import LocalSearxng

HELP = (
    "Run a local SearXNG (web search) on 127.0.0.1 for nonseq; needs "
    "pip install 'nonseq[searxng]'.\n\n"
    "Its settings.yml (in the workspace data dir, kept between runs) is generated so that nonseq "
    "can use it: JSON output on, limiter off, a random secret key, nothing downloaded at start-up."
    "\n\n"
    "Where people get stuck with their own SearXNG: HTTP 403 means `json` is missing from "
    "`search.formats` in settings.yml; HTTP 429 means its limiter is on (set "
    "`server.limiter: false`); engines reported as not answering were suspended after CAPTCHAs "
    "or errors and come back after a while (see its log)."
)

searxng_app = typer.Typer(help=HELP, no_args_is_help=True)


def _local(ctx: typer.Context, port: int | None = None) -> LocalSearxng:
    """The local instance of this workspace: on --port, else the port it was started on, else config."""
    from nonseq.research.searxng_local import LocalSearxng

    settings = state(ctx).settings
    local = LocalSearxng(settings.data_dir, port or settings.searxng.port)
    if port is None:
        local.port = local.recorded_port() or local.port
    return local


@searxng_app.command("start")
def start(
    ctx: typer.Context,
    port: Annotated[int | None, typer.Option(
        "--port", "-p", help="Port on 127.0.0.1 (default: searxng.port in config.toml)")] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for it")] = 60.0,
    reset: Annotated[bool, typer.Option(
        "--reset", help="Write a fresh settings.yml (new secret key, default engines)")] = False,
) -> None:
    """Start SearXNG in the background and wait until it answers; prints its URL."""
    local = _local(ctx, port)
    configured = state(ctx).settings.searxng.url.rstrip("/")
    if local.pid() is not None and local.answering():
        out.console.print(f"SearXNG is already running at {local.url} (pid {local.pid()})")
        return
    if reset:
        local.write_settings()
    url = local.start(timeout=timeout)
    out.console.print(f"SearXNG is running at {url} (pid {local.pid()}); log: {local.log_path}",
                  soft_wrap=True)
    if configured != url:
        out.err_console.print(f"[yellow]note[/yellow]: searxng.url is {configured}; set it to {url}"
                          " (or NONSEQ_SEARXNG__URL) so that research uses this instance",
                          soft_wrap=True)


@searxng_app.command("stop")
def stop(
    ctx: typer.Context,
    port: Annotated[int | None, typer.Option("--port", "-p", help="Port it runs on")] = None,
) -> None:
    """Stop the SearXNG started by `nonseq searxng start`."""
    pid = _local(ctx, port).stop()
    out.console.print(f"stopped SearXNG (pid {pid})" if pid else "SearXNG is not running")


@searxng_app.command("status")
def status(
    ctx: typer.Context,
    port: Annotated[int | None, typer.Option("--port", "-p", help="Port it runs on")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Say whether the local SearXNG runs and answers, and where its files are (exit 1 when down)."""
    local = _local(ctx, port)
    found = local.status()
    foreign = not found.running and local.answering()
    if as_json:
        print_json(found.to_dict())
    elif found.running:
        answer = "answering" if found.answering else "[red]not answering[/red]"
        out.console.print(f"running at {found.url} (pid {found.pid}), {answer}")
    elif foreign:
        out.console.print(f"not started by nonseq, but something answers at {found.url}")
    else:
        out.console.print(f"not running (start it with `nonseq searxng start`; URL would be {found.url})",
                      soft_wrap=True)
    if not as_json:
        out.console.print(f"settings: {found.settings}\nlog: {found.log}", soft_wrap=True)
    if not (found.answering or foreign):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Attach the searxng group to the root app."""
    app.add_typer(searxng_app, name="searxng")
