"""`nonseq articles export`: HTML, DOCX and PDF read back with real readers (lxml's HTML parser,
python-docx, pypdfium2): title, headings, [n] citations linked to their sources, the sources with
URLs and pages, front matter as metadata, drafts only on request, no overwrite without --force."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nonseq.errors import UsageError
from nonseq.writing.articles import render_article
from nonseq.writing.export import export_article
from nonseq.writing.sources import SourceRef

SOURCES = [SourceRef(1, "EHPA market report", "https://ehpa.example/stats"),
           SourceRef(2, "Annual report 2025", "file:///data/reports/annual.pdf", pages=[3, 4])]
BODY = """# Heat pumps stall in “Europe’s” market

Heat pump sales in Europe fell by 21 percent in 2024 [1]. The **annual report** says costs rose [2].

## Why sales fell

- Upfront cost is the main barrier [2].
- Subsidies changed in *Germany* [1].

## What comes next

Installers expect a slow year, see [the agency](https://agency.example/outlook) for more [1].
"""


def write(folder: Path, slug: str, body: str = BODY, *, title: str = "", status: str = "written",
          sources: list[SourceRef] = SOURCES) -> Path:
    """An article file as the writer saves it (front matter, body, Sources section)."""
    meta: dict[str, Any] = {
        "title": title or body.splitlines()[0].removeprefix("# "), "slug": slug,
        "topic": "Heat pump sales fall in Europe", "status": status, "category": "climate",
        "persona": "the-skeptic", "schema": "news", "date": "2026-12-01T10:00:00+00:00",
        "model": "SmolLM2", "sources": [s.to_dict() for s in sources], "citations": 5,
        "supported_share": 0.8}
    if status == "draft":
        meta["draft_reasons"] = ["only 2 sentences, need 5"]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug}.md"
    path.write_text(render_article(meta, body, sources), encoding="utf-8")
    return path


@pytest.fixture
def articles(isolated: Path) -> Path:
    """The workspace's articles folder with the heat pump article."""
    folder = isolated / "articles"
    write(folder, "heat-pumps")
    return folder


def test_html_keeps_everything_linked(articles: Path) -> None:
    """Title, headings, citations linking to the numbered sources, pages, metadata and front matter."""
    from lxml import html

    path = export_article(articles, "heat-pumps", "html")
    assert path == articles / "heat-pumps.html"
    tree = html.fromstring(path.read_bytes())
    assert tree.findtext(".//title") == "Heat pumps stall in “Europe’s” market"
    assert [h.text_content() for h in tree.iter("h1", "h2")] == [
        "Heat pumps stall in “Europe’s” market", "Why sales fell", "What comes next", "Sources"]
    cites = tree.xpath('//a[@class="citation"]')
    assert [a.text_content() for a in cites] == ["[1]", "[2]", "[2]", "[1]", "[1]"]
    for a in cites:
        target = tree.get_element_by_id(a.get("href").removeprefix("#"))
        assert target.get("value") == a.text_content().strip("[]")
    items = tree.xpath('//section[@id="sources"]//li')
    assert [li.text_content() for li in items] == [
        "EHPA market report — https://ehpa.example/stats",
        "Annual report 2025, pp. 3–4 — /data/reports/annual.pdf"]
    assert [a.get("href") for a in tree.xpath('//section[@id="sources"]//a')] == [
        "https://ehpa.example/stats", "file:///data/reports/annual.pdf"]
    assert tree.xpath('//a[text()="the agency"]/@href') == ["https://agency.example/outlook"]
    meta = {m.get("name"): m.get("content") for m in tree.iter("meta") if m.get("name")}
    assert meta["description"] == "Heat pump sales fall in Europe" and meta["keywords"] == "climate"
    assert meta["nonseq:status"] == "written" and meta["nonseq:supported_share"] == "0.8"
    front = json.loads(tree.get_element_by_id("front-matter").text)
    assert front["sources"][1]["pages"] == [3, 4] and "DRAFT" not in tree.text_content()


def test_docx_keeps_everything_linked(articles: Path) -> None:
    """Headings as Word headings, citations as internal links to bookmarks, URLs as external links."""
    import docx

    path = export_article(articles, "heat-pumps", "docx")
    document = docx.Document(str(path))
    core = document.core_properties
    assert core.title == "Heat pumps stall in “Europe’s” market"
    assert core.subject == "Heat pump sales fall in Europe" and core.category == "climate"
    assert "slug: heat-pumps" in core.comments and core.created.year == 2026
    custom = _custom_properties(document)
    assert custom["slug"] == "heat-pumps" and custom["supported_share"] == "0.8"
    assert json.loads(custom["sources"])[1]["pages"] == [3, 4]
    heads = [(p.style.name, p.text) for p in document.paragraphs if p.style.name.startswith(("Heading", "Title"))]
    assert heads == [("Title", "Heat pumps stall in “Europe’s” market"), ("Heading 1", "Why sales fell"),
                     ("Heading 1", "What comes next"), ("Heading 1", "Sources")]
    links = [(h.text, h.fragment, h.address) for p in document.paragraphs for h in p.hyperlinks]
    assert [t for t, f, _ in links if f] == ["[1]", "[2]", "[2]", "[1]", "[1]"]
    assert {f for _, f, _ in links if f} == {"source-1", "source-2"}
    assert ("the agency", "", "https://agency.example/outlook") in links
    body = document.element.body
    marks = {b.get("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}name")
             for b in body.iter("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}bookmarkStart")}
    assert marks == {"source-1", "source-2"}
    texts = [p.text for p in document.paragraphs]
    assert "[1] EHPA market report — https://ehpa.example/stats" in texts
    assert "[2] Annual report 2025, pp. 3–4 — /data/reports/annual.pdf" in texts
    assert "Upfront cost is the main barrier [2]." in texts
    assert ("https://ehpa.example/stats", "https://ehpa.example/stats") in [
        (h.text, h.address) for p in document.paragraphs for h in p.hyperlinks]


def _custom_properties(document: Any) -> dict[str, str]:
    """docProps/custom.xml of a DOCX, read from its package: {name: value}."""
    from lxml import etree

    part = next(p for p in document.part.package.iter_parts() if p.partname == "/docProps/custom.xml")
    root = etree.fromstring(part.blob)
    return {prop.get("name"): "".join(prop.itertext()) for prop in root}


def _pdf_links(pdf: Any) -> tuple[list[str], list[int]]:
    """The URIs and the internal destinations' page indexes of every link of a PDF."""
    import ctypes

    import pypdfium2.raw as raw

    uris, pages = [], []
    for page in pdf:
        pos = ctypes.c_int(0)
        link = raw.FPDF_LINK()
        while raw.FPDFLink_Enumerate(page.raw, ctypes.byref(pos), ctypes.byref(link)):
            action = raw.FPDFLink_GetAction(link)
            if action and raw.FPDFAction_GetType(action) == raw.PDFACTION_URI:
                size = raw.FPDFAction_GetURIPath(pdf.raw, action, None, 0)
                buffer = ctypes.create_string_buffer(size)
                raw.FPDFAction_GetURIPath(pdf.raw, action, buffer, size)
                uris.append(buffer.value.decode())
            else:
                dest = raw.FPDFLink_GetDest(pdf.raw, link) or raw.FPDFAction_GetDest(pdf.raw, action)
                pages.append(raw.FPDFDest_GetDestPageIndex(pdf.raw, dest))
    return uris, pages


def _pdf_text(pdf: Any) -> str:
    """All text of a PDF."""
    return "\n".join(page.get_textpage().get_text_range() for page in pdf)


def test_pdf_keeps_everything_linked(articles: Path) -> None:
    """Embedded Unicode font (curly quotes), headings, citation links, source URLs, metadata."""
    import pypdfium2 as pdfium

    path = export_article(articles, "heat-pumps", "pdf")
    pdf = pdfium.PdfDocument(str(path))
    text = _pdf_text(pdf)
    for part in ("Heat pumps stall in “Europe’s” market", "Why sales fell", "What comes next",
                 "Sources", "[1] EHPA market report — https://ehpa.example/stats",
                 "Annual report 2025, pp. 3–4 — /data/reports/annual.pdf", "fell by 21 percent in 2024 [1]"):
        assert part in " ".join(text.split()), part
    meta = pdf.get_metadata_dict()
    assert meta["Title"] == "Heat pumps stall in “Europe’s” market"
    assert meta["Subject"] == "Heat pump sales fall in Europe" and "climate" in meta["Keywords"]
    uris, pages = _pdf_links(pdf)
    assert "https://ehpa.example/stats" in uris and "https://agency.example/outlook" in uris
    assert "file:///data/reports/annual.pdf" in uris
    listed = [i for i, page in enumerate(pdf) if "[1] EHPA" in page.get_textpage().get_text_range()]
    assert pages == listed * 5  # every citation jumps to the page that lists the sources
    pdf.close()


def test_non_latin_title_reads_back_from_the_pdf(isolated: Path) -> None:
    """A Cyrillic and Greek title and body survive the PDF (the core fonts could not carry them)."""
    import pypdfium2 as pdfium

    title = "Приливная энергия и άνεμος"
    body = f"# {title}\n\nПриливные турбины стоят на дне моря [1].\n"
    write(isolated / "articles", "tidal", body, sources=SOURCES[:1])
    pdf = pdfium.PdfDocument(str(export_article(isolated / "articles", "tidal", "pdf")))
    text = _pdf_text(pdf)
    assert title in text and "Приливные турбины стоят на дне моря [1]" in text
    assert pdf.get_metadata_dict()["Title"] == title
    pdf.close()
    said: list[str] = []
    write(isolated / "articles", "cjk", "# 潮汐 energy\n\nTidal [1].\n", sources=SOURCES[:1])
    export_article(isolated / "articles", "cjk", "pdf", warn=said.append)
    assert said == ["the PDF font (Roboto) has no glyph for 2 character(s), left out: 潮汐 (HTML and DOCX keep them)"]
    export_article(isolated / "articles", "tidal", "pdf", warn=said.append, force=True)
    assert len(said) == 1  # Cyrillic and Greek: nothing lost


def test_draft_only_on_request_and_marked(isolated: Path, cli: Any) -> None:
    """A draft is refused (one line) without --draft; with it, each format says DRAFT."""
    import docx
    import pypdfium2 as pdfium

    write(isolated / "articles", "thin", status="draft")
    refused = cli("articles", "export", "thin", "--format", "html", code=2)
    assert refused.stderr.startswith("error: thin.md is a draft (only 2 sentences, need 5)")
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not (isolated / "articles" / "thin.html").exists()
    for fmt in ("html", "docx", "pdf"):
        out = cli("articles", "export", "thin", "--format", fmt, "--draft").stdout
        assert out.strip() == f"exported: {isolated / 'articles' / f'thin.{fmt}'}"
    assert "DRAFT: only 2 sentences" in (isolated / "articles" / "thin.html").read_text(encoding="utf-8")
    document = docx.Document(str(isolated / "articles" / "thin.docx"))
    assert document.paragraphs[0].text.startswith("DRAFT") and document.core_properties.content_status == "DRAFT"
    pdf = pdfium.PdfDocument(str(isolated / "articles" / "thin.pdf"))
    assert _pdf_text(pdf).startswith("DRAFT") and "DRAFT" in pdf.get_metadata_dict()["Keywords"]
    pdf.close()


def test_never_overwrites_without_force(articles: Path, isolated: Path, cli: Any) -> None:
    """An existing file stays unless --force; --out takes a file or a folder."""
    target = isolated / "out" / "pumps.html"
    target.parent.mkdir()
    target.write_text("keep me", encoding="utf-8")
    refused = cli("articles", "export", "heat-pumps", "-f", "html", "--out", str(target), code=2)
    assert "exists; pass --force" in refused.stderr and target.read_text(encoding="utf-8") == "keep me"
    cli("articles", "export", "heat-pumps", "-f", "html", "--out", str(target), "--force")
    assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    cli("articles", "export", "heat-pumps", "-f", "docx", "--out", str(target.parent))
    assert (target.parent / "heat-pumps.docx").stat().st_size > 0
    assert sorted(p.name for p in target.parent.iterdir()) == ["heat-pumps.docx", "pumps.html"]
    with pytest.raises(UsageError, match="unknown export format 'odt'"):
        export_article(articles, "heat-pumps", "odt")
    assert "no article 'nope'" in cli("articles", "export", "nope", "-f", "pdf", code=1).stderr


@pytest.mark.slow
def test_articles_menu_exports_and_asks_before_replacing(articles: Path, isolated: Path) -> None:
    """In a real terminal: Articles › Export › the article › PDF; a second HTML export asks first."""
    from devkit.terminal import Terminal

    (isolated / "config.toml").write_text('[searxng]\nurl = "http://127.0.0.1:9"\nprobe_timeout = 0.5\n',
                                          encoding="utf-8")
    t = Terminal(isolated)
    try:
        t.wait("Main menu")
        t.press("4")
        t.wait("Export an article")
        t.press("e")
        t.wait("Which article?")
        t.press("1")
        t.wait("Export as")
        t.press("p")
        t.wait(f"exported: {articles / 'heat-pumps.pdf'}")
        assert (articles / "heat-pumps.pdf").read_bytes().startswith(b"%PDF")
        t.press("enter")
        (articles / "heat-pumps.html").write_text("older", encoding="utf-8")
        t.wait("Export an article")
        t.press("e")
        t.wait("Which article?")
        t.press("1")
        t.wait("Export as")
        t.press("h")
        t.wait("heat-pumps.html exists: replace it?")
        t.press("y")
        t.wait(f"exported: {articles / 'heat-pumps.html'}")
        assert (articles / "heat-pumps.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
        t.press("enter")
        t.wait("Export an article")
        t.leave(2)
    finally:
        t.close()
