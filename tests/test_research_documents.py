"""Research from documents: folders of real files, PDFs from the local web, page-level citations.

Real parts only: the fixture documents (tests/fixtures/documents, licences in LICENSES.md), the
document reader's child process, embedded Qdrant, the bundled embedder and the real small LLM. The
only generated documents are the crafted bombs of devkit/pdf_bombs.py.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from devkit import pdf_bombs
from devkit.llm_servers import BRIEF
from nonseq.events import Event, Step
from tests.web import DOCS_DIR, LocalWeb, write_config

pytestmark = [pytest.mark.slow]

TOPIC = "fonts-conf fontconfig font configuration"
PDF = "fontconfig-user.pdf"
SETTINGS = ("[research]\nmin_text_chars = 100\ndocument_seconds = 10\ndocument_memory_mb = 256\n"
            "\n[llm]\nmax_tokens = 120\ntemperature = 0.0\nseed = 11\n\n[writing]\nmax_units = 3\nmin_sentences = 3\n"
            "\n[retrieval]\nfinal_top = 8\n\n[knowledge]\nuse_llm = false\n"
            '\n[paths]\nschemas_dir = "schemas"\n')


@pytest.fixture
def env(isolated: Path) -> Path:
    """A workspace whose research comes from the user's files only (no search needed)."""
    (isolated / "config.toml").write_text(SETTINGS, encoding="utf-8")
    (isolated / "schemas").mkdir()
    (isolated / "schemas" / "brief.toml").write_text(BRIEF, encoding="utf-8")
    return isolated


def folder(root: Path, *names: str) -> Path:
    """A folder holding copies of the named fixture documents."""
    docs = root / "docs"
    docs.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(DOCS_DIR / name, docs / name)
    return docs


def research_json(cli: Any, *args: str) -> dict[str, Any]:
    """`nonseq research ... --json` parsed."""
    return json.loads(cli("research", *args, "--json").stdout)


def test_a_folder_of_documents_gates_writes_and_cites_the_pdf_by_page(cli: Any, env: Path) -> None:
    docs = folder(env, PDF, "par-hlink-frags.docx", "pango-README.md")
    cli("queue", "add", TOPIC, "-c", "software", "--schema", "brief")
    summary = research_json(cli, "1", "--file", str(docs))
    assert summary["files"]["indexed"] == 3 and not summary["files"]["skipped"]
    pack = json.loads(cli("inspect", "1", "--json").stdout)
    pdf_url = (docs / PDF).resolve().as_uri()
    from_pdf = [c for c in pack["research"] + pack["pool"] if c["url"] == pdf_url]
    assert from_pdf and all(c["pages"] and c["local"] for c in from_pdf)
    assert all(1 <= n <= 15 for c in from_pdf for n in c["pages"])
    shown = cli("inspect", "1").stdout
    assert re.search(r"\[\d+\] fonts-conf, pp?\. [\d, –]+ — /\S*fontconfig-user\.pdf", shown), shown

    result = json.loads(cli("write", "1", "--no-input", "--json").stdout)
    assert result["outcome"] == "written" and result["verdict"]["status"] == "OK"
    assert result["verdict"]["domains"] == 3, "each local file counts as its own source"
    article = Path(result["article"]["path"]).read_text(encoding="utf-8")
    meta = yaml.safe_load(article.split("---\n", 2)[1])
    cited = {s["url"]: s for s in meta["sources"]}
    assert pdf_url in cited, "the PDF is cited"
    pdf = cited[pdf_url]
    assert pdf["pages"] and pdf["path"] == str((docs / PDF).resolve()) and pdf["title"] == "fonts-conf"
    body, sources = article.split("## Sources", 1)
    assert f"[{pdf['n']}]" in body
    label = "p." if len(pdf["pages"]) == 1 else "pp."
    line = next(x for x in sources.splitlines() if x.startswith(f"- [{pdf['n']}]"))
    assert line.startswith(f"- [{pdf['n']}] fonts-conf, {label} {pdf['pages'][0]}")
    assert line.endswith(f" — `{(docs / PDF).resolve()}`")


