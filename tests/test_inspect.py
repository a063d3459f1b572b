"""`nonseq inspect`: the context pack as a table and as JSON, through the in-process CLI."""

from __future__ import annotations

import json

import pytest

from devkit.checks import one_error_line
from nonseq.config import load_settings
from nonseq.index.vector_store import research_collection
from nonseq.models import Chunk
from nonseq.workspace import Workspace


@pytest.fixture
def topic_id(cli) -> str:  # noqa: ANN001
    """A queued topic with research chunks indexed (the workspace closed again)."""
    out = cli("queue", "add", "Heat pumps in cold climates", "--category", "climate",
              "--focus", "efficiency below freezing", "--json")
    topic = json.loads(out.stdout)
    texts = ["Heat pumps keep a good efficiency below freezing with modern compressors.",
             "Heat pumps keep a good efficiency below freezing with modern compressors!",
             "Cold climate heat pumps reach a COP of two at minus fifteen degrees.",
             "Football scores from the weekend."]
    chunks = [Chunk(text=t, topic_slug=topic["slug"], category="climate",
                    url=f"https://site{i}.org/p", domain=f"site{i}.org", title=f"Site {i}",
                    trust_boost=0.7 if i == 2 else 0.0) for i, t in enumerate(texts)]
    with Workspace(load_settings()) as ws:
        ws.indexer.index(research_collection("climate"), chunks)
    return str(topic["id"])


def test_inspect_table(cli, topic_id: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """The table lists the chosen chunks with each step's score and what was dropped, and why."""
    from nonseq.ui import console

    monkeypatch.setattr(console.console, "width", 220)
    result = cli("inspect", topic_id)
    out = result.stdout
    assert "Research facts" in out and "bm25" in out and "rerank" in out
    assert "site2.org" in out and "kept" in out
    assert "duplicate" in out
    assert "OFFLINE" in out
    need = load_settings().gate.min_mean_score_bi_encoder
    assert f"gate quality check: backend bi-encoder, mean relevance of the top chunks needs {need:g}" in out
    assert result.stderr.count("warning:") == 1
    assert "Dropped" in cli("inspect", topic_id, "--all").stdout


def test_inspect_json(cli, topic_id: str) -> None:  # noqa: ANN001
    """--json prints the pack: research with scores by step, pool, discarded, offline flag."""
    data = json.loads(cli("inspect", topic_id, "--json").stdout)
    assert data["reranker_offline"] is True
    assert len(data["research"]) == 3 and len(data["discarded"]) == 1
    first = data["research"][0]
    assert {"bm25", "trust", "dedup", "rerank", "normalized", "final"} <= set(first["scores"])
    assert data["discarded"][0]["dropped"].startswith("duplicate of")
    assert data["research"][0]["domain"] == "site2.org"  # trusted and on topic
    assert len(data["pool"]) == 3
    assert data["quality"] == {"backend": "bi-encoder",
                               "threshold": load_settings().gate.min_mean_score_bi_encoder}


def test_inspect_unknown_topic_is_one_line_error(cli) -> None:  # noqa: ANN001
    """An unknown topic: one error line and a non-zero exit."""
    result = cli("inspect", "999", code=None)
    assert result.exit_code != 0
    one_error_line(result, "999")


def test_inspect_topic_without_research(cli) -> None:  # noqa: ANN001
    """A topic with no research chunks yet: a clear message, no table."""
    cli("queue", "add", "Tidal power", "--category", "climate")
    out = cli("inspect", "1").stdout
    assert "no research chunks yet" in out
    data = json.loads(cli("inspect", "tidal-power", "--json").stdout)
    assert data["research"] == [] and "no research" in data["message"]
