"""A generic progress bar for counted work (pages read, facts imported, points re-embedded)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from nonseq.events import Event, Kind
from nonseq.ui.console import err_console, safe, short


class CountBar:
    """A bar fed by UPDATE events (done of total), showing the event's detail beside it."""

    def __init__(self, label: str, out: Console = err_console, transient: bool = True) -> None:
        self.bars = Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                             TimeRemainingColumn(), TextColumn("{task.fields[detail]}"), console=out,
                             transient=transient)
        self.task = self.bars.add_task(label, total=None, detail="")

    def __enter__(self) -> CountBar:
        self.bars.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bars.stop()

    def __call__(self, event: Event) -> None:
        """Move the bar to the event's count."""
        if event.kind is Kind.UPDATE:
            self.bars.update(self.task, completed=event.done or 0, total=event.total or None,
                             detail=safe(short(event.detail, 40)))
        elif event.kind is Kind.NOTE:
            self.bars.console.print(safe(event.detail))
