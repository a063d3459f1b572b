"""An article as one standalone HTML file: front matter in <meta> tags and a JSON copy, citations as links."""

from __future__ import annotations

import json
from html import escape

from nonseq.writing.export.document import Block, Document, Span

STYLE = """body{font-family:system-ui,sans-serif;max-width:44em;margin:2em auto;padding:0 1em;line-height:1.55}
a.citation{text-decoration:none}.draft{color:#b00;font-weight:bold;border:2px solid #b00;padding:.5em}
code,pre{font-family:ui-monospace,monospace;background:#f4f4f4}pre{padding:.6em;overflow-x:auto}
#sources li{margin:.3em 0}#sources li:target{background:#ffc}"""


def span_html(span: Span) -> str:
    """One span: escaped, styled, linked."""
    text = escape(span.text).replace("\n", "<br>")
    if span.code:
        text = f"<code>{text}</code>"
    if span.italic:
        text = f"<em>{text}</em>"
    if span.bold:
        text = f"<strong>{text}</strong>"
    if span.cite:
        return f'<a class="citation" href="#source-{span.cite}">{text}</a>'
    if span.href:
        return f'<a href="{escape(span.href)}">{text}</a>'
    return text


def _inline(block: Block) -> str:
    """A block's spans as HTML."""
    return "".join(span_html(s) for s in block.spans)


def body_html(blocks: list[Block]) -> list[str]:
    """The blocks as HTML lines; consecutive list items grouped into (nested) lists."""
    out: list[str] = []
    open_lists: list[str] = []
    for block in blocks:
        depth = block.level if block.kind == "item" else 0
        while len(open_lists) > depth:
            out.append(f"</{open_lists.pop()}>")
        if block.kind == "item":
            tag = "ol" if block.number else "ul"
            if len(open_lists) == depth and open_lists and open_lists[-1] != tag:
                out.append(f"</{open_lists.pop()}>")
            while len(open_lists) < depth:
                open_lists.append(tag)
                out.append(f"<{tag}>")
            value = f' value="{block.number}"' if block.number else ""
            out.append(f"<li{value}>{_inline(block)}</li>")
        elif block.kind == "heading":
            level = min(6, max(2, block.level))
            out.append(f"<h{level}>{_inline(block)}</h{level}>")
        elif block.kind == "quote":
            out.append(f"<blockquote><p>{_inline(block)}</p></blockquote>")
        elif block.kind == "code":
            out.append(f"<pre><code>{escape(block.text)}</code></pre>")
        elif block.kind == "rule":
            out.append("<hr>")
        else:
            out.append(f"<p>{_inline(block)}</p>")
    out.extend(f"</{tag}>" for tag in reversed(open_lists))
    return out


def head_html(doc: Document) -> list[str]:
    """<head>: title, description (topic), keywords (category), every front matter value as nonseq:KEY."""
    props = doc.properties()
    meta = ['<meta charset="utf-8">', f"<title>{escape(doc.title)}</title>",
            '<meta name="generator" content="NonSequitur">']
    if props.get("topic"):
        meta.append(f'<meta name="description" content="{escape(props["topic"])}">')
    if props.get("category"):
        meta.append(f'<meta name="keywords" content="{escape(props["category"])}">')
    if props.get("persona"):
        meta.append(f'<meta name="author" content="{escape(props["persona"])}">')
    meta += [f'<meta name="nonseq:{escape(k)}" content="{escape(v)}">' for k, v in props.items()]
    front = json.dumps(doc.meta, ensure_ascii=False, default=str).replace("</", "<\\/")
    meta.append(f'<script type="application/json" id="front-matter">{front}</script>')
    return meta + [f"<style>{STYLE}</style>"]


def to_html(doc: Document) -> bytes:
    """The whole document as UTF-8 HTML."""
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", *head_html(doc), "</head>", "<body>",
             "<article>"]
    if doc.draft:
        why = "; ".join(doc.reasons)
        lines.append(f'<p class="draft">DRAFT{": " + escape(why) if why else ""}</p>')
    lines.append(f"<h1>{escape(doc.title)}</h1>")
    lines += body_html(doc.blocks)
    lines += ['<section id="sources">', "<h2>Sources</h2>", "<ol>"]
    for s in doc.sources:
        link = f'<a href="{escape(s.url)}">{escape(s.location)}</a>' if s.url else escape(s.location)
        lines.append(f'<li id="{s.anchor}" value="{s.n}">{escape(s.label)} — {link}</li>')
    if not doc.sources:
        lines.append("<li>No sources are cited in this article.</li>")
    lines += ["</ol>", "</section>", "</article>", "</body>", "</html>", ""]
    return "\n".join(lines).encode("utf-8")
