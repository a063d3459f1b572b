"""Facts as people see them: one card per fact, the facts table, and the knowledge reports."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.table import Table

from nonseq.models import page_label
from nonseq.ui.console import console, safe, short

if TYPE_CHECKING:
    from nonseq.knowledge.extract import ExtractReport
    from nonseq.knowledge.records import FactRecord


def support_text(value: float | None) -> str:
    """A support score for people."""
    return "-" if value is None else f"{value:.2f}"


def fact_card(fact: FactRecord, heading: str = "") -> str:
    """A fact with its evidence, as rich markup (the review, `knowledge show` and the menu's view)."""
    where = f" · {safe(fact.topic_slug)}" if fact.topic_slug else ""
    lines = [f"[bold]{heading}#{fact.id}[/bold] {fact.status} · {fact.kind} · {safe(fact.category)}{where} · "
             f"support {support_text(fact.support)} {safe(' '.join(fact.flags))} · "
             f"{fact.sources} source(s) · {safe(fact.extractor)}",
             safe(fact.text)]
    if fact.original_text:
        lines.append(f"[dim]was:[/dim] {safe(fact.original_text)}")
    pages = f" ({page_label(fact.pages)})" if fact.pages else ""
    if fact.quote and fact.quote != fact.text:
        lines.append(f"[dim]quote:[/dim] “{safe(fact.quote)}”{pages}")
    where = f"{fact.title or fact.domain or '-'}{', ' + page_label(fact.pages) if fact.pages else ''}"
    lines.append(f"[dim]source:[/dim] {safe(where)} {safe(fact.url)} {fact.published[:10]}")
    lines += [f"[dim]also:[/dim] {safe(c.get('url', ''))} “{safe(short(c.get('quote', ''), 70))}”"
              for c in fact.corroborations]
    return "\n".join(lines)


def facts_table(facts: Sequence[FactRecord]) -> Table:
    """Facts: id, status, kind, topic, sources, support and text (cut to the terminal)."""
    table = Table(title=f"{len(facts)} fact(s)", title_justify="left", pad_edge=False)
    for col in ("id", "status", "kind", "topic", "src", "sup"):
        table.add_column(col, no_wrap=True, overflow="ellipsis")
    table.add_column("text", overflow="ellipsis", no_wrap=True, max_width=max(20, console.width - 60))
    for f in facts:
        table.add_row(str(f.id), f.status, f.kind, safe(short(f.topic_slug or "-", 16)), str(f.sources),
                      support_text(f.support), safe(f.text))
    return table


def print_extract_report(report: ExtractReport) -> None:
    """What fact extraction did."""
    for note in report.notes:
        console.print(f"[yellow]note[/yellow]: {safe(note)}", soft_wrap=True)
    console.print(f"{report.new} new fact(s) from {report.pages} page(s) "
                  f"({report.llm} by the LLM, {report.extractive} extractive); "
                  f"{report.merged} merged as corroboration, {report.dropped} dropped, "
                  f"{report.skipped} page(s) done before, {report.empty} yielded nothing "
                  f"in {report.seconds:.1f} s")
    if report.new:
        console.print(f"review them: nonseq knowledge review {report.topic_id}")


def print_hits(hits: Sequence[dict[str, Any]]) -> None:
    """Knowledge search results, best first."""
    if not hits:
        console.print("nothing found in the knowledge base")
    for h in hits:
        head = f"#{h['fact_id']} {h['kind']} {h['category']} {h['score']:.4f} "
        console.print(f"[bold]{safe(head)}[/bold]{safe(short(h['text'], max(20, 79 - len(head))))}")


def print_stats(data: dict[str, Any]) -> None:
    """Facts by status, kind, extractor and category, and the stored knowledge points."""
    console.print(f"facts: {data['facts']} ({data['corroborated']} corroborated)")
    for key in ("by_status", "by_kind", "by_extractor", "by_category", "points"):
        parts = ", ".join(f"{k} {v}" for k, v in sorted(data[key].items())) or "-"
        console.print(f"  {key.replace('by_', '')}: {safe(parts)}")
