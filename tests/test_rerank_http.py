"""[rerank] backend = "http": a served reranker on 127.0.0.1 speaking text-embeddings-inference's
/rerank or the Cohere-style /v1/rerank byte for byte, its scores in the chain and the gate, retries,
timeouts, the fallback when it is down, doctor, and the API key kept out of sight.

The servers below answer exactly as the projects' published API documents say:
- TEI (docs/openapi.json, RerankRequest/RerankResponse): POST /rerank {"query", "texts", ...} ->
  a JSON array of {"index", "score"}, best first; errors {"error", "error_type"}.
- Cohere (API reference, POST /v1/rerank): {"model", "query", "documents", "top_n"} ->
  {"id", "results": [{"index", "relevance_score"}], "meta": {...}}; errors {"message"}.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nonseq.config import RerankSettings, load_settings
from nonseq.errors import BackendError
from nonseq.index import served
from nonseq.index.rerankers import build_reranker, check_reranker, fell_back
from nonseq.index.served import HttpReranker
from tests.test_rerank import FakeEmbedder
from tests.web import free_port

KEY = "sk-test-0123456789abcdef"


def overlap(query: str, text: str) -> float:
    """The share of the query's words found in the text: the served model's relevance here."""
    words = set(query.lower().split())
    found = set(text.lower().replace(".", " ").split())
    return round(len(words & found) / max(1, len(words)), 6)


@dataclass
class RerankServer:
    """The state of one local rerank server: what it received and how it should answer next."""

    api: str
    logits: bool = False
    fail_next: list[int] = field(default_factory=list)
    hold: threading.Event | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""


class _Handler(BaseHTTPRequestHandler):
    """POST /rerank (TEI) or /v1/rerank (Cohere), per the server's api."""

    server: Any

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet."""

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802
        state: RerankServer = self.server.state
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        state.requests.append({"path": self.path, "body": body, "ctype": self.headers["Content-Type"],
                               "auth": self.headers.get("Authorization")})
        if state.hold is not None:
            state.hold.wait(10)
        if state.fail_next:
            status = state.fail_next.pop(0)
            err = ({"error": "Model is overloaded", "error_type": "overloaded"} if state.api == "tei"
                   else {"message": "invalid api token"})
            return self._send(status, err)
        route = "/rerank" if state.api == "tei" else "/v1/rerank"
        if self.path != route:
            return self._send(404, {"error": "not found"})
        texts = body["texts"] if state.api == "tei" else body["documents"]
        scores = [overlap(body["query"], t) for t in texts]
        if state.logits:
            scores = [round(8 * s - 4, 6) for s in scores]  # llama.cpp: raw scores
        order = sorted(range(len(texts)), key=lambda i: -scores[i])
        if state.api == "tei":
            return self._send(200, [{"index": i, "score": scores[i]} for i in order])
        return self._send(200, {"id": "07734bd2-2473-4f07-94e1-0d9f0e6843cf",
                                "results": [{"index": i, "relevance_score": scores[i]}
                                            for i in order[: body.get("top_n", len(order))]],
                                "meta": {"api_version": {"version": "1"},
                                         "billed_units": {"search_units": 1}}})


def _serve(state: RerankServer) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    server.state = state  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    return server


@pytest.fixture
def start() -> Iterator[Any]:
    """Start rerank servers of an api; stopped afterwards."""
    servers: list[tuple[ThreadingHTTPServer, RerankServer]] = []

    def run(api: str, **kw: Any) -> RerankServer:
        state = RerankServer(api, **kw)
        servers.append((_serve(state), state))
        return state

    yield run
    for server, state in servers:
        if state.hold is not None:
            state.hold.set()
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries without the half-second wait."""
    monkeypatch.setattr(served, "BACKOFF", 0.0)


def _settings(state: RerankServer | str, api: str = "tei", **kw: Any) -> RerankSettings:
    url = state if isinstance(state, str) else state.url
    return RerankSettings(backend="http", url=url, api=api, **kw)


PASSAGES = ["Tidal turbines sit on the sea floor.", "Cats sleep most of the day.",
            "Tidal power uses the sea.", "Lagoons hold tidal water.", "Nothing here."]
QUERY = "tidal power sea"


