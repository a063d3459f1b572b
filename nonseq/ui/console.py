"""The consoles every view prints to, and the two rules of printing user text: escape it, strip controls.

The consoles are made on first use (importing rich costs start-up time that `nonseq --help` does
not need to pay): modules imported at start-up (commands/) use them as `out.console`, after
`from nonseq.ui import console as out`; the views import `console` itself.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from nonseq.text.display import UNSAFE, UNSAFE_IN_JSON

if TYPE_CHECKING:
    from rich.console import Console

#: Terminal columns from which lists show their optional columns too (ids and titles always).
WIDE_COLUMNS = 110

#: Controls and bidi marks (nonseq.text.display); DEL, C1 (CSI is \x9b) and bidi marks json.dumps leaves raw.
_CONTROLS, _C1 = UNSAFE, UNSAFE_IN_JSON


def __getattr__(name: str) -> Console:
    """`console` and `err_console`, made on first use and kept (PEP 562)."""
    if name not in ("console", "err_console"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    made: Console = globals().get(name) or _safe_console_class()(highlight=False, stderr=name == "err_console")
    globals()[name] = made
    return made


def _safe_console_class() -> type[Console]:
    """A rich Console whose strings lose their control characters before they are rendered (the net under safe())."""
    from rich.console import Console

    class SafeConsole(Console):
        """Console.render_str with ESC, BEL, CSI and the other controls shown as \ufffd (newline and tab kept)."""

        def render_str(self, text: str, **kwargs: Any) -> Any:
            """Render text with its control characters replaced."""
            return super().render_str(_CONTROLS.sub("\ufffd", text), **kwargs)

    return SafeConsole


def safe(text: object) -> str:
    """User text for rich output: markup escaped, control characters (ESC, BEL...) shown as �."""
    from rich.markup import escape

    return escape(_CONTROLS.sub("\ufffd", str(text)))


def short(text: str, width: int = 60) -> str:
    """One line of at most width characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def print_json(data: Any) -> None:
    """Print one JSON document on stdout (no rich markup or wrapping)."""
    import typer

    text = json.dumps(data, indent=2, ensure_ascii=False, default=str)  # C0 controls are escaped by json
    typer.echo(_C1.sub(lambda m: f"\\u{ord(m.group()):04x}", text))


def plain(text: str) -> str:
    """Text for a plain (not rich) print: control characters shown as \ufffd, newlines and tabs kept."""
    return _CONTROLS.sub("\ufffd", text)


def wide() -> bool:
    """True when the terminal has room for the optional columns."""
    return __getattr__("console").width >= WIDE_COLUMNS
