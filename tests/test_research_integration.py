"""`nonseq research` end to end: real SearXNG, a local web of real pages, embedded Qdrant, bundled models."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nonseq import queue
from nonseq.events import Event, Kind, Step
from nonseq.index.vector_store import StoredPoint, research_collection
from nonseq.models import PAYLOAD_KEYS, Stage, provenance_header
from nonseq.pipeline import research
from tests.web import LocalWeb, write_config  # noqa: F401 - fixtures web_env/open_ws live there

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("loopback_only")]

CATEGORY = "software"
COLLECTION = research_collection(CATEGORY)
TOPIC = "Google Stadia game streaming launch"


def points(open_ws: Any, slug: str | None = None) -> list[StoredPoint]:
    """Every research point (of one topic when slug is given)."""
    with open_ws() as ws:
        return ws.store.scroll_all(COLLECTION, {"topic_slug": slug} if slug else None)


def run_json(cli: Any, *args: str, code: int = 0) -> dict[str, Any]:
    """`nonseq research ... --json` parsed."""
    return json.loads(cli("research", *args, "--json", code=code).stdout)


def sources(cli: Any, topic: str) -> dict[str, dict[str, Any]]:
    """The recorded sources of a topic by URL (from `queue show --json`)."""
    shown = json.loads(cli("queue", "show", topic, "--json").stdout)
    return {s["url"]: s for s in shown["sources"]}


def test_search_research_indexes_chunks_with_provenance(
    cli: Any, open_ws: Any, local_web: LocalWeb,
) -> None:
    cli("queue", "add", TOPIC, "-c", CATEGORY)
    summary = run_json(cli, "1")
    assert summary["mode"] == "search" and summary["stage"] == "researched"
    outcomes = {u: (s["outcome"], s["reason"]) for u, s in sources(cli, "1").items()}
    assert summary["found"] >= 5 and summary["fetched"] >= 4, outcomes
    assert summary["distinct_domains"] >= 2 and summary["chunks"] >= 10
    stored = points(open_ws)
    assert len(stored) == summary["chunks"]
    web_urls = {p.url: p for p in local_web.pages}
    by_url: dict[str, list[int]] = {}
    for point in stored:
        payload = point.chunk.to_payload()
        assert set(PAYLOAD_KEYS) <= set(payload)
        chunk = point.chunk
        assert (chunk.topic_slug, chunk.category, chunk.source_kind) == \
            ("google-stadia-game-streaming-launch", CATEGORY, "research")
        assert chunk.url in web_urls and chunk.domain == chunk.url.split("/")[2].split(":")[0]
        assert chunk.title and len(chunk.content_hash) == 64 and chunk.text
        header = provenance_header(chunk.domain, chunk.title, chunk.published)
        assert not chunk.text.startswith(header), "the payload text has no provenance header"
        assert chunk.trust_boost == (0.8 if chunk.domain == "news-a.test" else 0.0)
        by_url.setdefault(chunk.url, []).append(chunk.position)
    assert all(sorted(p) == list(range(len(p))) for p in by_url.values())
    assert any(c.chunk.published for c in stored)
    recorded = sources(cli, "1")
    assert sum(s["outcome"] == "fetched" for s in recorded.values()) == summary["fetched"]
    assert all(s["title"] and s["content_hash"] for s in recorded.values()
               if s["outcome"] == "fetched")

    again = run_json(cli, "1")
    assert again["chunks"] == summary["chunks"]
    assert len(points(open_ws)) == len(stored), "a second run replaces, never duplicates"


def test_hostile_pages_are_recorded_with_their_reason(
    cli: Any, open_ws: Any, local_web: LocalWeb, search_api: Any, web_env: Path, searxng_url: str,
) -> None:
    write_config(web_env, searxng_url, fetch_timeout=4.0)  # /slow answers after 20 s
    cli("queue", "add", "Hostile web", "-c", CATEGORY)
    article = local_web.pages[0].url
    expected = {
        local_web.hostile("/huge"): "too_large",
        local_web.hostile("/slow?s=20"): "timeout",
        local_web.hostile("/binary"): "wrong_type",
        local_web.hostile("/doc.pdf"): "unreadable",  # a PDF with no page: read, and refused
        local_web.hostile("/loop-a"): "redirects",
        local_web.hostile("/to-private"): "refused",
        local_web.hostile("/to-metadata"): "refused",
        local_web.hostile("/to-blocked"): "blocked",
        local_web.url("spam-e.test", "/"): "blocked",
        local_web.hostile("/status/500"): "http_error",
        local_web.hostile("/empty"): "empty",
        local_web.hostile("/private/secret.html"): "robots",
        local_web.hostile("/plain.txt"): "too_short",
        article: "fetched",
        local_web.hostile("/to-article"): "duplicate",
    }
    asked = len(search_api.queries)
    args = [a for url in expected for a in ("--url", url)]
    summary = run_json(cli, "1", *args)
    assert len(search_api.queries) == asked, "only user sources: no search"
    recorded = sources(cli, "1")
    for url, outcome in expected.items():
        if url == article or url.endswith("/to-article"):
            continue  # which of the two identical pages arrives first is up to the network
        assert recorded[url]["outcome"] == outcome, (url, recorded[url])
        assert recorded[url]["reason"], url
    pair = {recorded[article]["outcome"], recorded[local_web.hostile("/to-article")]["outcome"]}
    assert pair == {"fetched", "duplicate"}
    assert summary["fetched"] == 1 and summary["blocked"] == 2
    assert summary["failed"]["duplicate"] == 1 and summary["failed"]["wrong_type"] == 1
    assert summary["failed"]["unreadable"] == 1
    assert len({p.chunk.url for p in points(open_ws)}) == 1


def test_user_urls_and_files(cli: Any, open_ws: Any, local_web: LocalWeb, search_api: Any,
                             isolated: Path) -> None:
    cli("queue", "add", "Lunar landers", "-c", CATEGORY)
    notes = isolated / "notes.md"
    notes.write_text("---\ntitle: My lander notes\ndate: 2024-02-03\n---\n# Landers\n\n"
                     + "NASA picked new companies for lunar lander deliveries. " * 30,
                     encoding="utf-8")
    plain = isolated / "moon.txt"
    plain.write_text("Moon facts\n\n" + "The Moon has no global magnetic field. " * 30,
                     encoding="utf-8")
    page = next(p for p in local_web.pages if p.topic == "lunar-landers")
    asked = len(search_api.queries)
    out = cli("research", "lunar-landers", "--url", page.url, "--file", str(notes),
              "--file", str(plain))
    assert "researched #1 lunar-landers" in out.stdout and "3 fetched" in out.stdout
    assert len(search_api.queries) == asked
    stored = points(open_ws)
    local = [p.chunk for p in stored if p.chunk.domain == "local"]
    assert {c.url for c in local} == {notes.resolve().as_uri(), plain.resolve().as_uri()}
    assert all(c.url.startswith("file:///") and c.source_kind == "research" for c in local)
    assert {c.title for c in local} == {"My lander notes", "Moon facts"}
    assert any(c.published == "2024-02-03" for c in local)
    assert any(p.chunk.url == page.url and p.chunk.domain == page.host for p in stored)

    summary = run_json(cli, "1", "--file", str(notes))
    assert summary["mode"] == "user" and summary["fetched"] == 0 and summary["files"]["unchanged"] == 1
    notes.write_text(notes.read_text(encoding="utf-8") + "\nA later note.\n", encoding="utf-8")
    summary = run_json(cli, "1", "--file", str(notes))
    assert summary["fetched"] == 1 and summary["files"]["unchanged"] == 0
    assert len(points(open_ws)) == len(stored), "re-adding a changed file replaces its chunks"
    cli("research", "1", "--file", str(isolated / "missing.md"), code=2)


def test_interrupted_run_resumes_without_duplicates(cli: Any, open_ws: Any) -> None:
    cli("queue", "add", TOPIC, "-c", CATEGORY)

    def interrupt(event: Event) -> None:
        if event.step is Step.INDEX and event.data.chunks:
            raise KeyboardInterrupt

    with open_ws() as ws, pytest.raises(KeyboardInterrupt):
        research.run_research(ws, 1, progress=interrupt)
    with open_ws() as ws:
        assert queue.get_topic(ws.db, 1).stage is Stage.RESEARCHING
        partial = ws.store.count(COLLECTION)
    assert partial > 0

    summary = run_json(cli, "1")
    assert summary["resumed"] and summary["stage"] == "researched"
    stored = points(open_ws)
    keys = [(p.chunk.url, p.chunk.position) for p in stored]
    assert len(keys) == len(set(keys)) == summary["chunks"]
    assert run_json(cli, "1")["chunks"] == len(points(open_ws))


def test_embedding_does_not_wait_for_every_page(
    cli: Any, open_ws: Any, local_web: LocalWeb, web_env: Path, searxng_url: str,
) -> None:
    write_config(web_env, searxng_url, fetch_timeout=15.0, index_batch=4)
    cli("queue", "add", "Plague in China", "-c", CATEGORY)
    slow = local_web.url("news-b.test", "/slow-page?ms=6000")
    urls = [p.url for p in local_web.pages if p.topic == "plague"] + [slow]
    events: list[tuple[str, int, int]] = []

    def record(event: Event) -> None:
        if event.data is not None and event.kind is Kind.UPDATE:
            events.append((event.step.value, event.data.done, event.data.chunks))

    with open_ws() as ws:
        summary = research.run_research(ws, 1, urls=urls, progress=record)
    assert summary.failed == {"too_short": 1} and summary.fetched == len(urls) - 1
    first_index = next(i for i, (phase, _, chunks) in enumerate(events)
                       if phase == "index" and chunks)
    last_page = max(i for i, (phase, done, _) in enumerate(events)
                    if phase == "page" and done == len(urls))
    assert first_index < last_page, "chunks were indexed while a page was still on its way"


def test_errors_are_one_line(cli: Any, web_env: Path, searxng_url: str) -> None:
    missing = cli("research", "99", code=1)
    assert missing.stderr.strip().splitlines() == ["error: no topic '99' (see `nonseq queue list`)"]
    cli("queue", "add", TOPIC, "-c", CATEGORY)
    cli("research", "1", "--url", "ftp://example.org/x", code=2)
    write_config(web_env, "http://127.0.0.1:9")  # nothing listens there
    down = cli("research", "1", code=1)
    assert len(down.stderr.strip().splitlines()) == 1
    shown = json.loads(cli("queue", "show", "1", "--json").stdout)
    assert shown["topic"]["stage"] == "failed" and shown["topic"]["error"]
    write_config(web_env, searxng_url)
    retried = run_json(cli, "1")
    assert retried["stage"] == "researched" and retried["chunks"] > 0
