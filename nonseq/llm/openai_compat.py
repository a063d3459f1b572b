"""OpenAI-compatible chat servers (llama-server, llama-cpp-python, vLLM, LM Studio) over httpx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from nonseq.errors import BackendError
from nonseq.llm.base import ChatBackend, ConnectionFailed, http_up
from nonseq.text.words import estimate_tokens

if TYPE_CHECKING:
    import httpx

    from nonseq.config import LLMSettings

DEFAULT_URL = "http://127.0.0.1:8080/v1"
#: Ways to ask for JSON, tried in order until the server accepts one.
FORMAT_MODES = ("json_schema", "json_object", "prompt")
#: Tokenizer endpoints: llama-server, then llama-cpp-python's server.
TOKENIZE_ROUTES = (("/tokenize", "content"), ("/extras/tokenize", "input"))


def _base_url(url: str) -> str:
    """The API base: scheme added, trailing slash dropped, /v1 added when there is no path."""
    url = url.strip().rstrip("/")
    url = url if "://" in url else f"http://{url}"
    return url if urlsplit(url).path else f"{url}/v1"


def _error_text(resp: httpx.Response) -> str:
    """The server's error message from a JSON (or plain) error body."""
    try:
        body = json.loads(resp.read())
    except (json.JSONDecodeError, UnicodeDecodeError):
        return " ".join(resp.text.split())[:300]
    err = body.get("error", body.get("detail", body)) if isinstance(body, dict) else body
    if isinstance(err, dict):
        err = err.get("message", err)
    return " ".join(str(err).split())[:300]


def _model_matches(wanted: str, served: str) -> bool:
    """Whether a served model id is the wanted one (ids may be paths or carry .gguf)."""
    tail = served.rstrip("/").rsplit("/", 1)[-1]
    return wanted in (served, tail, tail.removesuffix(".gguf"))


