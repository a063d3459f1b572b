"""The menus, driven in a real pseudo-terminal: keys in, rendered screen out (devkit/terminal.py).

The program is the real `nonseq` (devkit/child.py only hands the fetcher the local web's
stub resolver): real SearXNG over the local web, embedded Qdrant, the bundled models, SQLite.
"""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devkit.llm_servers import BRIEF
from devkit.terminal import Terminal
from tests.web import TEST_FETCH_TIMEOUT, LocalWeb

pytestmark = [pytest.mark.slow]

#: A two-section schema, so that the small LLM writes the test's article in reasonable time.


@pytest.fixture
def term() -> Iterator[Any]:
    """Start `nonseq ARGS` in a pty (stopped at the end of the test)."""
    started: list[Terminal] = []

    def start(cwd: Path, *args: str) -> Terminal:
        terminal = Terminal(cwd, *args)
        started.append(terminal)
        return terminal

    yield start
    for terminal in started:
        terminal.close()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers (a hung SearXNG)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


def db(folder: Path) -> sqlite3.Connection:
    """The workspace's SQLite database, read-only."""
    conn = sqlite3.connect(f"file:{folder / '.nonseq' / 'nonseq.db'}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def test_without_a_terminal_nonseq_prints_the_help_and_exits(cli: Any) -> None:
    for args in ([], ["menu"]):
        result = cli(*args)
        assert "Usage" in result.stdout and "queue" in result.stdout


def test_main_menu_appears_while_a_hung_searxng_probe_still_waits(term: Any, isolated: Path,
                                                                  silent_port: int) -> None:
    # The probe may wait ten minutes for the hung SearXNG: a menu that waited for it would never be
    # drawn within the terminal's wait, so no clock is read here.
    (isolated / "config.toml").write_text(
        f'[searxng]\nurl = "http://127.0.0.1:{silent_port}"\nprobe_timeout = 600\n')
    t = term(isolated)
    screen = t.wait("Main menu")
    assert "SearXNG …" in screen  # drawn while the probe is still waiting
    for label in ("[1] Queue", "[2] Knowledge", "[3] Night run", "[4] Articles", "[5] Settings",
                  "[q] Quit", "queue: empty", "LLM"):
        assert label in t.screen(), screen
    t.press("q")
    assert t.finish() == 0  # quitting does not wait for the probe either


def test_status_line_says_searxng_is_down_once_the_hung_probe_gives_up(term: Any, isolated: Path,
                                                                       silent_port: int) -> None:
    (isolated / "config.toml").write_text(
        f'[searxng]\nurl = "http://127.0.0.1:{silent_port}"\nprobe_timeout = 0.5\n')
    t = term(isolated)
    t.wait("SearXNG down")
    assert "SearXNG down" in t.screen() and "[1] Queue" in t.screen()
    t.press("q")
    assert t.finish() == 0


def test_a_waiting_menu_holds_no_lock_and_esc_goes_back(term: Any, web_env: Path, cli: Any) -> None:
    from nonseq.lock import is_locked

    t = term(web_env)
    t.wait("Main menu")
    t.press("1")
    t.wait("Choose a topic")
    assert not is_locked(web_env / ".nonseq")
    cli("queue", "add", "Added while the menu waits", "-c", "software")  # takes the lock
    t.press("f")
    t.wait("Added while the menu waits")
    t.press("esc")
    t.wait("[5] Settings")
    t.press("3")  # Night run: the plan, not run
    t.wait("A night run would write 1 topic(s)")
    t.press("esc")
    t.press("4")
    t.wait("no articles yet")
    t.press("enter")
    t.press("5")
    t.wait("Run the doctor")
    t.press("e")  # $EDITOR is `true` here
    t.wait("settings reloaded")
    t.press("c")
    t.wait("[categories]")
    t.press("enter")
    t.press("ctrl-c")  # Ctrl-C in a menu: back one level, like Esc
    t.wait("[5] Settings")
    t.press("esc")
    assert t.finish() == 0
    assert not is_locked(web_env / ".nonseq")


def _add_topic(t: Terminal, title: str, category_key: str, schema: str = "explainer") -> None:
    """Queue → add a topic through the form (focus, one sub-query, priority 2, no persona)."""
    t.press("a")
    t.wait("Title:")
    t.type(title)
    t.wait("Category")
    t.press(category_key)
    t.wait("Focus")
    t.type("how the launch went for players")
    t.wait("Sub-query 1")
    t.type("Stadia launch review")
    t.wait("Sub-query 2")
    t.type("")
    t.wait("Priority")
    t.type("2")
    t.wait("Persona")
    t.press("1")  # (none)
    t.wait("Schema")
    t.press(t.key_for(schema))


def _queue_and_open(t: Terminal, schema: str = "explainer") -> None:
    """Main menu → Queue → add the Stadia topic (software) → open it."""
    t.wait("Main menu")
    t.press("1")
    t.wait("Add a topic")
    _add_topic(t, "Google Stadia game streaming launch", "2", schema)
    t.wait("queued #1")
    t.press("t")
    t.wait("Which topic?")
    t.press("1")
    t.wait("#1 Google Stadia game streaming launch — queued")


def _own_sources(t: Terminal, *entries: str) -> None:
    """The topic's [r] → [2]: type URLs or paths, then an empty line."""
    t.press("r")
    t.wait("Uber Research")
    t.press("2")
    for n, entry in enumerate((*entries, ""), 1):
        t.wait(f"URL, file or folder {n}")
        t.type(entry)


def test_ctrl_c_stops_research_and_the_topic_resumes(term: Any, web_env: Path,
                                                   local_web: LocalWeb) -> None:
    config = web_env / "config.toml"
    config.write_text(config.read_text().replace(f"timeout = {TEST_FETCH_TIMEOUT:g}\n", "timeout = 60\n"))
    page = next(p for p in local_web.pages if p.topic == "stadia")
    t = term(web_env)
    _queue_and_open(t)
    _own_sources(t, local_web.hostile("/slow?s=30"))  # answers after 30 s
    t.wait("pages")
    seen = local_web.stats["hostile.test"].requests
    t.wait_for(lambda: any(path.startswith("/slow") for path in seen), "the slow page is being fetched")
    t.press("ctrl-c")
    t.wait("stopped")
    assert db(web_env).execute("SELECT stage FROM topics").fetchone()[0] == "researching"
    t.press("enter")  # the pause after the action
    t.wait("Research …")  # back in the topic's menu
    _own_sources(t, page.url)  # research again, with one page of the local web: the run resumes
    t.wait("(resumed)", timeout=120)
    t.press("enter")
    t.leave(3)
    conn = db(web_env)
    assert conn.execute("SELECT stage FROM topics").fetchone()[0] == "researched"
    fetched = [r[0] for r in conn.execute("SELECT url FROM sources WHERE outcome = 'fetched'")]
    assert fetched == [page.url]


def _inspected(screen: str) -> bool:
    """The inspect output ended (the pause is the last line) and shows the pack or the write plan."""
    lines = [line for line in screen.splitlines() if line.strip()]
    shown = any(mark in screen for mark in ("timings:", "Write plan", "Left out", "not chosen"))
    return bool(lines) and "press any key to go on" in lines[-1] and shown and "researched #1" not in screen


def _research_inspect_and_gate(t: Any) -> None:
    """Queue → add → the topic → research on the local web, inspect, gate."""
    _queue_and_open(t, "brief")
    t.press("r")
    t.wait("Uber Research")
    t.press("1")
    t.wait("researched #1", timeout=180)
    t.press("enter")
    t.press("i")
    t.wait_for(lambda: _inspected(t.screen()), "the pack and the write plan, then the pause", timeout=120)
    t.press("enter")
    t.press("g")
    t.wait("gate: OK", timeout=120)
    t.press("enter")
    t.press("esc")
    screen = t.wait("Queue: 1 topic(s)")
    assert "gated" in screen and "OK" in screen
    t.press("esc")


def _extract_review_and_promote(t: Any, workspace: Path) -> list[int]:
    """Knowledge → [8] extract → [5] keep two, edit one, delete one → [2] promote; the ids."""
    t.press("2")
    t.wait("[8] Extract facts (LLM)")
    t.press("8")
    t.wait("Extract facts from which topic?")
    t.press("1")
    t.wait("new fact(s)", timeout=300)
    t.press("enter")
    t.press("5")
    t.wait("fact(s)")
    ids = [r[0] for r in db(workspace).execute("SELECT id FROM facts WHERE status='pending' ORDER BY id")]
    assert len(ids) >= 4, ids
    t.press("k")
    t.wait("Keep which fact ids")
    t.type(f"{ids[0]} {ids[1]}")
    t.wait("kept 2 fact(s)")
    t.press("e")
    t.wait("Edit which fact id")
    t.type(str(ids[2]))
    t.wait("Text:")
    t.child.send("\x01\x0b")  # Ctrl-A, Ctrl-K: clear the line
    t.type("Stadia launched in November 2019 with a small game library.")
    t.wait(f"fact {ids[2]} is now")
    t.press("d")
    t.wait("Delete which fact ids")
    t.type(str(ids[3]))
    t.wait("Delete fact(s)")
    t.press("y")
    t.wait("deleted 1 fact(s)")
    t.press("esc")
    t.wait("[2] Promote")
    t.press("2")
    t.wait("Promote which topic")
    t.press("1")
    t.wait("promoted 3 fact(s)", timeout=120)
    t.press("enter")
    t.press("esc")
    return ids


def test_menus_take_a_topic_from_the_queue_to_an_article(term: Any, web_env: Path, cli: Any) -> None:
    config = web_env / "config.toml"
    config.write_text(config.read_text().replace("max_pages = 8", "max_pages = 4")
                      + "\n[llm]\nmax_tokens = 120\ntemperature = 0.0\nseed = 11\ntimeout = 900\nthreads = 1\n"
                      "\n[writing]\nmax_units = 3\nmin_sentences = 3\n"
                      "\n[retrieval]\nfinal_top = 8\n"
                      # The menu calls extract_facts like `nonseq knowledge extract`; its LLM path is
                      # tested in test_knowledge.py, here extractive facts keep the run short.
                      "\n[knowledge]\nuse_llm = false\n"
                      '\n[paths]\nschemas_dir = "schemas"\n')
    (web_env / "schemas").mkdir()
    (web_env / "schemas" / "brief.toml").write_text(BRIEF, encoding="utf-8")
    t = term(web_env)
    _research_inspect_and_gate(t)
    ids = _extract_review_and_promote(t, web_env)
    # Queue → the topic → write.
    t.press("1")
    t.wait("Choose a topic")
    t.press("t")
    t.press("1")
    t.press("w")
    t.wait("unsupported sentences", timeout=600)  # the figures line of an article or a draft
    t.press("enter")
    t.press("esc", "esc")
    # Articles → review the article: each sentence beside its source sentence(s).
    t.wait("Main menu")
    t.press("4")
    t.wait("Review an article")
    t.press("r")
    t.wait("Which article?")
    t.press("1")
    t.wait("with words written in (listed first)")
    assert "1. [" in t.transcript and "     [1] " in t.transcript
    t.press("enter")
    t.leave(2)

    conn = db(web_env)
    facts = {r["id"]: dict(r) for r in conn.execute("SELECT id, status, text FROM facts")}
    assert facts[ids[0]]["status"] == facts[ids[1]]["status"] == "promoted"
    assert facts[ids[2]]["status"] == "promoted"
    assert facts[ids[2]]["text"] == "Stadia launched in November 2019 with a small game library."
    assert facts[ids[3]]["status"] == "deleted"
    topic = conn.execute("SELECT stage, priority, sub_queries FROM topics").fetchone()
    assert topic["priority"] == 2 and json.loads(topic["sub_queries"]) == ["Stadia launch review"]
    assert topic["stage"] in ("written", "draft")
    articles = list((web_env / "articles").glob("google-stadia-game-streaming-launch*.md"))
    assert articles, "the article file is written"
    found = json.loads(cli("knowledge", "search", "Stadia November 2019 small game library",
                           "--json").stdout)
    assert any("small game library" in hit["text"] for hit in found)


def test_inspect_and_promote_hand_written_text_then_search_it(term: Any, isolated: Path) -> None:
    text = ("Axolotls regrow whole limbs, including bone, muscle and nerves, because cells near the "
            "wound return to an embryo-like state and rebuild the missing structures.")
    t = term(isolated)
    t.wait("Main menu")
    t.press("2")
    t.wait("[3] Inspect & Promote")
    t.press("3")
    t.wait("Type it here")
    t.press("t")
    t.wait("Text:")
    t.type(text)
    t.wait("chunk 1 of 1")
    t.wait("Promote these 1 chunk(s)")
    t.press("y")
    t.wait("Category")
    t.press(t.key_for("science"))
    t.wait("Evergreen")
    t.press("y")
    t.wait("promoted 1 chunk(s) into the knowledge base")
    t.press("enter")
    t.press("4")
    t.wait("Search for")
    t.type("how do axolotls regrow limbs")
    t.wait("embryo-like state")
    t.press("enter")
    t.press("6")
    t.wait("status: promoted 1")
    t.press("enter")
    t.leave(2)
    row = db(isolated).execute("SELECT status, kind, category, text FROM facts").fetchone()
    assert (row["status"], row["kind"], row["category"]) == ("promoted", "evergreen", "science")
    assert row["text"] == text
