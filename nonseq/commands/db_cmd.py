"""`nonseq db status|migrate`: the state database — its schema, its tables, a move into PostgreSQL."""

from __future__ import annotations

from typing import Annotated

import typer

from nonseq.commands._common import locked_workspace, workspace
from nonseq.ui import console as out
from nonseq.ui.console import print_json

db_app = typer.Typer(help="The state database: status, and moving a workspace into PostgreSQL.",
                     no_args_is_help=True)


@db_app.command("status")
def status(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Where the state is, its schema version and the rows in each table."""
    from nonseq.db import MIGRATIONS, table_counts

    ws = workspace(ctx)
    names = [row[0] for row in ws.db.execute("SELECT name FROM schema_migrations ORDER BY name")]
    tables = table_counts(ws.db)
    data = {"database": ws.database, "schema": names[-1] if names else "", "known": MIGRATIONS[-1][0],
            "tables": tables}
    if as_json:
        print_json(data)
        return
    out.console.print(f"database {data['database']}, schema {data['schema']}")
    for table, count in tables.items():
        out.console.print(f"  {table:<18} {count}")


@db_app.command("migrate")
def migrate(
    ctx: typer.Context,
    to: Annotated[str, typer.Option("--to", help="postgresql://user@host:port/db (password: PGPASSWORD or "
                                               "~/.pgpass)")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON")] = False,
) -> None:
    """Copy this SQLite workspace into an empty PostgreSQL database; counts every table before and after."""
    from nonseq.db import copy_state, open_database, table_counts
    from nonseq.errors import UsageError

    if not to.startswith(("postgresql://", "postgres://")):
        raise UsageError(f"--to wants a postgresql:// URL (got {to.split('://')[0]}://…)")
    ws = locked_workspace(ctx, "db migrate")
    if ws.team:
        raise UsageError("[database] url is already PostgreSQL: `db migrate` copies a SQLite workspace")
    before = table_counts(ws.db)
    target = open_database(to, ws.db_path)
    try:
        copy_state(ws.db, target)
        after = table_counts(target)
    finally:
        target.close()
    lost = {t: before[t] - after[t] for t in before if before[t] != after[t]}
    if as_json:
        print_json({"before": before, "after": after, "lost": lost})
    else:
        out.console.print(f"{'table':<18} {'SQLite':>8} {'PostgreSQL':>11}")
        for table in before:
            out.console.print(f"{table:<18} {before[table]:>8} {after[table]:>11}")
        out.console.print("every row copied: set [database] url (or NONSEQ_DATABASE__URL) to the new database"
                          if not lost else f"rows missing after the copy: {lost}")
    if lost:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Attach the db group to the root app."""
    app.add_typer(db_app, name="db")
