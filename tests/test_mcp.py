"""`nonseq mcp`: the real server in a child process, driven by the MCP SDK's own client over stdio.

A real session: the tools listed with their schemas, facts imported with `knowledge import` found
by search_knowledge, a topic added over MCP seen by `nonseq queue list`, a proposed fact pending in
`nonseq knowledge list`, the workspace lock (reads go on, a write answers "in use"), one-line errors
for bad arguments, write tools off without --allow-writes, and nothing but JSON-RPC on stdout.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from devkit.child import without_settings

REPO = Path(__file__).resolve().parents[1]
FACTS = [
    ("Tidal turbines sit on the sea floor and turn with the tide twice a day.", "climate"),
    ("The Sihwa Lake tidal power station in South Korea opened in 2011.", "climate"),
    ("Heat pump sales in Europe fell by 21 percent in 2024.", "climate"),
    ("The James Webb Space Telescope observed early galaxies in infrared light.", "science"),
]
TOOLS = {"search_knowledge", "get_fact", "list_topics", "topic_status", "add_topic", "get_article",
         "review_article", "propose_fact"}


def _env() -> dict[str, str]:
    """The child's environment: this checkout, one thread per model, no model hub, no NONSEQ_* else."""
    env = without_settings()
    env.update(PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               NONSEQ_EMBEDDING__THREADS="1")
    return env


@pytest.fixture
def kb(isolated: Path, cli: Any) -> Path:
    """A workspace whose knowledge base holds FACTS, imported as promoted facts."""
    lines = [{"uid": f"uid-{i}", "text": text, "category": cat, "kind": "topic", "status": "promoted",
              "topic_slug": "tides", "url": f"https://example.org/{i}", "title": f"Source {i}",
              "quote": text, "support": 0.9, "extractor": "extractive"} for i, (text, cat) in enumerate(FACTS)]
    dump = isolated / "kb.jsonl"
    dump.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    cli("knowledge", "import", str(dump))
    return isolated


def session(folder: Path, *args: str) -> Callable[[Callable[[Any], Awaitable[None]]], None]:
    """Run `body(client_session)` against `nonseq mcp ARGS` started in folder."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "nonseq", "mcp", *args],
                                   cwd=str(folder), env=_env())

    def run(body: Callable[[Any], Awaitable[None]]) -> None:
        async def main() -> None:
            with anyio.fail_after(240):
                async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
                    await client.initialize()
                    await body(client)

        anyio.run(main)

    return run


def _data(result: Any) -> dict[str, Any]:
    """A successful call's JSON (text and structured content agree)."""
    assert not result.is_error, result.content[0].text
    data = json.loads(result.content[0].text)
    assert result.structured_content == data
    return data


def _error(result: Any) -> str:
    """A failed call's one line."""
    assert result.is_error and len(result.content) == 1
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text
    return text


@pytest.mark.slow
def test_an_agent_searches_adds_a_topic_and_proposes_a_fact(kb: Path, cli: Any) -> None:
    """The whole session over stdio, with the CLI and the lock beside it."""
    from nonseq.lock import acquire, release

    seen: dict[str, Any] = {}

    async def body(client: Any) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.description and "\n" not in tool.description
            assert tool.input_schema["type"] == "object"
        assert "--allow-writes" in tools["add_topic"].description
        assert tools["get_fact"].input_schema["required"] == ["id"]

        found = _data(await client.call_tool("search_knowledge", {"query": "tidal power station Korea",
                                                                  "category": "climate", "limit": 3}))
        assert found["facts"][0]["text"] == FACTS[1][0]
        assert {f["category"] for f in found["facts"]} == {"climate"}
        top = found["facts"][0]
        assert top["quote"] == FACTS[1][0] and top["url"] == "https://example.org/1"
        assert top["source_title"] == "Source 1"
        fact = _data(await client.call_tool("get_fact", {"id": top["fact_id"]}))
        assert fact["status"] == "promoted" and fact["text"] == FACTS[1][0]

        assert "id" in _error(await client.call_tool("get_fact", {"id": "seven"}))
        assert "no fact #999" in _error(await client.call_tool("get_fact", {"id": 999}))
        assert "query" in _error(await client.call_tool("search_knowledge", {}))
        assert "unknown category 'nope'" in _error(
            await client.call_tool("search_knowledge", {"query": "x", "category": "nope"}))

        added = _data(await client.call_tool("add_topic", {
            "title": "Tidal lagoons in Wales", "category": "climate", "focus": "cost",
            "queries": ["Swansea tidal lagoon"]}))
        seen["topic"] = added["topic"]
        listed = _data(await client.call_tool("list_topics", {"stage": "queued"}))
        assert [t["title"] for t in listed["topics"]] == ["Tidal lagoons in Wales"]
        status = _data(await client.call_tool("topic_status", {"id": added["topic"]["id"]}))
        assert status["stage"] == "queued" and status["gate"] is None and status["history"]

        proposed = _data(await client.call_tool("propose_fact", {
            "text": "Swansea Bay's tidal lagoon was planned to generate 320 MW.",
            "quote": "The lagoon was planned to generate 320 MW of power.",
            "url": "https://example.org/0"}))
        seen["fact"] = proposed["fact"]
        assert proposed["fact"]["status"] == "pending" and proposed["fact"]["category"] == "climate"

        data_dir = kb / ".nonseq"
        acquire(data_dir, "night")  # another process's night run holds the workspace
        try:
            busy = _error(await client.call_tool("add_topic", {"title": "Wave power", "category": "climate"}))
            assert busy.startswith("in use: workspace") and "nonseq night" in busy
            again = _data(await client.call_tool("search_knowledge", {"query": "James Webb galaxies"}))
            assert again["facts"][0]["category"] == "science"  # reads take no lock
        finally:
            release(data_dir)

    session(kb, "--allow-writes")(body)
    queue = json.loads(cli("queue", "list", "--json").stdout)
    assert [(t["id"], t["title"], t["stage"]) for t in queue] == [
        (seen["topic"]["id"], "Tidal lagoons in Wales", "queued")]
    pending = json.loads(cli("knowledge", "list", "--status", "pending", "--json").stdout)
    assert [(f["id"], f["status"]) for f in pending] == [(seen["fact"]["id"], "pending")]


