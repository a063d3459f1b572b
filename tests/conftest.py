"""Shared fixtures: every test runs inside its own temporary workspace."""

from __future__ import annotations

import os

# Before anything loads libgomp (torch does): OpenMP threads sleep between operations, as
# nonseq.llm.llamacpp sets for the product (spinners beside a busy neighbour cost 5-12x).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from nonseq.cli import app  # noqa: E402
from nonseq.config import VECTOR_CACHE_ENV, Settings, load_settings  # noqa: E402
from nonseq.workspace import Workspace  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
#: One CPU thread for each model: the suite runs two tests at once (`-n 2`) on two cores, and a model on
#: two threads spends a third more CPU (the bundled embedder: 17.6 ms a sentence on one, 26.5 ms on two).
ONE_THREAD = {"NONSEQ_EMBEDDING__THREADS": "1", "NONSEQ_RERANK__THREADS": "1", "NONSEQ_LLM__THREADS": "1"}


def pytest_report_header() -> str:
    """Where the shared reference data was found: the tests on real pages and datasets read it."""
    from devkit.data import DATA

    found = (DATA / "README.md").is_file()
    return f"shared data: {DATA}" + ("" if found else " (NOT FOUND: clone beside `shared/`, or set NONSEQ_DATA)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked slow first (stable otherwise). pyproject's addopts hold `--maxschedchunk 2`: xdist then
    gives a worker one or two tests at a time, so the long ones start early on both cores and the short ones
    fill in at the end (by default it deals out blocks of consecutive tests: one worker got every long one)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def suite_vector_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The vector cache every test of this run shares, as a user's workspaces do (`[embedding] vector_cache`):
    one file for both xdist workers, new each run, never the user's own under ~/.cache."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "vectors.sqlite"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suite_vector_cache: Path) -> Path:
    """Run in a fresh folder with no NONSEQ_* variables but one thread per model and the suite's vector
    cache, and no model hub."""
    for name in list(os.environ):
        if name.startswith("NONSEQ_"):
            monkeypatch.delenv(name)
    for name, value in {**ONE_THREAD, VECTOR_CACHE_ENV: str(suite_vector_cache)}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def no_env(isolated: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The isolated folder without even the one-thread and vector-cache variables (tests of environment
    overrides)."""
    for name in [*ONE_THREAD, VECTOR_CACHE_ENV]:
        monkeypatch.delenv(name)
    return isolated


@pytest.fixture(autouse=True)
def _only_loopback(loopback_only: None) -> None:
    """Every test fails before sending a packet anywhere but 127.0.0.0/8."""


@pytest.fixture
def settings(isolated: Path) -> Settings:
    """Default settings rooted in the temporary folder."""
    return load_settings()


@pytest.fixture
def ws(settings: Settings) -> Iterator[Workspace]:
    """A workspace in the temporary folder, closed afterwards."""
    workspace = Workspace(settings)
    yield workspace
    workspace.close()


class Cli:
    """Run `nonseq` in-process and check its exit code."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, code: int | None = 0, input: str | None = None):  # noqa: ANN204
        """Invoke the CLI; assert the exit code unless code is None."""
        result = self.runner.invoke(app, list(args), input=input, catch_exceptions=False)
        if code is not None:
            assert result.exit_code == code, (
                f"exit {result.exit_code} != {code}\nstdout:\n{result.stdout}\n"
                f"stderr:\n{result.stderr}"
            )
        return result


@pytest.fixture
def cli() -> Cli:
    """The in-process CLI runner."""
    return Cli()

#: Fixture modules of the stages (local web, SearXNG, LLM servers), loaded for every test file.
pytest_plugins: list[str] = ["tests.loopback", "tests.web", "tests.qdrant_fake"]


@pytest.fixture(scope="session")
def embed(suite_vector_cache: Path) -> Callable[[list[str]], Any]:
    """The bundled MiniLM embedder's embed (the writer's tests plan with it)."""
    from nonseq.config import EmbeddingSettings
    from nonseq.index.embed import build_embedder

    return build_embedder(EmbeddingSettings(vector_cache=str(suite_vector_cache))).embed


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    """A real PostgreSQL 15 for the session (skipped only where its binaries are not installed)."""
    from devkit.pg_server import PgServer, available

    if not available():
        pytest.skip("PostgreSQL 15 is not installed here (.ci/run installs it: apt-get install postgresql-15)")
    server = PgServer().start()
    yield server
    server.remove()


@pytest.fixture
def pg_url(pg_server: object, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """A fresh PostgreSQL database for one test; its URL has no password (PGPASSWORD is set)."""
    import re
    import uuid

    from devkit.pg_server import PgServer

    assert isinstance(pg_server, PgServer)
    for name, value in pg_server.env.items():
        monkeypatch.setenv(name, value)
    name = re.sub(r"\W", "_", request.node.name.lower())[:40] + "_" + uuid.uuid4().hex[:8]
    return pg_server.create_database(name)
