"""`nonseq domains list|trust|block|check`: the trusted and blocked domain lists."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from nonseq.commands._common import locked_workspace, state
from nonseq.errors import UsageError
from nonseq.ui import console as out
from nonseq.ui.console import print_json

if TYPE_CHECKING:
    from nonseq.research.domains import DomainInfo, DomainRegistry

domains_app = typer.Typer(
    help="Trusted and blocked domains. Trust boosts retrieval; blocked domains are never fetched. "
         "Your additions live in the workspace data dir and override the shipped lists.",
    no_args_is_help=True,
)


def _user_dir(ctx: typer.Context) -> Path:
    """The folder of the user's domain files (the workspace data dir)."""
    return state(ctx).settings.data_dir


def _registry(ctx: typer.Context) -> DomainRegistry:
    """The shipped lists merged with the user's files."""
    from nonseq.research.domains import load_default

    return load_default(_user_dir(ctx))


def _entry_dict(entry: DomainInfo, registry: DomainRegistry) -> dict[str, object]:
    """A JSON-ready entry with its origin (shipped or user)."""
    data: dict[str, object] = {"domain": entry.domain, "origin": registry.origin(entry.domain)}
    if entry.blocked:
        data["reason"] = entry.reason
    else:
        data.update(type=entry.type, boost=entry.boost, categories=list(entry.categories))
    return data


@domains_app.command("list")
def list_(
    ctx: typer.Context,
    blocked: Annotated[bool, typer.Option("--blocked", help="List blocked domains instead")] = False,
    category: Annotated[str | None, typer.Option(
        "--category", "-c", help="Only trusted domains of this category")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """List trusted domains (highest boost first within a category), or blocked ones."""
    from rich.markup import escape
    from rich.table import Table

    from nonseq.research.domains import CATEGORIES

    registry = _registry(ctx)
    if blocked and category:
        raise UsageError("--category applies to trusted domains (blocked ones have none)")
    if category and category not in CATEGORIES:
        raise UsageError(f"unknown category {category!r}: use one of {', '.join(CATEGORIES)}")
    if blocked:
        entries = registry.blocked_entries()
    else:
        entries = registry.by_category(category) if category else registry.trusted_entries()
    if as_json:
        print_json([_entry_dict(e, registry) for e in entries])
        return
    kind = "blocked" if blocked else "trusted"
    table = Table(title=f"{len(entries)} {kind} domain(s)" + (f" in {category}" if category else ""))
    columns = ("domain", "reason", "origin") if blocked else (
        "domain", "type", "boost", "categories", "origin")
    for col in columns:
        table.add_column(col, overflow="fold")
    for e in entries:
        origin = registry.origin(e.domain) or ""
        if blocked:
            table.add_row(e.domain, escape(e.reason), origin)
        else:
            table.add_row(e.domain, e.type, f"{e.boost:.2f}", ", ".join(e.categories), origin)
    out.console.print(table)


@domains_app.command("trust")
def trust(
    ctx: typer.Context,
    domain: Annotated[str, typer.Argument(help="Domain or URL (example.com covers its subdomains)")],
    type_: Annotated[str, typer.Option(
        "--type", "-t", help="press, trusted, community, academic, official or aggregator")],
    boost: Annotated[float, typer.Option("--boost", "-b", help="Retrieval boost, 0.50 to 0.95")],
    category: Annotated[list[str], typer.Option(
        "--category", "-c", help="A category it is trusted for (repeatable)")],
) -> None:
    """Trust a domain (in your list; it also leaves your blocklist)."""
    from rich.markup import escape

    from nonseq.research.domains import TRUSTED_FILE

    locked_workspace(ctx, "domains trust")
    entry = _registry(ctx).add_trusted(domain, type_, boost, category, _user_dir(ctx))
    where = escape(str(_user_dir(ctx) / TRUSTED_FILE))
    out.console.print(f"trusted {entry.domain}: {entry.type}, boost {entry.boost:.2f}, "
                  f"{', '.join(entry.categories)} (in {where})", soft_wrap=True)


@domains_app.command("block")
def block(
    ctx: typer.Context,
    domain: Annotated[str, typer.Argument(help="Domain or URL (covers its subdomains)")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why it is blocked")],
) -> None:
    """Block a domain: its pages are never fetched (it also leaves your trust list)."""
    from rich.markup import escape

    from nonseq.research.domains import BLOCKED_FILE

    locked_workspace(ctx, "domains block")
    entry = _registry(ctx).add_blocked(domain, reason, _user_dir(ctx))
    where = escape(str(_user_dir(ctx) / BLOCKED_FILE))
    out.console.print(f"blocked {entry.domain}: {escape(entry.reason)} (in {where})", soft_wrap=True)


@domains_app.command("check")
def check(
    ctx: typer.Context,
    url: Annotated[str, typer.Argument(help="A URL or host")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Say how a URL's domain is treated: trust type, boost, blocked and why."""
    from rich.markup import escape

    from nonseq.research.domains import normalize_host

    registry = _registry(ctx)
    host = normalize_host(url)
    if not host:
        raise UsageError(f"no host in {url!r}")
    info = registry.lookup(url)
    data = {"host": host, "matched": info.domain if info.known else None,
            "origin": registry.origin(info.domain) if info.known else None,
            "type": info.type, "boost": info.boost, "categories": list(info.categories),
            "blocked": info.blocked, "reason": info.reason}
    if as_json:
        print_json(data)
        return
    via = f" (via {info.domain}, {data['origin']} list)" if info.known else ""
    if info.blocked:
        out.console.print(f"{host}: [red]blocked[/red]{via}: {escape(info.reason)}", soft_wrap=True)
    elif info.known:
        out.console.print(f"{host}: {info.type}, boost {info.boost:.2f}, "
                      f"{', '.join(info.categories)}{via}; not blocked", soft_wrap=True)
    else:
        out.console.print(f"{host}: unknown (boost 0.00); not blocked", soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Attach the domains group to the root app."""
    app.add_typer(domains_app, name="domains")
