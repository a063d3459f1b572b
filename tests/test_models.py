"""The shared data types: payload keys, deterministic ids, round trips."""

from nonseq.models import (
    PAYLOAD_KEYS,
    Candidate,
    Chunk,
    ContextPack,
    GateCheck,
    GateVerdict,
    SourceKind,
    Stage,
    Topic,
    content_hash,
)


def _chunk(**kw) -> Chunk:
    base = dict(text="Some text.", topic_slug="t", category="ai", url="https://a.example/x",
                domain="a.example", title="A", published="2024-01-02", content_hash="h",
                trust_boost=0.8, position=3)
    base.update(kw)
    return Chunk(**base)


def test_payload_has_exactly_the_documented_keys() -> None:
    """The payload holds the documented keys in order (a renamed or lost key fails here), each with its value."""
    payload = _chunk().to_payload()
    assert payload == {"topic_slug": "t", "category": "ai", "url": "https://a.example/x", "domain": "a.example",
                       "title": "A", "published": "2024-01-02", "content_hash": "h", "trust_boost": 0.8,
                       "source_kind": "research", "position": 3, "text": "Some text."}
    assert tuple(payload) == PAYLOAD_KEYS == ("topic_slug", "category", "url", "domain", "title", "published",
                                              "content_hash", "trust_boost", "source_kind", "position", "text")


def test_payload_round_trip_keeps_extra_keys() -> None:
    chunk = _chunk(source_kind=SourceKind.PERSONA, extra={"trigger": "an opening"})
    back = Chunk.from_payload(chunk.to_payload())
    assert back == chunk


def test_point_ids_are_deterministic_and_include_the_topic() -> None:
    a, b = _chunk(topic_slug="one"), _chunk(topic_slug="two")
    assert a.point_id() == _chunk(topic_slug="one").point_id()
    assert a.point_id() != b.point_id()
    assert a.point_id() != _chunk(topic_slug="one", position=4).point_id()


def test_content_hash_ignores_whitespace_and_case() -> None:
    assert content_hash("Hello   World\n") == content_hash("hello world")
    assert content_hash("hello") != content_hash("world")


def test_topic_query_joins_title_focus_and_subqueries() -> None:
    topic = Topic(title="Qubits", slug="q", category="science", focus="error rates",
                  sub_queries=["surface code", " "])
    assert topic.query == "Qubits error rates surface code"
    assert topic.to_dict()["stage"] == "queued"
    assert Stage("thin") is Stage.THIN


def test_candidate_records_each_step() -> None:
    cand = Candidate(chunk=_chunk(), group=SourceKind.RESEARCH)
    assert cand.score == 0.0
    cand.record("bm25", 3.5)
    cand.record("rerank", 0.7, "kept")
    assert cand.scores == {"bm25": 3.5, "rerank": 0.7}
    assert cand.score == 0.7
    assert cand.to_dict()["notes"] == ["rerank: kept"]


def test_gate_verdict_and_pack_serialise() -> None:
    verdict = GateVerdict(ok=False, can_continue=True, checks=[
        GateCheck("chunks", True, 9, 5, hard=True),
        GateCheck("domains", False, 1, 2, reason="only 1 domain"),
    ])
    assert verdict.status == "THIN"
    assert verdict.reasons == ["only 1 domain"]
    assert verdict.to_dict()["checks"][1]["name"] == "domains"
    topic = Topic(title="T", slug="t", category="ai")
    pack = ContextPack(topic=topic, query="T",
                       research=[Candidate(chunk=_chunk(), group=SourceKind.RESEARCH)])
    assert pack.to_dict()["research"][0]["url"] == "https://a.example/x"