class OpenAICompatLLM(ChatBackend):
    """A model behind an OpenAI-compatible /v1/chat/completions endpoint."""

    def __init__(self, settings: LLMSettings) -> None:
        """Pick the server; the model is checked (or discovered) on first use."""
        super().__init__(settings)
        self.url = _base_url(settings.url or DEFAULT_URL)
        self.model = settings.model
        self.name = f"openai:{self.model or 'default'}"
        self._http: httpx.Client | None = None
        self._verified = False
        self._format = 0
        self._tokenize_route: tuple[str, str] | None = None
        self._tokenize_probed = False

    def http(self) -> httpx.Client:
        """The httpx client, created on first use."""
        if self._http is None:
            import httpx

            headers = {"Authorization": f"Bearer {self.settings.api_key}"} if (
                self.settings.api_key) else {}
            timeout = self.settings.timeout
            self._http = httpx.Client(
                timeout=httpx.Timeout(timeout, connect=min(5.0, timeout)), headers=headers
            )
        return self._http

    def _translate(self, exc: Exception) -> BackendError:
        """A one-line error for an httpx failure."""
        import httpx

        if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
            return ConnectionFailed(
                f"openai: no server at {self.url}; start it (e.g. `llama-server -m MODEL.gguf "
                "--port 8080`) or set [llm] url"
            )
        if isinstance(exc, httpx.TimeoutException):
            return BackendError(
                f"openai: no answer from {self.url} within {self.settings.timeout:g}s "
                "(raise [llm] timeout)"
            )
        return ConnectionFailed(f"openai: connection to {self.url} failed ({exc!r:.120})")

    def _status_error(self, resp: httpx.Response) -> BackendError:
        """A one-line error for an HTTP error status."""
        text = _error_text(resp)
        if resp.status_code in (401, 403):
            return BackendError(
                f"openai: {self.url} refused the request (HTTP {resp.status_code}: {text}); "
                "set [llm] api_key"
            )
        if resp.status_code == 404 and "model" in text.lower():
            return BackendError(f"openai: model {self.model} not found at {self.url} ({text})")
        return BackendError(f"openai: HTTP {resp.status_code} from {self.url}: {text}")

    def served_models(self) -> list[str]:
        """The model ids the server lists at /models."""
        import httpx

        try:
            resp = self.http().get(f"{self.url}/models")
        except httpx.HTTPError as exc:
            raise self._translate(exc) from None
        if resp.status_code >= 400:
            raise self._status_error(resp)
        try:
            return [str(m["id"]) for m in resp.json().get("data", [])]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise BackendError(f"openai: {self.url}/models is not an OpenAI model list") from None

    def resolve_model(self) -> str:
        """The model to ask for: checked against /models once, or the server's first model."""
        if self._verified:
            return self.model
        try:
            served = self.served_models()
        except ConnectionFailed:
            raise
        except BackendError:
            if not self.model:
                raise
            served = []  # no usable /models route: trust the setting
        if not self.model:
            if not served:
                raise BackendError(f"openai: {self.url} lists no models; set [llm] model")
            self.model = served[0]
            self.name = f"openai:{self.model}"
        elif served and not any(_model_matches(self.model, s) for s in served):
            raise BackendError(
                f"openai: model {self.model} is not served at {self.url} "
                f"(available: {', '.join(served[:8])}); set [llm] model"
            )
        self._verified = True
        return self.model

    def _response_format(self, schema: dict[str, Any]) -> dict[str, Any] | None:
        """The response_format for the current JSON mode."""
        mode = FORMAT_MODES[self._format]
        if mode == "json_schema":
            return {"type": "json_schema",
                    "json_schema": {"name": "answer", "schema": schema, "strict": True}}
        if mode == "json_object":
            return {"type": "json_object", "schema": schema}
        return None

    def _body(
        self, messages: list[dict[str, str]], max_tokens: int, temperature: float
    ) -> dict[str, Any]:
        """The chat request body without response_format."""
        body: dict[str, Any] = {
            "model": self.resolve_model(), "messages": messages, "max_tokens": max_tokens,
            "temperature": temperature, "stream": True,
        }
        if self.settings.seed:
            body["seed"] = self.settings.seed
        return body

    def _stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        schema: dict[str, Any] | None,
    ) -> Iterator[str]:
        """Stream /chat/completions (SSE); fall back to weaker JSON modes the server accepts."""
        import httpx

        body = self._body(messages, max_tokens, temperature)
        try:
            while True:
                fmt = self._response_format(schema) if schema is not None else None
                body.pop("response_format", None)
                if fmt is not None:
                    body["response_format"] = fmt
                with self.http().stream("POST", f"{self.url}/chat/completions", json=body) as resp:
                    if resp.status_code >= 400:
                        if self._downgrade_json(resp, fmt):
                            continue
                        raise self._status_error(resp)
                    yield from self._pieces(resp)
                    return
        except httpx.HTTPError as exc:
            raise self._translate(exc) from None

    def _downgrade_json(self, resp: httpx.Response, fmt: dict[str, Any] | None) -> bool:
        """After a 400/422 that rejected response_format, switch to the next JSON mode."""
        if fmt is None or resp.status_code not in (400, 422, 500):
            return False
        text = _error_text(resp).lower()
        if not any(word in text for word in ("response_format", "json_schema", "grammar")):
            return False
        self._format = min(self._format + 1, len(FORMAT_MODES) - 1)
        return True

    def _pieces(self, resp: httpx.Response) -> Iterator[str]:
        """Content deltas from an SSE stream (or from a plain JSON reply)."""
        if resp.headers.get("content-type", "").startswith("application/json"):
            data = json.loads(resp.read())
            yield str(data["choices"][0]["message"].get("content") or "")
            return
        for line in resp.iter_lines():
            if not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                return
            try:
                event = json.loads(payload)
            except json.JSONDecodeError:
                continue
            if "error" in event:
                raise BackendError(f"openai: {str(event['error'])[:200]}")
            choices = event.get("choices") or [{}]
            text = (choices[0].get("delta") or {}).get("content")
            if text:
                yield text

    def count_tokens(self, text: str) -> int:
        """Tokens by the server's tokenizer endpoint when it has one, else an estimate."""
        import httpx

        if not text or (self._tokenize_probed and self._tokenize_route is None):
            return estimate_tokens(text)
        root = self.url.removesuffix("/v1")
        routes = [self._tokenize_route] if self._tokenize_route else list(TOKENIZE_ROUTES)
        self._tokenize_probed = True
        for route, key in routes:
            try:
                resp = self.http().post(f"{root}{route}", json={key: text}, timeout=10)
                tokens = resp.json()["tokens"] if resp.status_code == 200 else None
            except (httpx.HTTPError, ValueError, KeyError, TypeError):
                tokens = None
            if isinstance(tokens, list):
                self._tokenize_route = (route, key)
                return len(tokens)
        return estimate_tokens(text)

    def probe(self, timeout: float) -> str:
        """Whether the server answers."""
        return f"openai {'up' if http_up(self.url + '/models', timeout) else 'down'}"

    def check(self) -> str:
        """The server answers and serves the model."""
        self._verified = False
        model = self.resolve_model()
        return f"openai:{model} at {self.url}"
