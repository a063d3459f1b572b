"""The OpenAI-compatible backend against llama-cpp-python's own server, plus wire-level cases."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import httpx
import pytest

from devkit.llm_servers import PROMPT, SCHEMA, free_port, llama_cpp_server
from nonseq.config import LLMSettings
from nonseq.errors import BackendError
from nonseq.llm import build_llm
from nonseq.llm.openai_compat import OpenAICompatLLM


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """`python -m llama_cpp.server` with the bundled model, for the whole module."""
    with llama_cpp_server(alias="smollm2") as url:
        yield url


def _llm(url: str, model: str = "", **kw: object) -> OpenAICompatLLM:
    """An openai backend pointed at url."""
    llm = build_llm(LLMSettings(backend="openai", url=url, model=model, **kw))
    assert isinstance(llm, OpenAICompatLLM)
    return llm


def test_check_and_model_discovery(server_url: str) -> None:
    """With no model set, the server's first model is used; check() names it."""
    llm = _llm(server_url)
    assert llm.check() == f"openai:smollm2 at {server_url}"
    assert llm.name == "openai:smollm2"
    assert _llm(server_url.removesuffix("/v1"), "smollm2").check().startswith("openai:smollm2")


def test_plain_completion(server_url: str) -> None:
    """A plain completion returns text."""
    assert _llm(server_url, "smollm2").complete(PROMPT, max_tokens=12, temperature=0)


def test_streamed_completion(server_url: str) -> None:
    """on_token is called per SSE delta and the pieces join to the result."""
    pieces: list[str] = []
    text = _llm(server_url).complete(PROMPT, max_tokens=16, temperature=0,
                                     on_token=pieces.append)
    assert len(pieces) > 1 and "".join(pieces) == text


def test_schema_constrained_json(server_url: str) -> None:
    """The server refuses json_schema; the backend falls back to json_object + schema."""
    llm = _llm(server_url)
    data = llm.complete_json(
        [{"role": "user", "content": "What is the capital of France?"}], SCHEMA, max_tokens=32
    )
    assert isinstance(data["city"], str) and data["city"]
    assert llm._format == 1  # json_object with schema (llama-cpp-python's grammar mode)


def test_count_tokens_by_server(server_url: str) -> None:
    """Token counts come from the server's tokenizer endpoint."""
    llm = _llm(server_url)
    assert llm.count_tokens("Grounded articles need sources.") > 0
    assert llm._tokenize_route == ("/extras/tokenize", "input")


def test_missing_model(server_url: str) -> None:
    """A model the server does not list is refused with the available ones."""
    llm = _llm(server_url, "gpt-9")
    with pytest.raises(BackendError, match=r"model gpt-9 is not served .*available: smollm2"):
        llm.check()
    with pytest.raises(BackendError, match="model gpt-9 is not served"):
        llm.complete(PROMPT, max_tokens=4)


def test_server_down_is_clear() -> None:
    """A closed port gives a one-line hint after the retries."""
    url = f"http://127.0.0.1:{free_port()}/v1"
    llm = _llm(url, "m", retries=2)
    with pytest.raises(BackendError, match=f"openai: no server at {url}; start it"):
        llm.complete(PROMPT)


# Wire-level cases with an in-memory transport (no sockets at all).

Handler = Callable[[httpx.Request], httpx.Response]


def _sse(*deltas: str) -> bytes:
    """An SSE body with one content delta per event, then [DONE]."""
    events = [{"choices": [{"index": 0, "delta": {"content": d}}]} for d in deltas]
    lines = [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"]
    return "".join(lines).encode()


def _mocked(handler: Handler, **kw: object) -> OpenAICompatLLM:
    """A backend whose httpx client talks to handler."""
    llm = _llm("http://127.0.0.1:9/v1", "m", retries=0, **kw)
    llm._http = httpx.Client(transport=httpx.MockTransport(handler))
    return llm


def _models() -> httpx.Response:
    """A /models reply listing m."""
    return httpx.Response(200, json={"object": "list", "data": [{"id": "m"}]})


def test_json_schema_mode_and_think_tags() -> None:
    """Servers that accept json_schema get it; SSE think pieces are stripped."""
    seen: list[dict[str, object]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return _models()
        seen.append(json.loads(request.content))
        return httpx.Response(200, content=_sse("<think>", "plan", "</think>", '{"city"',
                                                 ': "Paris"}'),
                              headers={"content-type": "text/event-stream"})

    llm = _mocked(handler)
    assert llm.complete_json(PROMPT, SCHEMA) == {"city": "Paris"}
    fmt = seen[0]["response_format"]
    assert fmt == {"type": "json_schema",
                   "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True}}


def test_auth_error_names_the_api_key() -> None:
    """A 401 says to set [llm] api_key; the key is sent as a bearer token."""
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return _models()
        return httpx.Response(401, json={"error": {"message": "Invalid API key"}})

    llm = _mocked(handler, api_key="sk-test")
    with pytest.raises(BackendError, match=r"HTTP 401: Invalid API key\); set \[llm\] api_key"):
        llm.complete(PROMPT)
    real = _llm("http://127.0.0.1:9/v1", "m", api_key="sk-test")
    assert real.http().headers["Authorization"] == "Bearer sk-test"


def test_plain_json_reply_and_missing_models_route() -> None:
    """A server without /models and without streaming still works."""
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(404, text="not here")
        return httpx.Response(200, json={"choices": [{"message": {"content": " Hi there "}}]})

    assert _mocked(handler).complete(PROMPT) == "Hi there"