def test_tei_format_byte_for_byte(start: Any) -> None:
    """TEI: {"query", "texts"} in batches of batch_size, its scores back in the order sent."""
    tei = start("tei")
    reranker = HttpReranker(_settings(tei, batch_size=2))
    scores = reranker.score(QUERY, PASSAGES)
    np.testing.assert_allclose(scores, [overlap(QUERY, p) for p in PASSAGES])
    assert [r["path"] for r in tei.requests] == ["/rerank"] * 3
    first = tei.requests[0]
    assert first["body"] == {"query": QUERY, "texts": PASSAGES[:2], "truncate": True}
    assert first["ctype"] == "application/json" and first["auth"] is None
    assert reranker.name == "http:BAAI/bge-reranker-v2-m3" and not reranker.offline


def test_cohere_format_byte_for_byte_with_the_key(start: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cohere: {"model", "query", "documents", "top_n"}, the key from NONSEQ_RERANK__API_KEY as a bearer."""
    cohere = start("cohere")
    monkeypatch.setenv("NONSEQ_RERANK__BACKEND", "http")
    monkeypatch.setenv("NONSEQ_RERANK__API", "cohere")
    monkeypatch.setenv("NONSEQ_RERANK__URL", cohere.url + "/")
    monkeypatch.setenv("NONSEQ_RERANK__MODEL", "rerank-v3.5")
    monkeypatch.setenv("NONSEQ_RERANK__API_KEY", KEY)
    settings = load_settings().rerank
    reranker = build_reranker(settings, FakeEmbedder())
    assert not fell_back(settings, reranker) and reranker.backend == "http"
    scores = reranker.score(QUERY, PASSAGES)
    np.testing.assert_allclose(scores, [overlap(QUERY, p) for p in PASSAGES])
    last = cohere.requests[-1]
    assert last["path"] == "/v1/rerank" and last["auth"] == f"Bearer {KEY}"
    assert last["body"] == {"model": "rerank-v3.5", "query": QUERY, "documents": PASSAGES, "top_n": 5}


def test_logit_answers_go_through_a_sigmoid(start: Any) -> None:
    """A server answering raw logits (llama.cpp) still gives [0,1] scores, in the same order."""
    raw = start("cohere", logits=True)
    scores = HttpReranker(_settings(raw, api="cohere")).score(QUERY, PASSAGES)
    expected = [1 / (1 + np.exp(-(8 * overlap(QUERY, p) - 4))) for p in PASSAGES]
    np.testing.assert_allclose(scores, expected, rtol=1e-6)
    kept = HttpReranker(_settings(raw, api="cohere", scores="probability")).score(QUERY, PASSAGES)
    assert kept.min() == 0.0 and kept.max() == 1.0  # clipped, not squashed


def test_retries_on_overload_then_succeeds(start: Any) -> None:
    """429 and 503 are retried; the answer after them is used."""
    tei = start("tei", fail_next=[429, 503])
    scores = HttpReranker(_settings(tei, retries=2)).score(QUERY, PASSAGES[:2])
    assert len(tei.requests) == 3 and scores[0] == overlap(QUERY, PASSAGES[0])
    again = start("tei", fail_next=[503, 503])
    with pytest.raises(BackendError, match=r"HTTP 503: Model is overloaded \(after 2 attempt"):
        HttpReranker(_settings(again, retries=1)).score(QUERY, PASSAGES[:2])


def test_timeout_is_one_line(start: Any) -> None:
    """A server that does not answer in time: one line naming the setting."""
    slow = start("tei", hold=threading.Event())
    with pytest.raises(BackendError, match=r"did not answer within 0.2s \(raise \[rerank\] timeout\)"):
        HttpReranker(_settings(slow, timeout=0.2, retries=0)).score(QUERY, PASSAGES[:1])


def test_refused_key_and_wrong_api_say_what_to_set(start: Any) -> None:
    """401: set the key (never shown); a TEI server asked the Cohere way: set api."""
    cohere = start("cohere", fail_next=[401])
    with pytest.raises(BackendError) as err:
        HttpReranker(_settings(cohere, api="cohere", api_key=KEY)).score(QUERY, PASSAGES[:1])
    assert "NONSEQ_RERANK__API_KEY" in str(err.value) and KEY not in str(err.value)
    tei = start("tei")
    with pytest.raises(BackendError, match=r"no /v1/rerank at .* set \[rerank\] api"):
        HttpReranker(_settings(tei, api="cohere")).score(QUERY, PASSAGES[:1])


def test_down_server_falls_back_to_the_bi_encoder() -> None:
    """Nothing listening: the bi-encoder runs, offline, with one line naming the URL and the fix."""
    url = f"http://127.0.0.1:{free_port()}"
    settings = _settings(url, retries=1)
    reranker = build_reranker(settings, FakeEmbedder())
    assert reranker.backend == "bi-encoder" and reranker.offline and fell_back(settings, reranker)
    assert f"no rerank server at {url}" in reranker.note and "\n" not in reranker.note
    assert "start the rerank server" in reranker.note
    assert check_reranker(reranker).startswith("OFFLINE, using bi-encoder")


def test_server_that_stops_mid_run_hands_over_to_the_fallback(start: Any) -> None:
    """Up when built, down later: the fallback's scores, its name, and one warning."""
    tei = start("tei", fail_next=[])
    said: list[str] = []
    settings = _settings(tei, retries=0)
    reranker = build_reranker(settings, FakeEmbedder(), warn=said.append)
    assert reranker.backend == "http" and check_reranker(reranker).endswith("(tei API)")
    tei.fail_next.extend([500])
    scores = reranker.score(QUERY, PASSAGES)
    assert reranker.backend == "bi-encoder" and reranker.name.startswith("bi-encoder:")
    assert reranker.offline and fell_back(settings, reranker) and len(said) == 1
    np.testing.assert_allclose(scores, build_reranker(RerankSettings(backend="bi-encoder"),
                                                      FakeEmbedder()).score(QUERY, PASSAGES))


NOTES = """# Tidal power

Tidal turbines sit on the sea floor and turn with the tide twice a day, so their output can be
forecast years ahead. Tidal range power holds the sea behind a barrage or a lagoon and lets it
through turbines when the water outside has fallen.

The largest tidal power station, at Sihwa Lake in South Korea, has produced power from the sea
since 2011. Cats, meanwhile, sleep for most of the day and ignore the tide entirely.
"""


def test_gate_judges_served_scores_at_the_cross_encoder_threshold(
        cli: Any, isolated: Path, start: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the CLI: research scored by the server, `gate --json` shows backend http and 0.25,
    doctor names the server, and config show never shows the key."""
    tei = start("tei")
    (isolated / "config.toml").write_text(
        f'[rerank]\nbackend = "http"\nurl = "{tei.url}"\n\n[gate]\nuber_passes = 0\nmin_domains = 1\n'
        '\n[research]\nmin_text_chars = 0\nchunk_tokens = 48\nchunk_overlap = 0\n', encoding="utf-8")
    monkeypatch.setenv("NONSEQ_RERANK__API_KEY", KEY)
    notes = isolated / "tidal.md"
    notes.write_text(NOTES, encoding="utf-8")
    cli("queue", "add", "Tidal power from the sea", "-c", "climate")
    cli("research", "1", "--file", str(notes), "--json")
    verdict = json.loads(cli("gate", "1", "--json", code=None).stdout)
    quality = next(c for c in verdict["checks"] if c["name"] == "quality")
    assert quality["backend"] == "http" and quality["threshold"] == 0.25 and not quality["skipped"]
    pack = json.loads(cli("inspect", "1", "--json").stdout)
    query = tei.requests[-1]["body"]["query"]
    assert pack["research"]
    for cand in pack["research"]:
        title, text = cand["title"] or "", cand["text"]
        passage = text if text.startswith(title) else f"{title}\n{text}"
        assert cand["scores"]["rerank"] == pytest.approx(overlap(query, passage), abs=1e-6)
    assert all(r["auth"] == f"Bearer {KEY}" for r in tei.requests)
    from nonseq.config import load_settings as load
    from nonseq.pipeline.doctor import CHECKS
    from nonseq.workspace import Workspace

    with Workspace(load()) as ws:
        assert CHECKS["reranker"](ws) == f"http:BAAI/bge-reranker-v2-m3 answers at {tei.url}/rerank (tei API)"
    shown = cli("config", "show").stdout + cli("config", "show", "--json").stdout
    assert KEY not in shown and 'api_key = "***"' in shown
