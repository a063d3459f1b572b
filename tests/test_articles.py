"""Tests for nonseq.writing.articles and `nonseq articles`: output, atomic versioned writes, listing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from nonseq.errors import NotFoundError, UsageError
from nonseq.models import Candidate, Chunk, ContextPack, SourceKind, Topic
from nonseq.verify.grounding import GroundingResult, check_grounding
from nonseq.writing import articles
from nonseq.writing.articles import (
    find_article,
    list_articles,
    prompt_path,
    read_article,
    write_article,
)
from nonseq.writing.personas import get_persona
from nonseq.writing.schemas import load_schema
from nonseq.writing.sources import FactChunk, SourceRef

SOURCES = [SourceRef(1, "Heat pump sales fall", "https://a.example/1"),
           SourceRef(2, "Why [costs] matter", "https://b.example/2"),
           SourceRef(3, "Never cited", "https://c.example/3")]
BODY = "# Heat pumps stall\n\nSales fell 21 percent [1]. Costs stay high [2][1].\n"
FIGURES = GroundingResult(text=BODY, citations=3, resolved=2, removed=1, added=1, unsupported=0,
                          sentences=2)


def write(folder: Path, **kw) -> articles.Article:  # noqa: ANN003
    """write_article with test defaults."""
    args = {"slug": "heat-pumps", "title": "Heat pump sales fall in Europe", "body": BODY,
            "sources": SOURCES, "grounding": FIGURES, "category": "climate",
            "persona": "the-skeptic", "schema": "news", "model": "test-model",
            "prompt": "# Prompt\n", "date": "2026-01-02T03:04:05+00:00"}
    return write_article(folder, **{**args, **kw})


def test_front_matter_sources_and_prompt(tmp_path: Path) -> None:
    """YAML front matter with the figures, a Sources section of the cited sources, the prompt."""
    art = write(tmp_path / "articles")
    path = Path(art.path)
    assert path == tmp_path / "articles" / "heat-pumps.md"
    meta, body = read_article(path)
    assert meta["title"] == "Heat pumps stall" and meta["topic"] == "Heat pump sales fall in Europe"
    assert (meta["slug"], meta["category"], meta["persona"], meta["schema"], meta["model"]) == (
        "heat-pumps", "climate", "the-skeptic", "news", "test-model")
    assert meta["date"] == "2026-01-02T03:04:05+00:00"
    assert meta["sources"] == [{"n": 1, "title": "Heat pump sales fall", "url": "https://a.example/1"},
                               {"n": 2, "title": "Why [costs] matter", "url": "https://b.example/2"}]
    assert meta["sources_provided"] == 3
    assert {k: meta[k] for k in FIGURES.figures()} == FIGURES.figures()
    assert meta["prompt"] == "heat-pumps.prompt.md"
    assert body.startswith("# Heat pumps stall\n\nSales fell 21 percent [1].")
    sources = body.split("## Sources\n\n")[1]
    assert sources.splitlines() == ["- [1] Heat pump sales fall — <https://a.example/1>",
                                    "- [2] Why \\[costs\\] matter — <https://b.example/2>"]
    assert prompt_path(path).read_text(encoding="utf-8") == "# Prompt\n"
    assert (art.citations, art.resolved, art.added, art.removed) == (3, 2, 1, 1)
    assert [s["n"] for s in art.sources] == [1, 2]


def test_headline_added_when_missing(tmp_path: Path) -> None:
    """A body without `# ` gets the topic title as headline; no citations → a plain note."""
    art = write(tmp_path, body="Just prose without markers.", prompt=None)
    meta, body = read_article(Path(art.path))
    assert body.startswith("# Heat pump sales fall in Europe\n\nJust prose")
    assert meta["sources"] == [] and "No sources are cited" in body and "prompt" not in meta
    assert not prompt_path(Path(art.path)).exists()


def test_never_overwrites_versions_instead(tmp_path: Path) -> None:
    """Second and third writes get -2 and -3, with matching prompt files; the first is untouched."""
    first = Path(write(tmp_path).path)
    before = first.read_bytes()
    second = Path(write(tmp_path, body="# Second\n\nOther text [1].").path)
    third = Path(write(tmp_path, prompt=None).path)
    assert (second.name, third.name) == ("heat-pumps-2.md", "heat-pumps-3.md")
    assert first.read_bytes() == before
    assert read_article(second)[0]["prompt"] == "heat-pumps-2.prompt.md"
    assert (tmp_path / "heat-pumps-2.prompt.md").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "heat-pumps-2.md", "heat-pumps-2.prompt.md", "heat-pumps-3.md", "heat-pumps.md",
        "heat-pumps.prompt.md"]


def test_a_stray_prompt_file_reserves_its_name(tmp_path: Path) -> None:
    """An orphan <slug>.prompt.md is not overwritten: the article takes the next free name."""
    (tmp_path / "heat-pumps.prompt.md").write_text("old audit", encoding="utf-8")
    assert Path(write(tmp_path).path).name == "heat-pumps-2.md"
    assert (tmp_path / "heat-pumps.prompt.md").read_text(encoding="utf-8") == "old audit"


def test_force_overwrites_in_place(tmp_path: Path) -> None:
    """force=True replaces <slug>.md (and its prompt; a stale prompt is removed)."""
    write(tmp_path)
    art = write(tmp_path, body="# New\n\nReplaced [2].", force=True)
    assert Path(art.path).name == "heat-pumps.md"
    assert read_article(Path(art.path))[0]["title"] == "New"
    write(tmp_path, force=True, prompt=None)
    assert not (tmp_path / "heat-pumps.prompt.md").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heat-pumps.md"]


def test_atomic_failure_leaves_old_file_and_no_temp(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash at the replace step keeps the old article whole and leaves no temp file."""
    path = Path(write(tmp_path).path)
    before = path.read_bytes()

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        write(tmp_path, body="# Broken", force=True)
    assert path.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_works_without_hard_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On file systems without hard links the claim falls back to check + replace."""
    def no_link(src: str, dst: str) -> None:
        raise OSError("links not supported")

    monkeypatch.setattr(os, "link", no_link)
    names = [Path(write(tmp_path).path).name for _ in range(2)]
    assert names == ["heat-pumps.md", "heat-pumps-2.md"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_invalid_slug(tmp_path: Path) -> None:
    """Slugs that are not file-safe are refused."""
    with pytest.raises(UsageError, match="invalid article slug"):
        write(tmp_path, slug="../escape")


def test_list_show_and_find(tmp_path: Path) -> None:
    """Newest first; prompt copies are not articles; unreadable front matter is reported."""
    write(tmp_path, date="2026-01-01T00:00:00+00:00")
    write(tmp_path, slug="later", date="2026-02-01T00:00:00+00:00")
    (tmp_path / "broken.md").write_text("---\ntitle: [unclosed\n---\nx", encoding="utf-8")
    rows = list_articles(tmp_path)
    assert [r["file"] for r in rows] == ["later.md", "heat-pumps.md", "broken.md"]
    assert rows[0]["citations"] == 3 and rows[0]["sources"] == 2
    assert "not valid YAML" in rows[2]["error"]
    assert find_article(tmp_path, "later") == tmp_path / "later.md"
    assert find_article(tmp_path, "heat-pumps.md") == tmp_path / "heat-pumps.md"
    assert find_article(tmp_path, str(tmp_path / "later.md")) == tmp_path / "later.md"
    with pytest.raises(NotFoundError, match="no article 'nope'"):
        find_article(tmp_path, "nope")
    assert list_articles(tmp_path / "missing") == []


def test_cli(cli, ws) -> None:  # noqa: ANN001
    """articles list/show with JSON, and one-line errors with exit codes."""
    assert "no articles yet" in cli("articles", "list").stdout
    write(ws.articles_dir)
    write(ws.articles_dir)
    rows = json.loads(cli("articles", "list", "--json").stdout)
    assert [r["file"] for r in rows] == ["heat-pumps-2.md", "heat-pumps.md"]
    assert "heat-pumps-2.md" in cli("articles", "list").stdout
    text = cli("articles", "show", "heat-pumps-2").stdout
    assert text.startswith("---\n") and "## Sources" in text
    data = json.loads(cli("articles", "show", "heat-pumps", "--json").stdout)
    assert data["meta"]["slug"] == "heat-pumps" and data["body"].startswith("# Heat pumps")
    result = cli("articles", "show", "missing", code=1)
    assert result.stderr.startswith("error: no article 'missing'")
    assert len(result.stderr.strip().splitlines()) == 1


def test_pieces_compose_into_an_article(ws) -> None:  # noqa: ANN001
    """Facts and sources → check_grounding → write_article: markers resolved, added, removed."""
    topic = Topic(title="Heat pump sales fall in Europe", slug="heat-pumps", category="climate",
                  focus="why sales dropped", persona="the-skeptic", schema="news")

    def cand(text: str, url: str, title: str) -> Candidate:
        chunk = Chunk(text=text, topic_slug=topic.slug, category="climate", url=url, title=title)
        return Candidate(chunk=chunk, group=SourceKind.RESEARCH)

    pack = ContextPack(topic=topic, query=topic.query, research=[
        cand("Heat pump sales in Europe fell by 21 percent in 2024, according to the European "
             "Heat Pump Association.", "https://ehpa.example/stats", "EHPA market report"),
        cand("Installers say the upfront cost remains the main barrier for households.",
             "https://install.example/cost", "Installer survey")])
    persona, schema = get_persona(ws, topic.persona), load_schema(ws, topic.schema)
    facts = [FactChunk(n, c.chunk.text, c.chunk.url, c.chunk.title, "research", n - 1)
             for n, c in enumerate(pack.research, 1)]
    sources = [SourceRef(f.n, f.title, f.url) for f in facts]
    body = ("# Heat pumps stall\n\nHeat pump sales in Europe fell by 21 percent in 2024 [1]. For "
            "households, the upfront cost remains the main barrier [5]. Nobody knows what next year brings.")
    result = check_grounding(body, facts, tokenize=ws.sparse.tokenize, embed=ws.embedder.embed)
    art = write_article(ws.articles_dir, slug=topic.slug, title=topic.title, body=result.text,
                        sources=sources, grounding=result, category=topic.category,
                        persona=persona.name, schema=schema.name, model="fake",
                        prompt="# Prompt\n\n[5] was the model's", made={"generated": 3})
    meta, text = read_article(Path(art.path))
    assert (meta["resolved"], meta["removed"], meta["added"]) == (1, 1, 1)
    assert (meta["citations"], meta["unsupported"], meta["sentences"]) == (2, 1, 3)
    assert "main barrier [2]." in text and "[5]" not in text
    assert [s["url"] for s in meta["sources"]] == ["https://ehpa.example/stats",
                                                   "https://install.example/cost"]
    audit = prompt_path(Path(art.path)).read_text(encoding="utf-8")
    assert "[5]" in audit and meta["made"] == {"generated": 3} and art.made == {"generated": 3}
    assert yaml.safe_load(Path(art.path).read_text(encoding="utf-8").split("---")[1])["slug"] == \
        "heat-pumps"


def test_a_pdf_source_is_cited_with_its_pages_and_path(tmp_path: Path) -> None:
    """A document's label names its pages; a local file is listed by its path, a web page by its URL."""
    from nonseq.models import page_label
    from nonseq.writing.articles import sources_section
    from nonseq.writing.sources import SourceRef

    pdf = (tmp_path / "Annual report 2025.pdf").as_uri()
    sources = [SourceRef(1, "Annual report 2025", pdf, "local", [14, 15]), SourceRef(2, "A", "https://a.example/x")]
    assert sources[0].label == "Annual report 2025, pp. 14\u201315" and sources[1].label == "A"
    assert sources[0].to_dict() == {"n": 1, "title": "Annual report 2025", "url": pdf, "pages": [14, 15],
                                    "path": str(tmp_path / "Annual report 2025.pdf")}
    section = sources_section(sources)
    assert f"- [1] Annual report 2025, pp. 14\u201315 \u2014 `{tmp_path}/Annual report 2025.pdf`" in section
    assert "- [2] A \u2014 <https://a.example/x>" in section
    assert page_label([14]) == "p. 14" and page_label([3, 14, 15, 16]) == "pp. 3, 14\u201316"
    assert page_label([]) == ""
