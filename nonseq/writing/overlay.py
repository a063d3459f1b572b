"""Named TOML files where a user folder overrides the bundled copies (personas, schemas)."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from nonseq.errors import NotFoundError, UsageError
from nonseq.text.files import read_text_file

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,59}$")
T = TypeVar("T")
#: parse(path, bundled) -> the parsed object
Parser = Callable[[Path, bool], T]


def read_toml(path: Path) -> dict:
    """A TOML file's table; UsageError naming the file when it cannot be read or parsed."""
    try:
        return tomllib.loads(read_text_file(path, what="a TOML text file"))
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML: {exc}") from None


def toml_files(folder: Path | None) -> dict[str, Path]:
    """A folder's *.toml files by lower-case name (empty for a missing folder)."""
    if folder is None or not folder.is_dir():
        return {}
    return {p.stem.lower(): p for p in sorted(folder.glob("*.toml")) if NAME_RE.match(p.stem.lower())}


def list_all(bundled_dir: Path, user_dir: Path | None, parse: Parser[T],
             skipped: list[str] | None = None) -> list[T]:
    """Every item by name; a user file overrides the bundled one (marked `overrides_bundled`).

    With a `skipped` list, a file that does not parse is left out and its one-line error added.
    """
    bundled, user = toml_files(bundled_dir), toml_files(user_dir)
    out = []
    for name in sorted(set(bundled) | set(user)):
        try:
            if name in user:
                item = parse(user[name], False)
                item.overrides_bundled = name in bundled  # type: ignore[attr-defined]
            else:
                item = parse(bundled[name], True)
        except UsageError as exc:
            if skipped is None:
                raise
            skipped.append(str(exc))
            continue
        out.append(item)
    return out


def get_one(bundled_dir: Path, user_dir: Path | None, key: str, parse: Parser[T], what: str) -> T:
    """One item by name (user folder first); NotFoundError lists the known names."""
    bundled, user = toml_files(bundled_dir), toml_files(user_dir)
    if key in user:
        return parse(user[key], False)
    if key in bundled:
        return parse(bundled[key], True)
    known = ", ".join(sorted(set(bundled) | set(user))) or "none"
    raise NotFoundError(f"unknown {what} {key!r} (known: {known})")
