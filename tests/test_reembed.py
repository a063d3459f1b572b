"""A model change is detected, explained, and repaired by `nonseq reembed`."""

import json

from nonseq.models import TRIGGER_KEY, Chunk, SourceKind, provenance_header


def _chunk(i: int, kind: SourceKind = SourceKind.RESEARCH, **extra) -> Chunk:
    return Chunk(text=f"Sentence number {i} about rockets.", topic_slug="t", category="space",
                 url=f"https://nasa.gov/{i}", domain="nasa.gov", title="Launch", published="2024-05-01T10:00",
                 source_kind=kind, position=i, extra=extra)


def test_research_text_is_embedded_with_its_provenance_header() -> None:
    chunk = _chunk(1)
    assert provenance_header(chunk.domain, chunk.title, chunk.published) == "[nasa.gov › Launch › 2024-05-01]"
    assert chunk.embedding_text().startswith("[nasa.gov › Launch › 2024-05-01]\nSentence number 1")
    assert _chunk(1, SourceKind.KNOWLEDGE).embedding_text() == chunk.text


def test_reembed_rebuilds_a_collection_built_with_another_model(ws, cli) -> None:
    old = [_chunk(i) for i in range(5)]
    ws.store.ensure("research_space", 384, "some-old-model")
    vectors = ws.embedder.embed([c.text for c in old])
    ws.store.upsert("research_space", old, vectors, ws.sparse.encode([c.text for c in old]))
    result = cli("queue", "list")  # unrelated commands still work
    assert result.exit_code == 0
    ws.close()
    listed = json.loads(cli("collections", "--json").stdout)
    assert listed == [{"name": "research_space", "points": 5, "model": "some-old-model", "dim": 384,
                       "trigger": False}]
    assert "re-embedded 5 point(s)" in cli("reembed", "research_space").stdout
    assert ws.store.metadata("research_space")["model"] == "all-MiniLM-L6-v2"
    assert ws.store.count("research_space") == 5
    ws.close()
    assert "no collection" in cli("reembed", "nope", code=1).stderr
    assert "--all" in cli("reembed", code=1).stderr


def test_reembed_keeps_persona_triggers(ws) -> None:
    from nonseq.pipeline.vectors import reembed_collection

    chunks = [_chunk(i, SourceKind.PERSONA, **{TRIGGER_KEY: f"trigger {i}"}) for i in range(3)]
    ws.indexer.index("persona_p", chunks, triggers=[c.extra[TRIGGER_KEY] for c in chunks])
    assert reembed_collection(ws, "persona_p") == 3
    points = ws.store.scroll_all("persona_p", vectors=True)
    assert all("trigger_dense" in p.vectors for p in points)
