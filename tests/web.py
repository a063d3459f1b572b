"""The local web's pytest fixtures (the servers themselves live in devkit/web.py, shared with bench/).

Host names (news-a.test...) exist only in `LocalWeb.resolve`, the stub resolver handed to the
fetcher: nothing here ever asks a real DNS server (and tests/loopback.py's `loopback_only` fails
any test that tries to resolve a name or connect outside 127.0.0.0/8).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from devkit.web import (  # noqa: F401 - re-exported for the tests that import them from here
    DOCS_DIR,
    HOSTS,
    TEST_FETCH_TIMEOUT,
    FuncSite,
    LocalWeb,
    SearchApi,
    _Handler,
    _Server,
    free_port,
    hosts_table,
    start_server,
    started_local_web,
    stop_server,
    write_config,
)
from nonseq.config import SearxngSettings


@pytest.fixture
def http_server() -> Iterator[Callable[[Callable[..., None]], str]]:
    """Start ad-hoc servers from a function route(handler, path, query); yields a starter → URL."""
    servers: list[_Server] = []

    def start(func: Callable[..., None]) -> str:
        server = start_server(FuncSite(func))
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        stop_server(server)


@pytest.fixture(scope="session")
def local_web() -> Iterator[LocalWeb]:
    """The local web: `.base` (host → base URL), `.pages` (id, url, title, text, topic),
    `.resolve` (stub resolver), `.hostile(path)`, `.stats` (per-host requests, max in flight),
    `.total` (the same over all hosts), `.fetch_settings(**changes)`."""
    web = started_local_web(list(HOSTS.values()))
    yield web
    web.stop()


@pytest.fixture(scope="session")
def search_api(local_web: LocalWeb) -> Iterator[SearchApi]:
    """The JSON search API over the local web; `.url` is its base, `.queries` what it was asked."""
    api = SearchApi(local_web)
    server = start_server(api)
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield api
    stop_server(server)


@pytest.fixture(scope="session")
def searxng_url(search_api: SearchApi, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real SearXNG (the [searxng] extra) whose only engine is the local search API."""
    from nonseq.research.searxng_local import LocalSearxng, json_engine

    instance = LocalSearxng(tmp_path_factory.mktemp("searxng"), free_port())
    instance.write_settings(engines=[json_engine(
        "localweb", f"{search_api.url}/api/search?q={{query}}&page={{pageno}}", shortcut="lw",
    )], keep_only=[])
    url = instance.start(timeout=60, attached=True)  # raises (an error, never a skip) on failure
    yield url
    instance.stop()


@pytest.fixture
def searx_settings(searxng_url: str) -> SearxngSettings:
    """Client settings for the test SearXNG (fast retries)."""
    return SearxngSettings(url=searxng_url, pages=2, timeout=10, retries=1, backoff=0.01)


@pytest.fixture
def web_env(isolated: Path, searxng_url: str, local_web: LocalWeb) -> Path:
    """A workspace wired to the local web: config (its names pinned to loopback) and domain lists."""
    from nonseq.research.domains import DomainRegistry

    write_config(isolated, searxng_url)
    data_dir = isolated / ".nonseq"
    registry = DomainRegistry()
    registry.add_trusted("news-a.test", "press", 0.8, ["software"], data_dir)
    registry.add_blocked("spam-e.test", "test spam farm", data_dir)
    return isolated


@pytest.fixture
def open_ws(web_env: Path) -> Iterator[Any]:
    """Open the workspace for a look between CLI calls (closed again at once)."""
    from nonseq.config import load_settings
    from nonseq.workspace import Workspace

    def opener() -> Workspace:
        """A fresh workspace from the current folder's config."""
        return Workspace(load_settings())
    yield opener

