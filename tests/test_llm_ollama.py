"""The ollama backend against an Ollama-compatible server on 127.0.0.1 (real small model)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from devkit.llm_servers import PROMPT, SCHEMA, FakeOllama, free_port
from nonseq.config import LLMSettings
from nonseq.errors import BackendError
from nonseq.llm import build_llm
from nonseq.llm.ollama_backend import OllamaLLM


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOllama]:
    """One fake Ollama for the module."""
    fake = FakeOllama().start()
    yield fake
    fake.stop()


def _llm(server: FakeOllama, model: str = "smollm2:135m", **kw: object) -> OllamaLLM:
    """An ollama backend pointed at the fake server."""
    llm = build_llm(LLMSettings(backend="ollama", url=server.url, model=model, **kw))
    assert isinstance(llm, OllamaLLM)
    return llm


def test_check(server: FakeOllama) -> None:
    """check() finds the model among the pulled ones (bare names mean :latest)."""
    assert _llm(server).check().startswith(f"ollama:smollm2:135m at {server.url}")
    assert _llm(server, "thinker").check().startswith("ollama:thinker at")


def test_plain_completion_sends_options(server: FakeOllama) -> None:
    """A completion returns text; temperature, repeat_penalty, num_predict and num_ctx reach the server."""
    text = _llm(server, context_window=4096).complete(PROMPT, max_tokens=12, temperature=0)
    assert text
    path, body = server.requests[-1]
    assert path == "/api/chat" and body["stream"] is True
    assert body["options"] == {"temperature": 0, "repeat_penalty": 1.15, "num_predict": 12, "num_ctx": 4096}


def test_streamed_completion(server: FakeOllama) -> None:
    """on_token is called per NDJSON piece and the pieces join to the result."""
    pieces: list[str] = []
    text = _llm(server).complete(PROMPT, max_tokens=16, temperature=0, on_token=pieces.append)
    assert len(pieces) > 1 and "".join(pieces) == text


def test_schema_goes_in_format(server: FakeOllama) -> None:
    """complete_json sends the schema as `format` and returns a validated object."""
    data = _llm(server).complete_json(
        [{"role": "user", "content": "What is the capital of France?"}], SCHEMA, max_tokens=32
    )
    assert isinstance(data["city"], str) and data["city"]
    assert server.requests[-1][1]["format"] == SCHEMA


def test_think_tags_never_reach_the_callback(server: FakeOllama) -> None:
    """A model that streams <think>…</think> first: the callback and result skip it."""
    pieces: list[str] = []
    text = _llm(server, "thinker").complete(PROMPT, max_tokens=12, temperature=0,
                                            on_token=pieces.append)
    assert text and "".join(pieces) == text
    assert not any(w in p for p in pieces for w in ("think", "step by step"))


def test_unclosed_think_gives_empty_text(server: FakeOllama) -> None:
    """A reply that is an unclosed <think> block shows nothing."""
    pieces: list[str] = []
    assert _llm(server, "ponder").complete(PROMPT, on_token=pieces.append) == ""
    assert pieces == []


def test_model_not_pulled(server: FakeOllama) -> None:
    """A model the server lacks: check() and complete() say how to pull it."""
    llm = _llm(server, "qwen3:8b")
    expected = r"ollama: model qwen3:8b is not pulled; run `ollama pull qwen3:8b`"
    with pytest.raises(BackendError, match=expected):
        llm.check()
    with pytest.raises(BackendError, match=expected):
        llm.complete(PROMPT, max_tokens=4)
    with pytest.raises(BackendError, match=expected):
        llm.complete_json(PROMPT, SCHEMA, max_tokens=4)


def test_server_down_is_clear() -> None:
    """A closed port gives the `ollama serve` hint, after the retries."""
    url = f"http://127.0.0.1:{free_port()}"
    llm = build_llm(LLMSettings(backend="ollama", url=url, retries=2))
    with pytest.raises(BackendError, match=rf"ollama: no server at {url}; start it with `ollama serve`"):
        llm.complete(PROMPT)
    with pytest.raises(BackendError, match="no server at"):
        llm.check()


def test_silent_server_times_out() -> None:
    """A server that accepts but never answers hits the timeout with a clear message."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(4)
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        llm = build_llm(LLMSettings(backend="ollama", url=url, timeout=0.5, retries=0))
        with pytest.raises(BackendError, match="no answer from .* within 0.5s"):
            llm.complete(PROMPT)


def test_ollama_host_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """With [llm] url empty, OLLAMA_HOST is honoured (a scheme is added when missing)."""
    monkeypatch.setenv("OLLAMA_HOST", "10.0.0.5:11434")
    assert build_llm(LLMSettings(backend="ollama")).url == "http://10.0.0.5:11434"  # type: ignore[attr-defined]
    monkeypatch.delenv("OLLAMA_HOST")
    assert build_llm(LLMSettings(backend="ollama")).url == "http://127.0.0.1:11434"  # type: ignore[attr-defined]


def test_fake_server_speaks_ollama(server: FakeOllama) -> None:
    """The fake answers the official client on generate, embed and show too."""
    import ollama

    client = ollama.Client(host=server.url)
    assert client.generate(model="smollm2:135m", prompt="Hi", options={"num_predict": 4}).done
    vectors = client.embed(model="smollm2:135m", input=["a cat", "a dog"]).embeddings
    assert len(vectors) == 2 and len(vectors[0]) == 576
    assert client.show("smollm2:135m").details.family == "llama"  # type: ignore[union-attr]
