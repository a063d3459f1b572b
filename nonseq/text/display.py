"""Characters never shown raw on a terminal: C0/C1 controls (ESC, BEL, CSI...) and bidi controls.

A right-to-left override (U+202E) in a PDF's /Title or a file name turns "evil\u202etxt.pdf" into
"evilfdp.txt" on screen; ESC starts a terminal command. Newline and tab are kept.
"""

from __future__ import annotations

import re

#: C0 controls (newline, tab kept), DEL, C1 controls, and the bidi embedding, override and isolate marks.
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: What print_json escapes (json.dumps escapes C0 itself): DEL, C1 and the bidi marks.
UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text: object) -> str:
    """Text safe to print: every unsafe character replaced by U+FFFD."""
    return UNSAFE.sub("\ufffd", str(text))


def stripped(text: str) -> str:
    """Text without its unsafe characters (for titles and names kept in data)."""
    return UNSAFE.sub("", text)
