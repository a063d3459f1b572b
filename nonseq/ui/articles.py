"""The articles table (`nonseq articles list` and the Articles menu)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from nonseq.ui.console import safe, wide


def stage_of(row: dict[str, Any]) -> str:
    """'draft' or 'article'."""
    return "draft" if row.get("status") == "draft" else "article"


def articles_table(rows: Sequence[dict[str, Any]], title: str) -> Table:
    """File, title ("(draft) " first for a draft), date, cited, unsupported; persona, schema and sources
    where there is room."""
    table = Table(title=title, title_justify="left")
    # file and title fold but never vanish; the extras only where there is room.
    table.add_column("file", overflow="fold", min_width=14)
    table.add_column("title", overflow="fold", min_width=14)
    extras = ("date", "persona", "schema", "sources") if wide() else ("date",)
    for col in (*extras, "cited", "unsupported"):
        table.add_column(col, overflow="fold")
    for r in rows:
        if "error" in r:
            table.add_row(safe(r["file"]), f"[red]{safe(r['error'])}[/red]", *[""] * (len(extras) + 2))
            continue
        shown = {"date": str(r.get("date", ""))[:10], "persona": str(r.get("persona", "")),
                 "schema": str(r.get("schema", "")), "sources": str(r.get("sources", ""))}
        title = ("(draft) " if stage_of(r) == "draft" else "") + str(r.get("title", ""))
        table.add_row(safe(r["file"]), safe(title), *[safe(shown[c]) for c in extras],
                      str(r.get("citations")), f"{r.get('unsupported')}/{r.get('sentences')}")
    return table
