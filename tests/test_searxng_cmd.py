"""`nonseq searxng start|stop|status` with the real SearXNG of the [searxng] extra.

Every instance started here is configured with only the local search API as engine (never the
default engines, which would contact the internet).
"""

from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml

from devkit.checks import one_error_line
from nonseq.config import load_settings
from nonseq.errors import BackendError
from nonseq.research import searxng_local
from nonseq.research.searx import SearxClient
from nonseq.research.searxng_local import LocalSearxng, json_engine
from tests.web import SearchApi, free_port

pytestmark = pytest.mark.usefixtures("loopback_only")


@pytest.fixture
def local(search_api: SearchApi, monkeypatch: pytest.MonkeyPatch) -> LocalSearxng:
    """A workspace SearXNG on a free port, pre-configured with only the local search API."""
    port = free_port()
    monkeypatch.setenv("NONSEQ_SEARXNG__PORT", str(port))
    monkeypatch.setenv("NONSEQ_SEARXNG__URL", f"http://127.0.0.1:{port}")
    instance = LocalSearxng(load_settings().data_dir, port)
    instance.write_settings(engines=[json_engine(
        "localweb", f"{search_api.url}/api/search?q={{query}}&page={{pageno}}")], keep_only=[])
    return instance


def test_help_names_the_usual_traps(cli: Any) -> None:
    """The group help tells about 403/json, the limiter and suspended engines."""
    out = " ".join(cli("searxng", "--help").stdout.split())
    for needle in ("403", "search.formats", "server.limiter: false", "suspended", "nonseq[searxng]"):
        assert needle in out


def test_lifecycle(cli: Any, local: LocalSearxng, searx_settings: Any) -> None:
    """start -p waits and prints the URL; status (exit 1 when down) reads the port it was started
    on; searching works; start twice; stop; stop twice."""
    url = f"http://127.0.0.1:{free_port()}"  # not the configured port
    out = cli("searxng", "start", "-p", url.rsplit(":", 1)[1], "--timeout", "60").stdout
    assert f"SearXNG is running at {url}" in out
    try:
        status = json.loads(cli("searxng", "status", "--json").stdout)
        assert status["running"] and status["answering"] and status["pid"] == local.pid()
        assert status["url"] == url
        assert f"running at {url}" in cli("searxng", "status").stdout
        assert "already running" in cli("searxng", "start").stdout
        settings = searx_settings.model_copy(update={"url": url})
        with SearxClient(settings) as client:
            assert client.search("Europa water plumes", pages=1).results
        pid = local.pid()
        assert pid is not None
    finally:
        out = cli("searxng", "stop").stdout
    assert f"stopped SearXNG (pid {pid})" in out
    assert not local.pid_path.exists() and not searxng_local._pid_alive(pid)
    assert "not running" in cli("searxng", "status", code=1).stdout
    assert not json.loads(cli("searxng", "status", "--json", code=1).stdout)["running"]
    assert "SearXNG is not running" in cli("searxng", "stop").stdout


def test_port_taken(cli: Any, local: LocalSearxng) -> None:
    """A busy port is a one-line error (exit 1) and nothing is started."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", local.port))
        busy.listen()
        one_error_line(cli("searxng", "start", code=1), f"port {local.port} on 127.0.0.1 is taken")
    assert local.pid() is None


def test_extra_missing(cli: Any, local: LocalSearxng, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the extra the error says what to install."""
    monkeypatch.setattr(searxng_local, "searx_installed", lambda: False)
    with pytest.raises(BackendError, match=re.escape("pip install 'nonseq[searxng]'")):
        local.start()
    # (the CLI prints messages as rich markup, which currently swallows "[searxng]")
    one_error_line(cli("searxng", "start", code=1), "SearXNG is not installed: pip install 'nonseq")


def test_startup_failure_is_reported(cli: Any, local: LocalSearxng) -> None:
    """SearXNG refusing its settings (the default secret key) → one line pointing at the log."""
    data = yaml.safe_load(local.settings_path.read_text())
    data["server"]["secret_key"] = "ultrasecretkey"
    local.settings_path.write_text(yaml.safe_dump(data))
    result = cli("searxng", "start", code=1)
    one_error_line(result, "SearXNG exited at start-up")
    assert str(local.log_path) in result.stderr and local.pid() is None


def test_stale_pid_file_is_not_killed(cli: Any, local: LocalSearxng) -> None:
    """A pid file naming a process that is not SearXNG (here: pytest itself) is ignored."""
    local.pid_path.write_text(f"{os.getpid()}\n")
    assert "not running" in cli("searxng", "status", code=1).stdout
    assert "SearXNG is not running" in cli("searxng", "stop").stdout
    assert not local.pid_path.exists()


def test_generated_settings(tmp_path: Path) -> None:
    """JSON on, limiter off, a real secret, loopback only, no start-up downloads."""
    instance = LocalSearxng(tmp_path, 18888)
    data = yaml.safe_load(instance.write_settings().read_text())
    assert data["use_default_settings"] is True
    assert data["search"]["formats"] == ["html", "json"]
    server = data["server"]
    assert server["limiter"] is False and server["bind_address"] == "127.0.0.1"
    assert server["port"] == 18888 and len(server["secret_key"]) == 64
    assert server["secret_key"] != "ultrasecretkey"
    assert not any("tracker_url_remover" in name for name in data["plugins"])
    assert oct(instance.settings_path.stat().st_mode)[-3:] == "600"
    again = yaml.safe_load(LocalSearxng(tmp_path, 18888).write_settings().read_text())
    assert again["server"]["secret_key"] != server["secret_key"]
    narrowed = instance.render_settings(keep_only=[])
    assert narrowed["use_default_settings"] == {"engines": {"keep_only": []}}


def test_existing_settings_are_kept_but_follow_the_port(tmp_path: Path) -> None:
    """A user's edits survive; only server.port/bind_address are brought in line."""
    first = LocalSearxng(tmp_path, 18888)
    first.write_settings()
    data = yaml.safe_load(first.settings_path.read_text())
    data["search"]["safe_search"] = 2
    first.settings_path.write_text(yaml.safe_dump(data))
    LocalSearxng(tmp_path, 18999)._sync_settings()
    kept = yaml.safe_load(first.settings_path.read_text())
    assert kept["search"]["safe_search"] == 2 and kept["server"]["port"] == 18999
