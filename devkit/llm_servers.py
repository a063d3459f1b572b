"""Test helpers: an Ollama-compatible server, a llama-cpp-python server and a scripted
OpenAI-compatible server, all on 127.0.0.1.

`FakeOllama` speaks Ollama's wire format (/api/chat, /api/generate, /api/tags, /api/show,
/api/embed, /api/version; NDJSON streaming; `format`; 404 for a model that is not pulled) and
answers with the real small model through llama-cpp-python. Models are registered by name with a
mode: "plain" answers normally, "think" prefixes a streamed <think>…</think> block, "unclosed"
streams an unclosed <think> block only.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from devkit.web import free_port
from nonseq.llm.llamacpp import bundled_model_path, generation_lock, load_llama

THINK_TEXT = "<think>The user wants a short answer. Let me think step by step.</think>\n\n"
#: A short chat and a one-field schema, shared by the server-backed backend tests.
PROMPT = [{"role": "user", "content": "Say hello."}]
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "minLength": 1}},
    "required": ["city"],
}

#: A two-section article schema: the shortest whole article the tiny model writes in tests.
BRIEF = """name = "brief"
description = "Two short sections: what happened, and why it matters."
target_words = 200
headings = true
opening = "Say what happened in the first sentence."
closing = "End with what to watch next."

[[sections]]
name = "What happened"
guidance = "The facts, with their sources."

[[sections]]
name = "Why it matters"
guidance = "What it changes for the reader."
"""

DEFAULT_MODELS = {"smollm2:135m": "plain", "thinker:latest": "think", "ponder:latest": "unclosed"}


def _now() -> str:
    """Ollama's created_at timestamp."""
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _full(name: str) -> str:
    """A model name with its tag (bare names mean :latest)."""
    return name if ":" in name else f"{name}:latest"


def _pieces(text: str, size: int = 5) -> list[str]:
    """text cut in small pieces, as a token stream would deliver it."""
    return [text[i:i + size] for i in range(0, len(text), size)]


