"""Section-by-section writing, the quality gate, and citations constrained by a grammar."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from nonseq.config import WritingSettings
from nonseq.models import Candidate, Chunk, ContextPack, SourceKind, Stage, Topic
from nonseq.text.sentences import split_sentences
from nonseq.verify.grounding import check_grounding
from nonseq.writing.articles import list_articles, write_article
from nonseq.writing.prompt import SECTIONS, section_headers
from nonseq.writing.quality import assess
from nonseq.writing.schemas import BUNDLED_DIR, parse_schema
from nonseq.writing.sections import allocate, plan_sections, sections_markdown, write_sections

WEB = Path(__file__).parent / "fixtures" / "web"
#: The section order written in the contract (spec §4 "Context Assembly").
CONTRACT_ORDER = ["BACKGROUND KNOWLEDGE", "RESEARCH FACTS", "AUTHOR VOICE", "ARTICLE DIRECTION",
                  "ARTICLE STRUCTURE", "TASK"]


def europa_pack() -> ContextPack:
    """Research chunks cut from the real Europa pages of the local web (three sites)."""
    pages = json.loads((WEB / "pages.json").read_text())["pages"]
    truth = json.loads((WEB / "ground-truth.json").read_text())
    research = []
    for page in (p for p in pages if p["topic"] == "europa-water"):
        body = truth[page["id"]]["articleBody"]
        paras = [p for p in body.split("\n") if len(p.split()) > 25][:3]
        for pos, text in enumerate(paras):
            chunk = Chunk(text=text, topic_slug="europa", category="space",
                          url=page["original_url"], title=page["title"], position=pos)
            research.append(Candidate(chunk=chunk, group=SourceKind.RESEARCH,
                                      point_id=f"{page['id'][:8]}-{pos}"))
    topic = Topic(title="Water vapour on Jupiter's moon Europa", slug="europa", category="space",
                  focus="what the telescope observations found")
    return ContextPack(topic=topic, query=topic.query, research=research)


class Scripted:
    """An LLM that answers each section call with the next scripted reply (or raises)."""

    name = "scripted:test"

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)
        self.calls: list[list[dict[str, str]]] = []

    def complete(self, messages: Any, **_: Any) -> str:
        self.calls.append(list(messages))
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def count_tokens(self, text: str) -> int:
        return len(text) // 4


def test_each_fact_feeds_one_section_unless_facts_run_short() -> None:
    import numpy as np

    sims = np.array([[0.9, 0.1, 0.2, 0.3, 0.1], [0.8, 0.7, 0.1, 0.1, 0.6], [0.1, 0.2, 0.9, 0.8, 0.1]])
    picks = allocate(sims, per_section=2)
    flat = [f for p in picks for f in p]
    assert sorted(flat) == [0, 1, 2, 3, 4]  # every fact used once
    assert 0 in picks[0] and all(picks)  # the first section takes its best fact first
    short = allocate(np.array([[0.9, 0.1], [0.8, 0.2], [0.1, 0.3]]), per_section=3)
    assert all(short) and {f for p in short for f in p} == {0, 1}  # shared, none left empty


def test_sections_are_joined_under_one_headline_with_one_numbering(ws: Any) -> None:
    pack = europa_pack()
    schema = parse_schema(BUNDLED_DIR / "explainer.toml", bundled=True)
    plans, sources = plan_sections(pack, schema, ws.embedder.embed, per_section=3)
    assert [s.n for s in sources] == list(range(1, len(sources) + 1))
    assert len(plans) == len(schema.sections) and all(plans)
    ranks = [f.rank for p in plans for f in p]
    assert len(ranks) == len(set(ranks))  # 9 facts, 5 sections: no fact feeds two sections
    replies = [f"Part {i} tells what the observers found at Europa [{p[0].n}]. Its second line "
               f"repeats nothing from the other parts, number {i} [{p[-1].n}]."
               for i, p in enumerate(plans, 1)]
    replies[0] = "Introduction: " + replies[0]  # a label before the text is not article text
    llm = Scripted(replies)
    cfg = WritingSettings(cite_constraint=False)
    draft = write_sections(llm, pack, schema, None, ws.embedder.embed, cfg, lambda *_: None)
    body = draft.body
    assert body.count("\n# ") + body.startswith("# ") == 1
    assert re.findall(r"^## (.+)$", body, re.M) == [s.name for s in schema.sections]
    assert "Introduction:" not in body and "Part 1 tells" in body
    for call, facts in zip(llm.calls, plans, strict=True):
        user = call[-1]["content"]
        assert section_headers(user) == CONTRACT_ORDER == list(SECTIONS)
        shown = {int(n) for n in re.findall(r"<<<SOURCE \[(\d+)\]", user)}
        assert shown == {f.n for f in facts}
    audit = sections_markdown(pack.topic.title, draft, llm.name)
    assert [int(n) for n in re.findall(r"^## Section (\d+)", audit, re.M)] == [1, 2, 3, 4, 5]
    assert all(r in audit for r in replies)


def test_a_crash_mid_way_leaves_no_article(ws: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from nonseq import llm as llm_module
    from nonseq import queue
    from nonseq.pipeline.write import compose_article

    pack = europa_pack()
    llm = Scripted(["First part sentence about Europa [1].", RuntimeError("power cut")])
    monkeypatch.setattr(llm_module, "build_llm", lambda _settings: llm)
    topic = queue.add_topic(ws.db, pack.topic.title, "space", ws.categories, schema="explainer")
    with pytest.raises(RuntimeError):
        compose_article(ws, topic, pack, lambda *_: None)
    assert not ws.articles_dir.exists() or not any(ws.articles_dir.iterdir())


GOOD = ("Astronomers using the Keck Observatory in Hawaii detected water vapour above the surface "
        "of Europa [1]. ")


def _gate(ws: Any, reply: str, told: list[str]) -> Any:
    pack = europa_pack()
    from nonseq.writing.prompt import number_sources

    facts, _ = number_sources(pack.research)
    grounding = check_grounding(reply, facts, tokenize=ws.sparse.tokenize, embed=ws.embedder.embed)
    return assess(grounding.text, grounding, told, WritingSettings(), raw=reply), grounding


def test_the_quality_gate_on_crafted_replies(ws: Any) -> None:
    schema = parse_schema(BUNDLED_DIR / "news.toml", bundled=True)
    told = [schema.render()]
    pack = europa_pack()
    chunks = [c.chunk.text for c in pack.research]
    sentences = [c[a:b] for c in chunks for a, b in split_sentences(c)][:12]
    good = "# Europa\n\n" + " ".join(s.rstrip(".") + " [1]." for s in sentences[:7])
    verdict, grounding = _gate(ws, good, told)
    assert not verdict.draft, verdict.reasons
    echo = "# News\n\n1. Lede: The news in the first paragraph, then the second most important fact."
    verdict, _ = _gate(ws, echo + "\n\n" + good.split("\n\n", 1)[1], told)
    assert verdict.draft and verdict.echoed and "echo" in verdict.reasons[0]
    loop = "# Europa\n\n" + (sentences[0] + " ") * 6
    verdict, _ = _gate(ws, loop, told)
    assert verdict.draft and verdict.repeated
    short = "# Europa\n\n" + sentences[0]
    assert "fewer than 5" in " ".join(_gate(ws, short, told)[0].reasons)
    made_up = "# Europa\n\n" + " ".join(
        f"The mayor of Springfield opened bakery number {i} on Tuesday [1]." for i in range(6))
    verdict, _ = _gate(ws, made_up, told)
    assert verdict.draft and verdict.supported_share < 0.5


def test_a_draft_is_written_listed_and_its_stage_can_be_rewritten(ws: Any) -> None:
    from nonseq import queue
    from nonseq.writing.prompt import SourceRef

    told = [parse_schema(BUNDLED_DIR / "news.toml", bundled=True).render()]
    reply = "# News\n\n1. Lede: The news in the first paragraph, then the second most important [9]."
    verdict, grounding = _gate(ws, reply, told)
    sources = [SourceRef(1, "Europa page", "https://example.org/europa")]
    art = write_article(ws.articles_dir, slug="europa", title="Europa", body=grounding.text,
                        sources=sources, grounding=grounding, prompt="p", quality=verdict)
    meta = yaml.safe_load(Path(art.path).read_text().split("---\n")[1])
    assert meta["status"] == "draft" and meta["draft_reasons"] and "supported_share" in meta
    assert meta["unsupported_sentences"] is not None
    assert "[9]" not in Path(art.path).read_text()  # an unlisted number never survives
    assert list_articles(ws.articles_dir)[0]["status"] == "draft"
    again = write_article(ws.articles_dir, slug="europa", title="Europa", body=GOOD,
                          sources=sources, grounding=grounding, prompt="p")
    assert Path(again.path).name == "europa-2.md"
    topic = queue.add_topic(ws.db, "Europa", "space", ws.categories)
    for stage in (Stage.RESEARCHING, Stage.RESEARCHED, Stage.GATED, Stage.WRITING, Stage.DRAFT,
                  Stage.WRITING):
        topic = queue.move(ws.db, topic.id, stage, reason="test")
    assert topic.stage is Stage.WRITING


@pytest.mark.slow
def test_constrained_decoding_puts_a_listed_marker_in_every_sentence(settings: Any) -> None:
    from nonseq.llm import build_llm
    from nonseq.llm.cited import complete_cited

    llm = build_llm(settings.llm)
    messages = [{"role": "user", "content":
                 "SOURCE [2]: Astronomers at the Keck Observatory found water vapour on Europa.\n"
                 "SOURCE [5]: NASA's Europa Clipper mission will launch in 2024.\n"
                 "Write three sentences about Europa."}]
    text, mode = complete_cited(llm, messages, [2, 5], min_sentences=2, max_sentences=3,
                                max_tokens=120, temperature=0.0)
    assert mode == "decoder"
    spans = split_sentences(text)
    assert len(spans) >= 2, text
    for a, b in spans:
        assert re.search(r"\[(2|5)\]\.$", text[a:b]), text[a:b]
    assert not re.findall(r"\[(?!2\]|5\])\d+\]", text)


def test_structured_sentences_render_with_their_enum_marker() -> None:
    from nonseq.llm.cited import cite_schema, render_sentences

    schema = cite_schema([3, 1], 2, 4)
    assert schema["properties"]["sentences"]["items"]["properties"]["source"]["enum"] == [1, 3]
    items = [{"text": "Water vapour was seen above Europa [7].", "source": 3},
             {"text": "Too short", "source": 1},
             {"text": "The Clipper probe will study the moon", "source": 9}]
    assert render_sentences(items, [1, 3]) == (
        "Water vapour was seen above Europa [3]. The Clipper probe will study the moon.")
