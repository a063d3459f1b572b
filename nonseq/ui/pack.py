"""The context pack, every chunk's score at each step of the chain and why it was kept or dropped."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich import box
from rich.markup import escape
from rich.table import Table

from nonseq.models import DropReason, page_label
from nonseq.ui.console import console
from nonseq.writing.sources import file_path

if TYPE_CHECKING:
    from nonseq.models import Candidate, ContextPack
    from nonseq.pipeline.topics import Inspection
    from nonseq.writing.plan import WritePlan

STEPS = ("bm25", "trust", "dedup", "rerank", "norm", "final")
#: Terminals at least this wide get tables; narrower ones a stacked view.
WIDE = 130


def _fmt(value: float | None) -> str:
    """A score with three decimals, or a dash."""
    return "–" if value is None else f"{value:.3f}"


def _where(cand: Candidate) -> str:
    """Domain-less title (with its pages) and url or local path of a chunk, short."""
    chunk = cand.chunk
    pages = page_label(chunk.pages)
    title = f"{chunk.title}, {pages}" if chunk.title and pages else chunk.title
    location = file_path(chunk.url) or chunk.url
    label = title or location or chunk.text[:50]
    if location and title:
        label = f"{title[:70]} <{location}>"
    return f"{label} #{chunk.position}"


def _domain(cand: Candidate) -> str:
    """The domain column: a local file says so."""
    return "local file" if cand.chunk.is_local else cand.chunk.domain or "–"


def _row(rank: str, cand: Candidate) -> list[str]:
    """One table row: the candidate's scores at each step and its fate."""
    s = cand.scores
    pre = _fmt(s.get("bm25")) if "bm25" in s else (f"h {_fmt(s['hybrid'])}" if "hybrid" in s
                                                    else "–")
    status = f"dropped: {cand.dropped}" if cand.dropped else "kept"
    notes = "; ".join(cand.notes)
    if notes:
        status = f"{status} ({notes})"
    return [rank, str(cand.group), escape(_domain(cand)), escape(_where(cand)), pre,
            _fmt(s.get("trust")), _fmt(s.get("dedup")), _fmt(s.get("rerank")),
            _fmt(s.get("normalized")), _fmt(s.get("final")), escape(status)]


def _table(title: str, rows: list[list[str]]) -> Table:
    """A candidates table with the chain's columns (scores never wrap; text folds)."""
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("rank", no_wrap=True)
    table.add_column("group", no_wrap=True)
    table.add_column("domain", overflow="fold", ratio=1)
    table.add_column("url/title", overflow="fold", ratio=3)
    for col in ("bm25", "trust", "dedup", "rerank", "normalised", "final"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("kept/dropped (why)", overflow="fold", ratio=3)
    for row in rows:
        table.add_row(*row)
    return table


def _show(title: str, rows: list[list[str]]) -> None:
    """A table on wide terminals; on narrow ones three lines per chunk (where, scores, fate)."""
    if console.width >= WIDE:
        console.print(_table(title, rows))
        return
    console.print(f"[bold]{escape(title)}[/bold]")
    for row in rows:
        scores = "  ".join(f"{name} {value}" for name, value in zip(STEPS, row[4:10], strict=True))
        console.print(f"{row[0]:>3} {row[1]}  {row[2]}  {row[3]}", soft_wrap=True)
        console.print(f"    {scores}", soft_wrap=True)
        console.print(f"    {row[10]}", soft_wrap=True)


def _quality_line(quality: dict[str, Any]) -> str:
    """What the gate's quality check uses for this pack: backend and threshold."""
    if quality["threshold"] is None:
        return f"gate quality check: skipped (backend {quality['backend']}: no relevance scores)"
    return (f"gate quality check: backend {quality['backend']}, mean relevance of the top chunks "
            f"needs {quality['threshold']:g}")


def print_pack(pack: ContextPack, show_all: bool, quality: dict[str, Any]) -> None:
    """The pack as rich tables: chosen facts, background, voice, then what was dropped."""
    t = pack.topic
    console.print(f"[bold]#{t.id} {escape(t.title)}[/bold] ({t.slug}, {t.category})")
    console.print(f"query: {escape(pack.query)}")
    state = "OFFLINE (fallback)" if pack.reranker_offline else "ok"
    console.print(f"reranker: {pack.reranker} {escape(f'[{state}]')}")
    console.print(_quality_line(quality))
    for note in pack.notes:
        console.print(f"[yellow]note:[/yellow] {escape(note)}", soft_wrap=True)
    _show(f"Research facts: {len(pack.research)} selected",
          [_row(str(i), c) for i, c in enumerate(pack.research, 1)])
    if pack.evergreen:
        _show(f"Background (evergreen): {len(pack.evergreen)}",
              [_row(str(i), c) for i, c in enumerate(pack.evergreen, 1)])
    if pack.voice:
        voice = Table(title=f"Author voice (not reranked): {len(pack.voice)}", title_justify="left")
        for col in ("rank", "trigger cosine", "final", "text"):
            voice.add_column(col, overflow="fold")
        for i, c in enumerate(pack.voice, 1):
            voice.add_row(str(i), _fmt(c.scores.get("trigger")), _fmt(c.scores.get("final")),
                          escape(c.chunk.text[:80]))
        console.print(voice)
    chosen = {id(c) for c in (*pack.research, *pack.evergreen)}
    dropped = [c for c in pack.pool if id(c) not in chosen]
    early = [c for c in pack.discarded if show_all or c.drop is not DropReason.PRERANK_CUT]
    hidden = len(pack.discarded) - len(early)
    if dropped or early:
        _show(f"Dropped: {len(dropped)} after the rerank, {len(early)} before",
              [_row("–", c) for c in (*dropped, *early)])
    if hidden:
        console.print(f"{hidden} more below the pre-rank cut (--all shows them)")
    steps = ", ".join(f"{k} {v:.0f} ms" for k, v in pack.timings.items())
    console.print(f"timings: {steps}")


def print_inspection(inspection: Inspection, show_all: bool = False) -> None:
    """The pack of an inspection, or why there is none."""
    if inspection.pack is None:
        console.print(inspection.message, soft_wrap=True)
        return
    print_pack(inspection.pack, show_all, inspection.quality)
    if inspection.plan is not None:
        print_plan(inspection.plan)


def print_plan(plan: WritePlan) -> None:
    """The write plan: each section's planned source sentences, and what was left out and why."""
    console.print()
    console.print(escape(plan.to_markdown()), soft_wrap=True, highlight=False)