class _Handler(BaseHTTPRequestHandler):
    """One request to the fake Ollama."""

    protocol_version = "HTTP/1.1"
    server: _OllamaHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet."""

    def _json(self, status: int, body: Any) -> None:
        """Send one JSON reply."""
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_stream(self) -> None:
        """Headers of a chunked NDJSON stream."""
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _line(self, body: dict[str, Any]) -> None:
        """One NDJSON line as one HTTP chunk."""
        data = json.dumps(body).encode() + b"\n"
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_stream(self) -> None:
        """The last chunk."""
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def do_GET(self) -> None:  # noqa: N802
        """/, /api/version and /api/tags."""
        if self.path == "/api/tags":
            self._json(200, {"models": [self.server.fake.tag(n) for n in self.server.fake.models]})
        elif self.path == "/api/version":
            self._json(200, {"version": "0.6.8"})
        elif self.path == "/":
            self._json(200, "Ollama is running")
        else:
            self._json(404, {"error": "404 page not found"})

    def do_POST(self) -> None:  # noqa: N802
        """/api/chat, /api/generate, /api/show and /api/embed."""
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            self._json(400, {"error": "invalid JSON body"})
            return
        fake = self.server.fake
        fake.requests.append((self.path, body))
        model = _full(str(body.get("model", "")))
        routes = {"/api/chat": fake.chat, "/api/generate": fake.generate,
                  "/api/show": fake.show, "/api/embed": fake.embed}
        if self.path not in routes:
            self._json(404, {"error": "404 page not found"})
        elif model not in fake.models:
            self._json(404, {"error": f'model "{body.get("model", "")}" not found, '
                                      "try pulling it first"})
        else:
            routes[self.path](self, model, body)


class _OllamaHTTPServer(ThreadingHTTPServer):
    """The HTTP server, holding a reference to its FakeOllama."""

    daemon_threads = True
    fake: FakeOllama


class FakeOllama:
    """An Ollama-compatible HTTP server on 127.0.0.1 backed by the real small model."""

    def __init__(
        self, models: dict[str, str] | None = None, model_path: Path | None = None,
        n_ctx: int = 8192,
    ) -> None:
        """Register models (name -> mode); the GGUF defaults to the bundled SmolLM2."""
        self.models = {_full(k): v for k, v in (models or DEFAULT_MODELS).items()}
        self.model_path = model_path or bundled_model_path()
        self.n_ctx = n_ctx
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self._httpd: _OllamaHTTPServer | None = None

    @property
    def url(self) -> str:
        """The server's base URL."""
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> FakeOllama:
        """Serve in a daemon thread."""
        self._httpd = _OllamaHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.fake = self
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def tag(self, name: str) -> dict[str, Any]:
        """An /api/tags entry."""
        return {"name": name, "model": name, "modified_at": _now(), "size": 98362432,
                "digest": "0" * 64, "details": self._details()}

    def _details(self) -> dict[str, Any]:
        """The model details block."""
        return {"parent_model": "", "format": "gguf", "family": "llama", "families": ["llama"],
                "parameter_size": "134.52M", "quantization_level": "Q4_1"}

    def _tokens(self, messages: list[dict[str, Any]], body: dict[str, Any]) -> Iterator[str]:
        """Answer pieces from the real model (think text first for think-mode models)."""
        mode = self.models[_full(body["model"])]
        if mode in ("think", "unclosed"):
            text = THINK_TEXT if mode == "think" else THINK_TEXT.split("</think>")[0]
            yield from _pieces(text)
            if mode == "unclosed":
                return
        options = body.get("options") or {}
        kwargs: dict[str, Any] = {
            "messages": messages, "stream": True,
            "max_tokens": int(options.get("num_predict", 128)),
            "temperature": float(options.get("temperature", 0.8)),
        }
        if kwargs["max_tokens"] < 0:
            kwargs["max_tokens"] = None
        if "seed" in options:
            kwargs["seed"] = int(options["seed"])
        fmt = body.get("format")
        if fmt == "json":
            kwargs["response_format"] = {"type": "json_object"}
        elif isinstance(fmt, dict):
            kwargs["response_format"] = {"type": "json_object", "schema": fmt}
        llama = load_llama(self.model_path, self.n_ctx, 2)
        with generation_lock(llama):
            for chunk in llama.create_chat_completion(**kwargs):
                text = chunk["choices"][0]["delta"].get("content")  # type: ignore[index]
                if text:
                    yield text

    def _reply(
        self, handler: _Handler, model: str, pieces: Iterator[str], stream: bool, key: str
    ) -> None:
        """Send pieces as Ollama does: NDJSON lines then a done line, or one JSON object."""
        started = time.perf_counter_ns()

        def wrap(text: str) -> dict[str, Any]:
            return {"message": {"role": "assistant", "content": text}} if key == "message" else {
                "response": text}

        if stream:
            handler._start_stream()
        parts: list[str] = []
        for piece in pieces:
            parts.append(piece)
            if stream:
                handler._line({"model": model, "created_at": _now(), **wrap(piece), "done": False})
        took = time.perf_counter_ns() - started
        final = {"model": model, "created_at": _now(), **wrap("" if stream else "".join(parts)),
                 "done": True, "done_reason": "stop", "total_duration": took,
                 "load_duration": 0, "prompt_eval_count": 1, "prompt_eval_duration": 1,
                 "eval_count": len(parts), "eval_duration": took}
        if key == "response":
            final["context"] = []
        if stream:
            handler._line(final)
            handler._end_stream()
        else:
            handler._json(200, final)

    def chat(self, handler: _Handler, model: str, body: dict[str, Any]) -> None:
        """POST /api/chat."""
        messages = [{"role": m["role"], "content": m.get("content", "")}
                    for m in body.get("messages", [])]
        self._reply(handler, model, self._tokens(messages, body), body.get("stream", True),
                    "message")

    def generate(self, handler: _Handler, model: str, body: dict[str, Any]) -> None:
        """POST /api/generate (the prompt is sent through the chat template)."""
        messages = [{"role": "system", "content": body["system"]}] if body.get("system") else []
        messages.append({"role": "user", "content": body.get("prompt", "")})
        self._reply(handler, model, self._tokens(messages, body), body.get("stream", True),
                    "response")

    def show(self, handler: _Handler, model: str, body: dict[str, Any]) -> None:
        """POST /api/show."""
        handler._json(200, {"modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
                            "details": self._details(), "model_info": {},
                            "modified_at": _now(), "capabilities": ["completion"]})

    def embed(self, handler: _Handler, model: str, body: dict[str, Any]) -> None:
        """POST /api/embed: mean-pooled, normalised embeddings from the same GGUF."""
        inputs = body.get("input", [])
        texts = [inputs] if isinstance(inputs, str) else list(inputs)
        llama = load_llama(self.model_path, 512, 2, embedding=True)
        with generation_lock(llama):
            vectors = [llama.embed(t, normalize=True) for t in texts]
        handler._json(200, {"model": model, "embeddings": vectors, "total_duration": 1,
                            "load_duration": 0, "prompt_eval_count": len(texts)})


