"""Drive the real `nonseq` in a real pseudo-terminal (pexpect) and read its screen (pyte).

`Terminal.wait(text)` waits until the rendered 120×40 screen shows the text, so tests match what
a person sees, not escape sequences; `screen()` is the screen as plain text.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte

from devkit.child import without_settings

ROOT = Path(__file__).resolve().parents[1]
ROWS, COLS = 40, 120
#: What the menus print for an error they did not expect (a test fails at once on it).
UNEXPECTED = "unexpected error:"
KEYS = {"esc": "\x1b", "enter": "\r", "ctrl-c": "\x03", "down": "\x1b[B", "up": "\x1b[A"}


class Terminal:
    """One running `nonseq` in a pty, its screen rendered by a VT100 emulator."""

    def __init__(self, cwd: Path, *args: str, timeout: float = 60.0) -> None:
        env = without_settings()
        # devkit/child.py: the real CLI, kept on loopback (the local web's names are in
        # the workspace's config.toml, [fetch] hosts).
        env.update(PYTHONPATH=str(ROOT), TERM="xterm", COLUMNS=str(COLS), LINES=str(ROWS),
                   HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", EDITOR="true",
                   PROMPT_TOOLKIT_NO_CPR="1")  # pyte does not answer cursor position requests
        self.timeout = timeout
        self.started = time.monotonic()
        self._screen: str | None = None
        self.screen_ = pyte.Screen(COLS, ROWS)
        self.stream = pyte.Stream(self.screen_)
        self.transcript = ""
        self.child = pexpect.spawn(sys.executable, ["-m", "devkit.child", *args], cwd=str(cwd),
                                   env=env, dimensions=(ROWS, COLS), encoding="utf-8",
                                   codec_errors="replace")

    def _pump(self, seconds: float) -> bool:
        """Read what the program printed for up to `seconds`; False once it has exited."""
        try:
            data = self.child.read_nonblocking(65536, timeout=seconds)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.transcript += data
        self.stream.feed(data)
        self._screen = None
        return True

    def screen(self) -> str:
        """The visible screen as text (trailing blanks removed)."""
        if self._screen is None:
            self._screen = "\n".join(line.rstrip() for line in self.screen_.display).rstrip()
        return self._screen

    def key_for(self, label: str) -> str:
        """The key shown as `[k] label` in the menu on the screen."""
        found = re.search(r"\[(.)\] " + re.escape(label), self.screen())
        assert found, f"no [key] {label!r} on the screen:\n{self.screen()}"
        return found.group(1)

    def wait(self, text: str, timeout: float | None = None) -> str:
        """Wait until `text` is on the screen; fail with the screen when it never comes, or at
        once when the program reports an unexpected error or exits."""
        deadline = time.monotonic() + (timeout or self.timeout)
        alive = True
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                print(f"{time.monotonic() - self.started:6.1f} s  {text!r}", file=sys.stderr)  # shown when a test fails
                return screen
            if UNEXPECTED in screen or "Traceback" in screen or not alive:
                break
            alive = self._pump(0.2)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def wait_for(self, condition: Callable[[], bool], what: str, timeout: float | None = None) -> None:
        """Wait (reading the screen meanwhile) until condition() holds; fail naming `what`."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while time.monotonic() < deadline:
            if condition():
                print(f"{time.monotonic() - self.started:6.1f} s  {what}", file=sys.stderr)  # shown when a test fails
                return
            if not self._pump(0.05):
                break
        raise AssertionError(f"{what} never happened; screen:\n{self.screen()}")

    def press(self, *keys: str, pause: float = 0.15) -> None:
        """Send keys ('esc', 'enter', 'ctrl-c', 'down', 'up' or literal text), one by one."""
        for key in keys:
            self.child.send(KEYS.get(key, key))
            time.sleep(max(pause, 0.7) if key == "esc" else pause)  # a lone Esc is read after 0.5 s
            self._pump(0.05)

    def type(self, text: str) -> None:
        """Type a line and press Enter."""
        self.child.send(text)
        self.child.send("\r")
        self._pump(0.1)

    def leave(self, levels: int) -> None:
        """Esc out of `levels` menus (the last one quits); the program must end cleanly."""
        self.press(*["esc"] * levels)
        assert self.finish() == 0, self.screen()
        assert "Traceback" not in self.transcript

    def finish(self, timeout: float = 60.0) -> int:
        """Wait for the program to exit; its exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self._pump(0.2):
            pass
        self.child.close()
        return self.child.exitstatus if self.child.exitstatus is not None else -(self.child.signalstatus or 0)

    def close(self) -> None:
        """Stop the program if it still runs."""
        if self.child.isalive():
            self.child.terminate(force=True)
