"""The knowledge base: extraction from real pages, dedup merge, review moves, promotion and wipe,
export/import, hand-written knowledge, and `queue edit --category` moving research along."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from scripted_llm import ScriptedModel

from devkit.child import child_argv, child_env
from nonseq import knowledge, queue
from nonseq.config import load_settings
from nonseq.index.vector_store import EVERGREEN, knowledge_collection, research_collection
from nonseq.knowledge import dedup, records
from nonseq.knowledge.extract import Page, extractive_facts, find_quote, topic_pages
from nonseq.knowledge.records import FactRecord
from nonseq.models import Topic
from nonseq.research.chunking import merge_overlap
from nonseq.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]

WEB = Path(__file__).resolve().parents[2] / "shared" / "data" / "web" / "scrapinghub-aeb"
#: Real news pages about Apple's MacBook Pro keyboards (the Article Extraction Benchmark).
MACBOOK = ["232a43fb15ab", "65bf3048b500"]
MACBOOK_MORE = ["5fa5679de56c"]


def _page_file(tmp: Path, prefix: str) -> str:
    """A benchmark page written out as a local HTML file."""
    src = next((WEB / "html").glob(f"{prefix}*.html.gz"))
    out = tmp / f"{prefix}.html"
    out.write_bytes(gzip.decompress(src.read_bytes()))
    return str(out)


@pytest.fixture(autouse=True)
def extractive_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Extraction without the LLM unless a test asks for it (the LLM path has its own test)."""
    monkeypatch.setenv("NONSEQ_KNOWLEDGE__USE_LLM", "false")


def _researched(cli, tmp: Path, title: str, pages: list[str] | None, focus: str = "",  # noqa: ANN001
                category: str = "hardware") -> int:
    """A topic researched from real local pages (or, with pages=None, by searching); its id."""
    topic = json.loads(cli("queue", "add", title, "--category", category, "--focus", focus,
                           "--json").stdout)
    files = [a for p in pages or [] for a in ("--file", _page_file(tmp, p))]
    cli("research", str(topic["id"]), *files, "--json")
    return int(topic["id"])


def _facts(cli, *args: str) -> list[dict]:  # noqa: ANN001
    """`knowledge list --json` with extra arguments."""
    return json.loads(cli("knowledge", "list", "--json", *args).stdout)


def _count(collection: str, match: dict | None = None) -> int:
    """Points in a collection (a workspace opened and closed again)."""
    with Workspace(load_settings()) as ws:
        return ws.store.count(collection, match)