def test_facts_from_a_pdf_keep_the_page_of_their_quote(cli: Any, env: Path) -> None:
    docs = folder(env, PDF)
    cli("queue", "add", TOPIC, "-c", "software")
    cli("research", "1", "--file", str(docs / PDF))
    cli("knowledge", "extract", "1")
    facts = json.loads(cli("knowledge", "list", "--json").stdout)
    assert facts and all(f["pages"] for f in facts)
    pages = {n: p.text for n, p in _pdf_pages(docs / PDF).items()}
    for fact in facts:
        words = " ".join(fact["quote"].split())
        assert any(words in " ".join(pages[n].split()) for n in fact["pages"]), (fact["pages"], words)
    shown = cli("knowledge", "show", str(facts[0]["id"])).stdout
    assert re.search(r"source: fonts-conf, pp?\. \d+", shown)


def _pdf_pages(path: Path) -> dict[int, Any]:
    """The PDF's pages as the reader gives them, by number."""
    from nonseq.research.documents import DocumentReader

    return {p.number: p for p in DocumentReader().read(path).pages}


def test_bad_documents_are_each_skipped_on_one_line_then_counted(cli: Any, env: Path) -> None:
    docs = folder(env, "truncated.pdf", "encrypted-user-password.pdf", "scanned-c03-29.pdf", PDF)
    (docs / "bomb.pdf").write_bytes(pdf_bombs.xobject_fanout())
    (docs / "huge.docx").write_bytes(pdf_bombs.docx_zip_bomb(250))
    cli("queue", "add", TOPIC, "-c", "software")
    out = cli("research", "1", "--file", str(docs)).stdout
    expected = {"truncated.pdf": "unreadable PDF (", "encrypted-user-password.pdf": "encrypted PDF (needs a password)",
                "scanned-c03-29.pdf": "no text layer: scanned or image-only PDF",
                "bomb.pdf": "over the memory limit of 256 MB", "huge.docx": "a ZIP bomb?"}
    lines = out.splitlines()
    for name, reason in expected.items():
        line = next((x for x in lines if x.strip().startswith(f"skipped {docs / name}:")), "")
        assert reason in line, (name, out)
    counts = next(x for x in lines if "skipped by reason:" in x)
    for part in ("1 encrypted", "1 no_text", "1 unreadable", "2 too_large"):
        assert part in counts, counts
    assert "files: 6 found, 1 indexed, 0 unchanged (already indexed), 5 skipped" in out


def test_a_folder_is_resumable_and_a_changed_file_is_read_again(cli: Any, env: Path, open_store: Any) -> None:
    docs = folder(env, PDF)
    notes = docs / "notes.txt"
    shutil.copy(DOCS_DIR / "fontconfig-user.txt", notes)
    cli("queue", "add", TOPIC, "-c", "software")
    first = research_json(cli, "1", "--file", str(docs))
    assert first["files"]["indexed"] == 2
    again = research_json(cli, "1", "--file", str(docs), "--file", str(docs / PDF))
    files = again["files"]
    assert (files["found"], files["indexed"], files["unchanged"]) == (2, 0, 2)
    assert again["chunks"] == 0 and open_store() == first["chunks"], "nothing is indexed twice"

    shutil.copy(DOCS_DIR / "pango-README.md", notes)  # the same name, a shorter document
    os.utime(notes, ns=(notes.stat().st_atime_ns, notes.stat().st_mtime_ns + 10**9))
    changed = research_json(cli, "1", "--file", str(docs))
    assert changed["files"]["indexed"] == 1 and changed["files"]["unchanged"] == 1
    assert changed["stale_removed"] > 0  # the old text's chunks past the new text's last one
    assert open_store() == first["chunks"] - changed["stale_removed"]
    titles = _titles(notes.resolve().as_uri())
    assert titles == ["Pango"] * changed["chunks"], "the file's chunks are all the new text's"


