"""Extraction: trafilatura main text and metadata, too-short pages, duplicates, Markdown and text."""

from __future__ import annotations

import gzip
import json

import pytest

from nonseq.models import Outcome, content_hash
from nonseq.research.extract import (
    HTML,
    MARKDOWN,
    TEXT,
    Extractor,
    content_kind,
    extract,
    extract_html,
    extract_plain,
    guess_content_type,
)
from tests.shared_data import AEB

BENCH = AEB  # ../shared beside the clone (tests/shared_data.py finds it in CI too)

PARAGRAPHS = [
    "The city council voted on Tuesday to expand the tram network by twelve kilometres, "
    "connecting the northern districts to the central station for the first time since 1962.",
    "Officials said construction would begin next spring and take about four years, with a "
    "budget of 410 million euros shared between the city, the region and the national fund.",
    "Opponents argued that buses could serve the same routes for a fraction of the cost, but "
    "the transport committee found that trams would carry three times as many passengers.",
]


def article(paragraphs: list[str] = PARAGRAPHS, title: str = "Council backs tram expansion") -> str:
    """A news page with navigation, an article with metadata, and a footer."""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"""<!doctype html><html lang="en"><head>
<title>{title} | Metro Daily</title>
<meta property="og:title" content="{title}">
<meta property="og:site_name" content="Metro Daily">
<meta name="author" content="Jane Doe">
<meta property="article:published_time" content="2024-03-05T09:30:00Z">
</head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/city">City</a></li>
<li><a href="/sport">Sport</a></li></ul></nav>
<main><article><h1>{title}</h1><p class="byline">By Jane Doe</p>{body}</article></main>
<footer><p>Copyright Metro Daily. All rights reserved. Subscribe to our newsletter.</p></footer>
</body></html>"""


def test_html_main_text_and_metadata() -> None:
    doc = extract_html(article(), "https://metro.example/news/tram")
    assert doc is not None
    for paragraph in PARAGRAPHS:
        assert paragraph in doc.text
    assert "Subscribe to our newsletter" not in doc.text
    assert "Sport" not in doc.text.split("\n")
    assert doc.title == "Council backs tram expansion"
    assert doc.author == "Jane Doe"
    assert doc.published == "2024-03-05"
    assert doc.site_name == "Metro Daily"
    assert doc.kind == HTML
    assert doc.content_hash == content_hash(doc.text)
    assert all(line.strip() == line and line for line in doc.text.split("\n"))


def test_too_short_pages_are_dropped_with_a_reason() -> None:
    extractor = Extractor(min_text_chars=400)
    result = extractor.extract(article(PARAGRAPHS[:1]), "text/html", "https://metro.example/s")
    assert result.outcome == Outcome.TOO_SHORT and not result.ok
    assert "< 400" in result.reason
    empty = extractor.extract("<html><body><nav>Home</nav></body></html>", "text/html",
                              "https://metro.example/e")
    assert empty.outcome == Outcome.TOO_SHORT and "chars < 400" in empty.reason


def test_exact_duplicates_are_indexed_once() -> None:
    extractor = Extractor(min_text_chars=100)
    first = extractor.extract(article(), "text/html", "https://a.example/story")
    again = extractor.extract(article(title="Council backs tram expansion"), "text/html; charset=utf-8",
                              "https://b.example/copy")
    same_url = extractor.extract(article(), "text/html", "https://a.example/story")
    other = extractor.extract(article(PARAGRAPHS[::-1]), "text/html", "https://c.example/x")
    assert first.ok and first.outcome == Outcome.FETCHED
    assert again.outcome == Outcome.DUPLICATE and "https://a.example/story" in again.reason
    assert same_url.outcome == Outcome.DUPLICATE, "a second link to the same page is a duplicate"
    assert other.ok