def test_extract_review_promote_wipe_and_reuse(cli, web_env: Path, local_web,  # noqa: ANN001
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """On the local web through the real SearXNG: facts come from the fetched pages with verbatim
    quotes; review moves; promotion wipes the research only once nothing is pending; a similar
    topic then gets the facts (and the evergreen one), and the wiped topic still gates."""
    monkeypatch.setenv("NONSEQ_RESEARCH__MAX_PAGES", "4")
    tid = _researched(cli, web_env, "Google Stadia game streaming launch", None, category="software")
    out = json.loads(cli("knowledge", "extract", str(tid), "--json").stdout)
    assert out["pages"] >= 2 and out["new"] >= 4 and out["extractive"] == out["new"]
    facts = _facts(cli)
    assert len(facts) == out["new"] and {f["status"] for f in facts} == {"pending"}
    assert all(f["topic"] == "google-stadia-game-streaming-launch" and f["support"] is not None
               for f in facts)
    assert all(f["quote"] and f["url"].startswith("http://") for f in facts)
    assert any("stadia" in f["text"].lower() for f in facts)
    again = json.loads(cli("knowledge", "extract", str(tid), "--json").stdout)
    assert again["skipped"] == out["pages"] and again["new"] == 0 and len(_facts(cli)) == len(facts)

    ids = [f["id"] for f in facts]
    cli("knowledge", "keep", str(ids[0]), str(ids[1]))
    cli("knowledge", "edit", str(ids[2]), "--text", facts[2]["text"] + " (edited)")
    cli("knowledge", "edit", str(ids[3]), "--kind", "evergreen")
    cli("knowledge", "keep", str(ids[3]))
    report = json.loads(cli("knowledge", "promote", str(tid), "--json").stdout)
    waiting = len(ids) - 4
    assert report["promoted"] == 4 and report["wiped"] is (waiting == 0)
    if waiting:
        assert report["pending"] == waiting and _count(research_collection("software")) > 0
        cli("knowledge", "delete", *map(str, ids[4:]))
        report = json.loads(cli("knowledge", "promote", str(tid), "--json").stdout)
    assert report["wiped"] and _count(research_collection("software")) == 0
    assert _count(knowledge_collection("software")) == 3 and _count(EVERGREEN) == 1
    shown = json.loads(cli("knowledge", "show", str(ids[2]), "--json").stdout)
    assert shown["status"] == "promoted" and shown["original_text"] == facts[2]["text"]
    assert [d["status"] for d in shown["decisions"]] == ["pending", "edited", "promoted"]
    assert {f["status"] for f in _facts(cli, "--status", "deleted")} <= {"deleted"}

    other = json.loads(cli("queue", "add", "Stadia resolution and frame rate", "-c", "software",
                           "--json").stdout)["id"]
    page = next(p for p in local_web.topic_pages("stadia") if "4K" in p.title)
    cli("research", str(other), "--url", local_web.url(page.host, page.path), "--json")
    pack = json.loads(cli("inspect", str(other), "--json").stdout)
    groups = {c["group"] for c in pack["research"]}
    assert "knowledge" in groups and "research" in groups
    rs = load_settings().retrieval  # final = weight x normalized x (1 + trust_prior x boost <= 1)
    for c in (c for c in pack["research"] if c["group"] == "knowledge"):
        low = rs.weight_knowledge * c["scores"]["normalized"]
        assert low - 1e-3 <= c["scores"]["final"] <= low * (1 + rs.trust_prior) + 1e-3, c["scores"]
    assert pack["evergreen"], "the evergreen fact reaches the background knowledge"
    gate = json.loads(cli("gate", str(tid), "--json", code=None).stdout)
    assert gate["chunks"] == 3, "a wiped topic is gated on its own promoted facts"
    wiped = json.loads(cli("inspect", str(tid), "--json").stdout)
    assert {c["group"] for c in wiped["research"]} == {"knowledge"}


def test_near_duplicates_merge_as_corroboration(ws: Workspace) -> None:
    """A near-duplicate from another source corroborates; one from the same source or after a
    deleted fact is dropped."""
    index = dedup.FactIndex(ws.db, "hardware", ws.embedder.name, 0.92)
    text = "Apple released the 16-inch MacBook Pro with a scissor keyboard in November 2019."
    twin = "Apple released the 16-inch MacBook Pro with a scissor keyboard in November, 2019."

    def fact(t: str, url: str) -> FactRecord:
        return FactRecord(text=t, category="hardware", url=url, quote=t, extractor="extractive")

    vec = ws.embedder.embed([text, twin, "Heat pumps work below freezing in Norway."])
    with records.transaction(ws.db):
        assert dedup.resolve(ws.db, index, fact(text, "https://a.example/1"), vec[0]) == dedup.NEW
        assert dedup.resolve(ws.db, index, fact(twin, "https://b.example/2"), vec[1]) == dedup.MERGED
        assert dedup.resolve(ws.db, index, fact(twin, "https://a.example/1"), vec[1]) == dedup.DROPPED
        assert dedup.resolve(ws.db, index, fact("Heat pumps work below freezing in Norway.",
                                                "https://c.example"), vec[2]) == dedup.NEW
    first = knowledge.list_facts(ws)[0]
    assert first.sources == 2 and first.corroborations[0]["url"] == "https://b.example/2"
    knowledge.delete_facts(ws, [int(first.id or 0)])
    index = dedup.FactIndex(ws.db, "hardware", ws.embedder.name, 0.92)
    with records.transaction(ws.db):
        assert dedup.resolve(ws.db, index, fact(twin, "https://d.example"), vec[1]) == dedup.DROPPED
    assert len(knowledge.list_facts(ws)) == 1


def test_status_moves_and_bad_input(cli, ws: Workspace) -> None:  # noqa: ANN001
    """keep/edit/delete move statuses with a timed decision each; bad input is one line, exit != 0."""
    with records.transaction(ws.db):
        ids = [records.insert(ws.db, FactRecord(text=f"Fact number {n} about keyboards.",
                                                category="hardware", quote=f"Fact number {n} about keyboards.",
                                                extractor="extractive")) for n in range(3)]
    ws.close()
    cli("knowledge", "keep", str(ids[0]))
    cli("knowledge", "delete", str(ids[1]))
    cli("knowledge", "edit", str(ids[2]), "--text", "Fact number 2 about keyboards, edited.")
    by_id = {f["id"]: f for f in _facts(cli)}
    assert set(by_id) == {ids[0], ids[2]}
    assert by_id[ids[0]]["status"] == "kept" and by_id[ids[2]]["status"] == "edited"
    assert by_id[ids[2]]["original_text"] == "Fact number 2 about keyboards."
    assert [f["id"] for f in _facts(cli, "--status", "deleted")] == [ids[1]]
    cli("knowledge", "keep", str(ids[1]))
    assert json.loads(cli("knowledge", "show", str(ids[1]), "--json").stdout)["status"] == "kept"
    for args in (("show", "999"), ("list", "--status", "maybe"), ("edit", str(ids[0]), "--kind", "x"),
                 ("edit", str(ids[0]))):
        result = cli("knowledge", *args, code=None)
        assert result.exit_code != 0 and "Traceback" not in result.output
        assert len(result.stderr.strip().splitlines()) == 1


def test_export_import_round_trip(cli, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """Every fact (with evidence and decisions) survives an export/import into an empty workspace;
    promoted ones are re-embedded there, and a second import adds nothing."""
    cli("knowledge", "add", "--category", "hardware", "--evergreen", "--text",
        "A scissor keyboard uses a scissor-shaped mechanism under each key.")
    with Workspace(load_settings()) as ws, records.transaction(ws.db):
        records.insert(ws.db, FactRecord(text="Pending fact about keyboards.", category="hardware",
                                         quote="Pending fact about keyboards.", support=0.8,
                                         flags=["missing_number"], extractor="extractive"))
    dump = isolated / "kb.jsonl"
    cli("knowledge", "export", str(dump))
    before = [json.loads(line) for line in dump.read_text().splitlines()]
    monkeypatch.setenv("NONSEQ_PATHS__DATA_DIR", str(isolated / "other"))
    assert json.loads(cli("knowledge", "stats", "--json").stdout)["facts"] == 0
    assert "imported 2 of 2" in cli("knowledge", "import", str(dump)).stdout
    assert "imported 0 of 2" in cli("knowledge", "import", str(dump)).stdout
    cli("knowledge", "export", str(isolated / "again.jsonl"))
    after = [json.loads(line) for line in (isolated / "again.jsonl").read_text().splitlines()]
    strip = ("updated_at",)
    assert [{k: v for k, v in f.items() if k not in strip} for f in after] == \
           [{k: v for k, v in f.items() if k not in strip} for f in before]
    assert _count(EVERGREEN) == 1
    hits = json.loads(cli("knowledge", "search", "scissor mechanism", "--json").stdout)
    assert hits and "scissor" in hits[0]["text"]
    promoted = hits[0]["fact_id"]
    cli("knowledge", "edit", str(promoted), "--kind", "topic")  # the point moves at once
    assert (_count(EVERGREEN), _count(knowledge_collection("hardware"))) == (0, 1)
    cli("knowledge", "delete", str(promoted))  # a promoted fact loses its point
    assert _count(knowledge_collection("hardware")) == 0
    bad = isolated / "bad.jsonl"
    bad.write_text('{"text": "no uid"}\n')
    assert "bad.jsonl:1" in cli("knowledge", "import", str(bad), code=2).stderr


def test_prose_filter_and_quotes() -> None:
    """Navigation and reference lists yield no facts; quotes are found despite spacing and case;
    overlapping chunks join without repeating their shared sentences."""

    class _Ws:
        class sparse:  # noqa: N801 - a stand-in with the tokenizer only
            @staticmethod
            def tokenize(text: str) -> list[str]:
                return [w.strip(".,").lower() for w in text.split()]

    topic = Topic("MacBook keyboard", "macbook-keyboard", "hardware")
    nav = Page("https://x.example", text="Home\nNews\nMacBook\nSubscribe to our newsletter\n"
               "[1] MacBook keyboard review, The Verge, 2019.\n[2] MacBook keyboard, Wired.")
    assert extractive_facts(_Ws(), topic, nav, 5) == []
    prose = Page("https://x.example", text="Apple's new MacBook keyboard uses a scissor switch "
                 "mechanism, the company said on 13 November 2019 in Cupertino.")
    found = extractive_facts(_Ws(), topic, prose, 5)
    assert len(found) == 1 and found[0].quote == prose.text and found[0].quote_start == 0
    assert find_quote(prose.text, "the COMPANY said on  13 November") is not None
    assert find_quote(prose.text, "the company denied it on 13 November") is None
    loose = find_quote(prose.text, "the new MacBook keyboard of Apple uses a scissor mechanism")
    assert loose == (0, len(prose.text)), "a loose copy stands for the page's own sentence"
    assert merge_overlap("Alpha beta gamma. Delta epsilon zeta.", "Delta epsilon zeta. Eta theta.") \
        == "Alpha beta gamma. Delta epsilon zeta. Eta theta."
    assert merge_overlap("Alpha beta.", "Gamma delta.") == "Alpha beta.\nGamma delta."


def test_kill_between_promotion_and_wipe(cli, isolated: Path) -> None:  # noqa: ANN001
    """SIGKILL after the points are stored but before the wipe: the rerun finishes the wipe,
    with no duplicate point and no kept fact lost."""
    tid = _researched(cli, isolated, "16-inch MacBook Pro keyboard", MACBOOK[:1], "scissor keyboard")
    cli("knowledge", "extract", str(tid))
    ids = [f["id"] for f in _facts(cli)]
    cli("knowledge", "keep", *map(str, ids))
    proc = subprocess.Popen(child_argv(["knowledge", "promote", str(tid)]), cwd=isolated,
                            env=child_env(NONSEQ_TEST_PAUSE_AT="promote"), stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL)
    try:
        assert proc.stderr is not None
        lines = iter(proc.stderr.readline, b"")  # ends when the child closes stderr (it exited)
        paused = any(b"paused at promote" in line for line in lines)
        assert paused, f"promote ended (exit {proc.wait(30)}) before the pause"
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _count(knowledge_collection("hardware")) == len(ids)
    assert _count(research_collection("hardware")) > 0
    report = json.loads(cli("knowledge", "promote", str(tid), "--json").stdout)
    assert report["wiped"] and _count(research_collection("hardware")) == 0
    assert _count(knowledge_collection("hardware")) == len(ids)
    assert {f["status"] for f in _facts(cli)} == {"promoted"} and len(_facts(cli)) == len(ids)


def test_queue_edit_category_moves_research(cli, isolated: Path) -> None:  # noqa: ANN001
    """Research chunks follow a topic into its new category, and a later remove finds them
    (and promotion never wipes research that was not distilled into facts)."""
    tid = _researched(cli, isolated, "16-inch MacBook Pro keyboard", MACBOOK[:1])
    before = _count(research_collection("hardware"))
    assert before > 0
    report = json.loads(cli("knowledge", "promote", str(tid), "--json").stdout)
    assert not report["wiped"] and "not distilled" in report["note"], "never wipe unread research"
    assert _count(research_collection("hardware")) == before
    assert "moved" in cli("queue", "edit", str(tid), "--category", "science").stdout
    assert _count(research_collection("hardware")) == 0
    assert _count(research_collection("science")) == before
    cli("queue", "remove", str(tid))
    assert _count(research_collection("science")) == 0


def test_llm_facts_need_a_real_quote_and_support(cli, isolated: Path,  # noqa: ANN001
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The LLM's fact is kept with its model and prompt version when its quote is in the page;
    an invented quote is rejected; an unusable answer falls back to extractive facts."""
    tid = _researched(cli, isolated, "16-inch MacBook Pro keyboard", MACBOOK, "scissor keyboard")
    with Workspace(load_settings()) as ws:
        first = topic_pages(ws, queue.get_topic(ws.db, tid))[0]
    sentence = next(s for s in first.text.split(". ") if "keyboard" in s and 60 < len(s) < 300)
    good = {"text": sentence.strip() + ".", "quote": sentence.strip(), "kind": "evergreen"}
    invented = {"text": "Apple sold nine billion MacBook Pro keyboards in 1850.",
                "quote": "Apple sold nine billion MacBook Pro keyboards in 1850", "kind": "topic"}
    model = ScriptedModel([json.dumps({"facts": [good, invented]}), "no JSON here, sorry"])
    monkeypatch.setenv("NONSEQ_KNOWLEDGE__USE_LLM", "true")
    with Workspace(load_settings(), llm=model) as ws, ws.lock("knowledge extract"):
        report = knowledge.extract_facts(ws, tid).to_dict()
    assert report["llm"] == 1 and report["rejected"] == 1 and report["extractive"] >= 1
    facts = _facts(cli)
    by_llm = [f for f in facts if f["extractor"] != "extractive"]
    assert len(by_llm) == 1 and by_llm[0]["extractor"] == "scripted/facts-v1"
    assert by_llm[0]["kind"] == "evergreen" and by_llm[0]["url"] == first.url
    assert first.text[by_llm[0]["quote_start"]:by_llm[0]["quote_end"]] == by_llm[0]["quote"]
    assert all(f["url"] != first.url for f in facts if f["extractor"] == "extractive")
    assert not any("1850" in f["text"] for f in facts)


def test_review_keys_keep_every_decision(ws: Workspace) -> None:
    """Riskiest first; k keeps, s switches kind, d deletes, e edits inline, q stops: every
    decision made before quitting is stored."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console

    from nonseq.ui.fact_review import review

    texts = ["Apple shipped the 16-inch MacBook Pro in November 2019.",
             "The MacBook Pro keyboard uses scissor switches.",
             "iFixit tore down the 16-inch MacBook Pro.",
             "The Touch Bar stays on the 16-inch model.",
             "The butterfly keyboard was introduced in 2015."]
    with records.transaction(ws.db):
        ids = [records.insert(ws.db, FactRecord(text=t, category="hardware", quote=t, support=s,
                                                extractor="extractive"))
               for t, s in zip(texts, [0.9, 0.2, 0.5, 0.7, 0.95], strict=True)]
    assert [f.id for f in knowledge.review_queue(ws)] == [ids[1], ids[2], ids[3], ids[0], ids[4]]
    with create_pipe_input() as pipe:
        pipe.send_text("k" "s" "k" "d" "e" + "\x7f" * 8 + "Pro model.\r" "q")
        pipe.close()  # a missing key ends the review instead of waiting forever
        summary = review(ws, console=Console(file=open(os.devnull, "w")),  # noqa: SIM115
                         input=pipe, output=DummyOutput())
    assert (summary.kept, summary.switched, summary.deleted, summary.edited) == (2, 1, 1, 1)
    assert summary.left == 1
    got = {f.id: f for f in knowledge.list_facts(ws, status=None)}
    assert got[ids[1]].status == "kept" and got[ids[2]].kind == "evergreen"
    assert got[ids[2]].status == "kept" and ids[3] not in got
    assert got[ids[0]].status == "edited" and got[ids[0]].text.endswith("Pro model.")
    assert got[ids[4]].status == "pending"


def test_a_fact_that_swaps_who_does_what_is_not_kept(ws: Workspace) -> None:
    """The extraction check reads who does what: a fact whose names trade places in its quote is flagged
    `swapped_role` and left out, where the word-overlap score alone would keep it; the faithful fact stays."""
    from nonseq.knowledge.extract import check

    quote = "MNT is the registered trade mark of Healthline Media, which bought it in 2016."
    swapped = FactRecord(text="Healthline Media is the registered trade mark of MNT.", category="health", quote=quote)
    faithful = FactRecord(text="MNT is the registered trade mark of Healthline Media.", category="health", quote=quote)
    kept = check(ws, [swapped, faithful])
    assert kept == [faithful] and "swapped_role" not in faithful.flags
    assert "swapped_role" in swapped.flags and swapped.support is not None
    assert swapped.support < faithful.support