#: `python -m llama_cpp.server`, loading the model the way nonseq does: without llama.cpp's extra
#: (AMX repacking) weight buffers on CPUs that advertise AMX tiles a VM may not enable (SIGILL).
_SERVER_MAIN = (
    "import runpy, sys\n"
    "import llama_cpp.llama_cpp as low\n"
    "from nonseq.llm.llamacpp import cpu_has_amx\n"
    "if cpu_has_amx() and hasattr(low.llama_model_params, 'use_extra_bufts'):\n"
    "    _default = low.llama_model_default_params\n"
    "    def _params():\n"
    "        value = _default()\n"
    "        value.use_extra_bufts = False\n"
    "        return value\n"
    "    low.llama_model_default_params = _params\n"
    "sys.argv[0] = 'llama_cpp.server'\n"
    "runpy.run_module('llama_cpp.server', run_name='__main__', alter_sys=True)\n"
)


@contextlib.contextmanager
def llama_cpp_server(
    model_path: Path | None = None, alias: str = "smollm2", n_ctx: int = 2048,
    ready_timeout: float = 90.0,
) -> Iterator[str]:
    """Run `python -m llama_cpp.server` on a free port; yield its /v1 URL; stop it after."""
    port = free_port()
    cmd = [sys.executable, "-c", _SERVER_MAIN, "--model",
           str(model_path or bundled_model_path()), "--model_alias", alias,
           "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
           "--n_threads", "2", "--verbose", "False"]
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}/v1"
        try:
            _wait_ready(proc, url, log, ready_timeout)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(proc: subprocess.Popen[bytes], url: str, log: Any, timeout: float) -> None:
    """Poll /v1/models until it answers; fail with the server log if it dies or hangs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            tail = log.read().decode(errors="replace")[-2000:]
            raise RuntimeError(f"llama_cpp.server exited with {proc.returncode}:\n{tail}")
        try:
            if httpx.get(f"{url}/models", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"llama_cpp.server not ready at {url} after {timeout:g}s")


#: answer(model, messages) -> the reply text of one chat call.
Answer = Callable[[str, list[dict[str, Any]]], str]


class ScriptedChat(ThreadingHTTPServer):
    """An OpenAI-compatible server on 127.0.0.1 answering chat calls from a script.

    `replies` are given in turn (the last one repeats); or `answer(model, messages)` computes each
    reply, so one server can play several models (the request's `model` names which).
    """

    def __init__(self, replies: list[str] | None = None, answer: Answer | None = None,
                 models: Sequence[str] = ("scripted",)) -> None:
        self.replies = replies or [""]
        self.answer = answer
        self.models = list(models)
        self.calls = 0

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                """Quiet."""

            def _send(self, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802
                server: ScriptedChat = self.server  # type: ignore[assignment]
                self._send({"object": "list", "data": [{"id": m, "object": "model"} for m in server.models]})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server: ScriptedChat = self.server  # type: ignore[assignment]
                if server.answer is not None:
                    reply = server.answer(str(body.get("model", "")), list(body.get("messages", [])))
                else:
                    reply = server.replies[min(server.calls, len(server.replies) - 1)]
                server.calls += 1
                self._send({"choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": reply}}]})

        super().__init__(("127.0.0.1", 0), Handler)

    def __enter__(self) -> ScriptedChat:
        """Serve in a daemon thread."""
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop serving."""
        self.shutdown()
        self.server_close()

    @property
    def url(self) -> str:
        """The base URL for [llm] url."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


def echo_unit(_model: str, messages: list[dict[str, Any]]) -> str:
    """A writer that restates its unit word for word: the last message's text after its instruction."""
    return re.split(r"\n\n|: ", str(messages[-1]["content"]), maxsplit=1)[-1].strip()


def point_llm_at(folder: Path, url: str) -> None:
    """Point config.toml's [llm] at the OpenAI-compatible server at `url` (model "scripted"), keeping its other keys."""
    config = folder / "config.toml"
    text = config.read_text(encoding="utf-8")
    keys = f'backend = "openai"\nurl = "{url}"\nmodel = "scripted"\n'
    text = text.replace("[llm]\n", f"[llm]\n{keys}", 1) if "\n[llm]\n" in text else f"{text}\n[llm]\n{keys}"
    config.write_text(text, encoding="utf-8")
