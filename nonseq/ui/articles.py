"""The articles table and an article's review (`nonseq articles list` and `review`, and the Articles menu)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from nonseq.text.sentences import split
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


def review_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """An article's review as lines: each item (one sentence, or two of one page kept together), its source
    sentence(s) and the words the writer wrote in; last, how many were restated and how many have words
    written in (the ones listed first)."""
    lines = []
    for k, row in enumerate(rows, 1):
        lines.append(f"{k}. [{row['made']}] {row['sentence']}")
        lines += [f"     [{src['n']}] {src['text']}" for src in row["sources"]]
        if row.get("written_in"):  # an article written before the field was kept has none
            lines.append(f"     written in: {' | '.join(row['written_in'])}")
    restated = sum(r["made"] == "restated" for r in rows)
    edited = sum(r["made"] != "restated" and bool(r.get("written_in")) for r in rows)
    sentences = sum(max(1, len(split(r["sentence"]))) for r in rows)  # as the front matter counts them
    lines.append(f"{len(rows)} item(s), {sentences} sentence(s): {restated} restated, then {edited} with words "
                 "written in (listed first)")
    return lines