def test_an_interrupted_folder_resumes_without_duplicates(cli: Any, env: Path, open_store: Any) -> None:
    from nonseq.config import load_settings
    from nonseq.pipeline import research
    from nonseq.workspace import Workspace

    docs = folder(env, PDF, "pango-README.md", "par-hlink-frags.docx")
    cli("queue", "add", TOPIC, "-c", "software")

    def interrupt(event: Event) -> None:
        if event.step is Step.INDEX and event.data.chunks:
            raise KeyboardInterrupt

    ws = Workspace(load_settings())
    try:
        with pytest.raises(KeyboardInterrupt):
            research.run_research(ws, 1, files=[docs], progress=interrupt)
    finally:
        ws.close()
    resumed = research_json(cli, "1", "--file", str(docs))
    assert resumed["resumed"] and resumed["stage"] == "researched"
    total = open_store()
    assert research_json(cli, "1", "--file", str(docs))["files"]["unchanged"] == 3
    assert open_store() == total == _distinct_points()


def _titles(url: str) -> list[str]:
    """The titles of a URL's research points."""
    from nonseq.config import load_settings
    from nonseq.workspace import Workspace

    ws = Workspace(load_settings())
    try:
        return [p.chunk.title for p in ws.store.scroll_all("research_software", {"url": url})]
    finally:
        ws.close()


def _distinct_points() -> int:
    """The research points, counted by (url, position): no duplicates means the same as the count."""
    from nonseq.config import load_settings
    from nonseq.workspace import Workspace

    ws = Workspace(load_settings())
    try:
        points = ws.store.scroll_all("research_software")
        return len({(p.chunk.url, p.chunk.position) for p in points})
    finally:
        ws.close()


@pytest.fixture
def open_store(env: Path) -> Any:
    """The number of research points of the workspace, read in a fresh workspace."""
    def count() -> int:
        from nonseq.config import load_settings
        from nonseq.workspace import Workspace

        ws = Workspace(load_settings())
        try:
            return ws.store.count("research_software")
        finally:
            ws.close()
    return count


@pytest.mark.usefixtures("loopback_only")
def test_a_pdf_on_the_web_is_fetched_and_indexed_with_its_pages(cli: Any, isolated: Path,
                                                                 local_web: LocalWeb) -> None:
    write_config(isolated, "http://127.0.0.1:9")  # no search: the PDF is the user's own URL
    url = local_web.url("science-c.test", "/papers/fontconfig-user.pdf")
    cli("queue", "add", TOPIC, "-c", "software")
    summary = research_json(cli, "1", "--url", url)
    assert summary["fetched"] == 1 and summary["chunks"] > 10 and summary["domains"] == ["science-c.test"]
    shown = json.loads(cli("queue", "show", "1", "--json").stdout)
    source = next(s for s in shown["sources"] if s["url"] == url)
    assert source["outcome"] == "fetched" and source["title"] == "fonts-conf"
    pack = json.loads(cli("inspect", "1", "--json").stdout)
    chunks = [c for c in pack["research"] + pack["pool"] if c["url"] == url]
    assert chunks and all(c["pages"] and not c["local"] for c in chunks)


def test_named_files_that_cannot_be_read_stop_before_anything_starts(cli: Any, env: Path) -> None:
    cli("queue", "add", TOPIC, "-c", "software")
    missing = cli("research", "1", "--file", str(env / "nowhere"), code=2)
    assert missing.stderr.strip() == f"error: no such file or folder: {env / 'nowhere'}"
    (env / "archive.docx").write_bytes(b"PK\x03\x04" + b"\x00" * 64)  # a broken ZIP named like a DOCX
    broken = cli("research", "1", "--file", str(env / "archive.docx"), code=2)
    assert "ZIP archive" in broken.stderr and broken.stderr.count("\n") == 1
    assert json.loads(cli("queue", "show", "1", "--json").stdout)["topic"]["stage"] == "queued"
