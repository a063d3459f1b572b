"""The one reader of the user's own files: a size limit checked first, text detection, BOM decoding.

Research --file, config.toml, personas, schemas (and knowledge imports) all read through
`read_text_file`, so a huge, binary or oddly encoded file gets the same one-line refusal everywhere.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from nonseq.errors import UsageError
from nonseq.text.display import shown

#: Largest user file read when the caller names no limit (config, personas, schemas).
DEFAULT_MAX_BYTES = 10_000_000
_MAGIC = (
    (b"%PDF-", "PDF document"), (b"\x89PNG", "PNG image"), (b"GIF8", "GIF image"),
    (b"\xff\xd8\xff", "JPEG image"), (b"PK\x03\x04", "ZIP archive"), (b"\x1f\x8b", "gzip data"),
    (b"\x7fELF", "executable"), (b"RIFF", "RIFF media"), (b"OggS", "Ogg media"),
    (b"\xd0\xcf\x11\xe0", "Office document"), (b"7z\xbc\xaf", "7-Zip archive"),
    (b"BZh", "bzip2 data"), (b"\xfd7zXZ", "xz data"), (b"\x28\xb5\x2f\xfd", "zstd data"),
)
#: Byte-order marks, longest first (UTF-32 LE starts like UTF-16 LE).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)
_ALLOWED_CONTROLS = frozenset((9, 10, 12, 13, 27))


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISDIR, "a folder"))


def open_regular(path: str | Path) -> BinaryIO:
    """Open a file for reading only if it is a regular file when opened (checked with fstat on the
    open descriptor; O_NONBLOCK so that a FIFO put in its place never blocks the open)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            raise OSError(errno.EINVAL, f"no longer a regular file ({kind})" if kind != "not a regular file" else kind)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def bom_codec(data: bytes) -> str | None:
    """The codec a byte-order mark announces (None without a BOM)."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return None


def binary_kind(head: bytes) -> str | None:
    """What binary content the first bytes look like (None for text)."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    if bom_codec(head):
        return None
    sample = head[:4096]
    if b"\x00" in sample:
        return "binary data"
    controls = sum(1 for b in sample if b < 32 and b not in _ALLOWED_CONTROLS)
    return "binary data" if sample and controls / len(sample) > 0.1 else None


def decode_text(data: bytes) -> str | None:
    """The text of `data` (BOM, else UTF-8, else windows-1252 for mostly-ASCII bytes); None if binary."""
    codec = bom_codec(data)
    if codec:
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            return None
    if binary_kind(data[:4096]):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        sample = data[:65536]
        if sum(1 for b in sample if b >= 0x80) > len(sample) * 0.3:
            return None  # compressed or encrypted bytes, not a legacy-encoded text
        text = data.decode("cp1252", errors="replace")
    controls = sum(1 for ch in text[:65536] if ord(ch) < 32 and ord(ch) not in _ALLOWED_CONTROLS)
    return None if controls > len(text[:65536]) * 0.01 else text


def read_text_file(path: str | Path, max_bytes: int = DEFAULT_MAX_BYTES, *,
                   limit_name: str = "", what: str = "a text file") -> str:
    """A user file's text; a one-line UsageError when missing, too large (before reading) or binary."""
    file = Path(path).expanduser()
    try:
        if not file.is_file():
            raise UsageError(f"no such file: {path}" if not file.exists() else f"not a file: {path}")
        size = file.stat().st_size
        if size > max_bytes:
            setting = f" ({limit_name})" if limit_name else ""
            raise UsageError(f"{path} is {size:,} bytes: over the limit of {max_bytes:,} bytes{setting}")
        with open_regular(file) as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise UsageError(f"{shown(path)}: cannot read: {exc.strerror or type(exc).__name__}") from None
    if len(data) > max_bytes:  # it grew while we looked
        raise UsageError(f"{path} is over the limit of {max_bytes:,} bytes")
    text = decode_text(data)
    if text is None:
        kind = binary_kind(data[:4096]) or "binary or undecodable data"
        raise UsageError(f"{path} is not {what} ({kind})")
    return text


def read_utf8_file(path: str | Path, max_bytes: int, what: str) -> str:
    """A regular file's UTF-8 text, read only up to max_bytes; a one-line UsageError otherwise."""
    try:
        with open_regular(Path(path).expanduser()) as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise UsageError(f"{shown(path)}: cannot read: {exc.strerror or type(exc).__name__}") from None
    if len(data) > max_bytes:
        raise UsageError(f"{shown(path)} is over {max_bytes:,} bytes: not {what}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{shown(path)} is not {what} (not UTF-8 text)") from None
