"""`nonseq domains list|trust|block|check` through the CLI runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from devkit.checks import one_error_line
from nonseq.config import load_settings
from nonseq.models import Outcome
from nonseq.research.domains import BLOCKED_FILE, TRUSTED_FILE, load_default
from nonseq.research.fetch import Fetcher
from tests.web import LocalWeb

pytestmark = pytest.mark.usefixtures("loopback_only")


def as_json(cli: Any, *args: str) -> Any:
    """Run a command with --json and parse its output."""
    return json.loads(cli(*args, "--json").stdout)


def test_list_shipped(cli: Any) -> None:
    """The shipped lists: trusted, by category (best boost first), blocked with reasons."""
    trusted = as_json(cli, "domains", "list")
    assert len(trusted) > 100 and {e["origin"] for e in trusted} == {"shipped"}
    assert {"domain", "type", "boost", "categories"} <= set(trusted[0])
    science = as_json(cli, "domains", "list", "--category", "science")
    assert science and all("science" in e["categories"] for e in science)
    assert [e["boost"] for e in science] == sorted((e["boost"] for e in science), reverse=True)
    blocked = as_json(cli, "domains", "list", "--blocked")
    assert blocked and all(e["reason"] for e in blocked)
    table = cli("domains", "list", "--category", "space").stdout
    assert "trusted domain(s) in space" in table


def test_trust_block_check(cli: Any, isolated: Path) -> None:
    """User entries land in the data dir, win over shipped ones, and move between lists."""
    out = cli("domains", "trust", "https://www.news-a.test/x", "--type", "press", "--boost", "0.8",
              "-c", "science", "-c", "space").stdout
    assert "trusted news-a.test: press, boost 0.80, science, space" in out
    data_dir = load_settings().data_dir
    assert (data_dir / TRUSTED_FILE).exists()
    info = as_json(cli, "domains", "check", "http://sub.news-a.test/page")
    assert info == {"host": "sub.news-a.test", "matched": "news-a.test", "origin": "user",
                    "type": "press", "boost": 0.8, "categories": ["science", "space"],
                    "blocked": False, "reason": ""}
    cli("domains", "block", "news-a.test", "--reason", "went bad [spam]")
    info = as_json(cli, "domains", "check", "news-a.test")
    assert info["blocked"] and info["reason"] == "went bad [spam]"
    assert "news-a.test" not in (data_dir / TRUSTED_FILE).read_text()
    assert "went bad [spam]" in cli("domains", "check", "news-a.test").stdout
    assert "went bad [spam]" in cli("domains", "list", "--blocked").stdout
    users = [e for e in as_json(cli, "domains", "list", "--blocked") if e["origin"] == "user"]
    assert users == [{"domain": "news-a.test", "origin": "user", "reason": "went bad [spam]"}]
    unknown = cli("domains", "check", "http://nowhere.test/").stdout
    assert "unknown (boost 0.00); not blocked" in unknown


def test_user_entry_overrides_shipped(cli: Any) -> None:
    """Blocking a shipped trusted domain works, and trusting it again restores it."""
    shipped = as_json(cli, "domains", "list")[0]["domain"]
    cli("domains", "block", shipped, "--reason", "not for me")
    assert as_json(cli, "domains", "check", shipped)["blocked"] is True
    cli("domains", "trust", shipped, "--type", "official", "--boost", "0.5", "-c", "ai")
    back = as_json(cli, "domains", "check", shipped)
    assert back["blocked"] is False and back["type"] == "official" and back["origin"] == "user"


@pytest.mark.parametrize(("args", "needle"), [
    (["trust", "a.test", "--type", "press", "--boost", "2", "-c", "ai"], "outside [0.50, 0.95]"),
    (["trust", "a.test", "--type", "blog", "--boost", "0.6", "-c", "ai"], "unknown domain type"),
    (["trust", "a.test", "--type", "press", "--boost", "0.6", "-c", "cats"], "unknown category"),
    (["trust", "10.0.0.1", "--type", "press", "--boost", "0.6", "-c", "ai"], "IP addresses"),
    (["block", "localhost", "--reason", "x"], "at least two labels"),
    (["block", "a.test", "--reason", "  "], "non-empty reason"),
    (["list", "--blocked", "--category", "ai"], "--category applies to trusted"),
    (["list", "--category", "cats"], "unknown category"),
    (["check", "://"], "no host"),
])
def test_bad_input_is_one_line_exit_2(cli: Any, args: list[str], needle: str) -> None:
    """Bad input exits 2 with one error line and writes nothing."""
    result = cli("domains", *args, code=2)
    one_error_line(result, needle)
    assert not (load_settings().data_dir / TRUSTED_FILE).exists()


def test_missing_options_exit_2(cli: Any) -> None:
    """typer's own usage errors also exit 2."""
    cli("domains", "block", "a.test", code=2)
    cli("domains", "trust", "a.test", "--boost", "0.7", code=2)


def test_broken_user_file(cli: Any) -> None:
    """A broken user file is named in one line (exit 2)."""
    data_dir = load_settings().data_dir
    data_dir.mkdir(parents=True)
    (data_dir / BLOCKED_FILE).write_text("{not json", encoding="utf-8")
    one_error_line(cli("domains", "list", code=2), BLOCKED_FILE)


def test_blocked_on_the_cli_is_never_fetched(cli: Any, local_web: LocalWeb) -> None:
    """A domain blocked with the CLI is refused by the fetcher without any request."""
    cli("domains", "block", "tech-d.test", "--reason", "cli block")
    registry = load_default(load_settings().data_dir)
    local_web.reset_stats()
    urls = [p.url for p in local_web.pages if p.host == "tech-d.test"]
    pages = Fetcher(local_web.fetch_settings(), registry, local_web.resolve).fetch_all(urls)
    assert {p.source.outcome for p in pages} == {Outcome.BLOCKED}
    assert all(p.source.reason == "blocked domain tech-d.test: cli block" for p in pages)
    assert local_web.stats["tech-d.test"].requests == []