def test_markdown_skips_trafilatura() -> None:
    text = ("---\ntitle: Tram notes\nauthor: Me\ndate: 2024-01-02\n---\n# Heading\n\n"
            "Some **bold** words and a [link](https://x.example) in a\nsoft-wrapped paragraph.\n\n"
            "- first item\n- second item\n")
    doc = extract(text, "text/markdown", "file:///notes/trams.md")
    assert doc is not None and doc.kind == MARKDOWN
    assert (doc.title, doc.author, doc.published) == ("Tram notes", "Me", "2024-01-02")
    assert doc.text.split("\n") == [
        "Heading", "Some bold words and a link in a soft-wrapped paragraph.",
        "- first item", "- second item",
    ]


def test_markdown_title_from_heading_and_plain_text() -> None:
    assert extract_plain("# The Title\n\nBody text.", markdown=True).title == "The Title"
    doc = extract_plain("Plain heading\n\nA paragraph that\nwraps.\n", "file:///x/my-notes.txt")
    assert doc.kind == TEXT and doc.title == "Plain heading"
    assert doc.text == "Plain heading\nA paragraph that wraps."
    untitled = extract_plain("A long first sentence that ends with a period.", "file:///x/my-notes.txt")
    assert untitled.title == "my notes"


@pytest.mark.parametrize(("content_type", "url", "kind"), [
    ("text/html; charset=utf-8", "https://x.example/a", HTML),
    ("application/xhtml+xml", "https://x.example/a", HTML),
    ("text/markdown", "https://x.example/a", MARKDOWN),
    ("", "file:///tmp/notes.md", MARKDOWN),
    ("text/plain", "https://x.example/a.txt", TEXT),
    ("", "file:///tmp/page.htm", HTML),
])
def test_content_kind(content_type: str, url: str, kind: str) -> None:
    assert content_kind(content_type, url) == kind


def test_guess_content_type() -> None:
    assert guess_content_type("a.HTML") == "text/html"
    assert guess_content_type("a.md") == "text/markdown"
    assert guess_content_type("README") == "text/plain"


def test_broken_input_is_an_outcome_not_a_crash() -> None:
    result = Extractor().extract(b"\xff\xfe\x00garbage", "text/html", "https://x.example/b")
    assert result.outcome in (Outcome.TOO_SHORT, Outcome.ERROR)


def test_real_benchmark_page() -> None:
    assert BENCH.is_dir(), f"the shared benchmark pages are missing: {BENCH}"
    truth = json.loads((BENCH / "ground-truth.json").read_text(encoding="utf-8"))
    key, item = sorted(truth.items())[0]
    html = gzip.decompress((BENCH / "html" / f"{key}.html.gz").read_bytes())
    doc = extract_html(html, item["url"], favor_precision=True)
    assert doc is not None and doc.title and doc.published
    assert item["articleBody"].split("\n")[0][:60] in doc.text


def fragment_page(paragraphs: int) -> str:
    """A page of many one-line paragraphs (a link farm, a log, a lyrics dump), with furniture around them."""
    body = "".join(f"<p>line {n} of the fragments</p>\n" for n in range(paragraphs))
    return (f"<html><head><title>Fragments</title><meta property='article:published_time' "
            f"content='2024-03-05T09:30:00Z'></head><body><nav><a href='/'>Home</a></nav>"
            f"<article><h1>Fragments</h1>{body}<!-- a comment --></article>"
            f"<script>var x = 1;</script><footer>All rights reserved</footer></body></html>")


def test_a_fragment_heavy_page_is_read_in_one_pass_line_by_line() -> None:
    """30,000 one-line paragraphs: every line kept, furniture and scripts left out, metadata from <head>."""
    doc = extract_html(fragment_page(30_000), "https://frag.example/a")
    assert doc is not None
    lines = doc.text.split("\n")
    assert lines[0] == "Fragments"
    assert lines[1:] == [f"line {n} of the fragments" for n in range(30_000)]
    assert doc.title == "Fragments" and doc.published.startswith("2024-03-05")