def _article(folder: Path) -> list[dict[str, Any]]:
    """An article and its prompt file with the review block, as the writer saves them; its review rows."""
    from nonseq.writing.compose import SentenceRecord, review
    from nonseq.writing.plan import SourceSentence, Unit
    from nonseq.writing.writer import review_block

    page = "The Sihwa Lake tidal power station opened in 2011."
    unit = Unit([SourceSentence("c0.s0", page, 0, 0, "https://example.org/1", "Tides", "p", 1.0)], n=1)
    rows = review([SentenceRecord(0, unit, "verbatim", f"According to Source 1, the{page[3:]}"),
                   SentenceRecord(0, unit, "verbatim", page)])
    articles = folder / "articles"
    articles.mkdir()
    (articles / "tides.md").write_text("---\ntitle: Tides\nslug: tides\nstatus: written\n"
                                       "prompt: tides.prompt.md\n---\n# Tides\n", encoding="utf-8")
    (articles / "tides.prompt.md").write_text(review_block(rows), encoding="utf-8")
    return rows


def test_writes_are_off_without_allow_writes(kb: Path, cli: Any) -> None:
    """Without --allow-writes the write tools say so (description and answer) and change nothing; an article's
    review (each sentence beside its source and the words the writer wrote in) is a read."""
    rows = _article(kb)

    async def body(client: Any) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "off on this server" in tools["propose_fact"].description
        refused = _error(await client.call_tool("add_topic", {"title": "Wave power", "category": "climate"}))
        assert "nonseq mcp --allow-writes" in refused
        article = _error(await client.call_tool("get_article", {"slug": "missing"}))
        assert article.startswith("no article 'missing'")
        reviewed = _data(await client.call_tool("review_article", {"slug": "tides"}))
        assert reviewed == {"slug": "tides", "sentences": rows}
        assert [r["written_in"] for r in reviewed["sentences"]] == [["According to Source 1,"], []]
        assert reviewed["sentences"][0]["sources"] == [{"n": 1, "text": "The Sihwa Lake tidal power station "
                                                                        "opened in 2011."}]
        assert _error(await client.call_tool("review_article", {"slug": "missing"})).startswith(
            "no article 'missing'")

    session(kb)(body)
    assert json.loads(cli("queue", "list", "--json").stdout) == []


def test_stdout_carries_only_the_protocol(isolated: Path) -> None:
    """Raw JSON-RPC lines in, and every line out is a JSON-RPC message, errors included."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_fact", "arguments": {"id": 0}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "topic_status", "arguments": {"id": 5}}},
    ]
    proc = subprocess.Popen([sys.executable, "-m", "nonseq", "mcp"], cwd=isolated, env=_env(), text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    lines: list[str] = []
    for request in requests:  # one at a time: each answer read before the next request
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        if "id" in request:
            lines.append(proc.stdout.readline())
    proc.stdin.close()
    lines += proc.stdout.readlines()
    stderr = proc.stderr.read() if proc.stderr else ""
    assert proc.wait(timeout=60) == 0, stderr
    messages = [json.loads(line) for line in lines]  # every line is JSON: nothing else on stdout
    answers = {m["id"]: m for m in messages if "id" in m}
    assert sorted(answers) == [1, 2, 3, 4] and all(m["jsonrpc"] == "2.0" for m in messages)
    assert answers[1]["result"]["serverInfo"]["name"] == "nonseq"
    assert len(answers[2]["result"]["tools"]) == len(TOOLS)
    low = answers[3]["result"]
    assert low["isError"] and low["content"][0]["text"] == "get_fact: id: 0 is less than the minimum of 1"
    missing = answers[4]["result"]
    assert missing["isError"] and "\n" not in missing["content"][0]["text"]
    assert "Traceback" not in stderr
