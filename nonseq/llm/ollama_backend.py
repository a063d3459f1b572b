"""Ollama through its Python client: streaming chat, JSON via `format`=schema."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from nonseq.errors import BackendError
from nonseq.llm.base import ChatBackend, ConnectionFailed, http_up

if TYPE_CHECKING:
    from ollama import Client

    from nonseq.config import LLMSettings

DEFAULT_URL = "http://127.0.0.1:11434"
DEFAULT_MODEL = "qwen3:8b"


def _full_name(model: str) -> str:
    """Ollama's canonical name: a bare name means the :latest tag."""
    return model if ":" in model else f"{model}:latest"


def _host(url: str) -> str:
    """A base URL with a scheme and no trailing slash."""
    url = url.strip().rstrip("/")
    return url if "://" in url else f"http://{url}"


class OllamaLLM(ChatBackend):
    """A model served by a local (or remote) Ollama."""

    def __init__(self, settings: LLMSettings) -> None:
        """Pick the server and model; nothing is contacted yet."""
        super().__init__(settings)
        self.url = _host(settings.url or os.environ.get("OLLAMA_HOST") or DEFAULT_URL)
        self.model = settings.model or DEFAULT_MODEL
        self.name = f"ollama:{self.model}"
        self._client: Client | None = None

    def client(self) -> Client:
        """The ollama client, created on first use."""
        if self._client is None:
            try:
                import httpx
                from ollama import Client
            except ImportError:
                raise BackendError(
                    "ollama: the ollama package is not installed; run `pip install ollama`"
                ) from None
            timeout = self.settings.timeout
            self._client = Client(
                host=self.url, timeout=httpx.Timeout(timeout, connect=min(5.0, timeout))
            )
        return self._client

    def _translate(self, exc: Exception) -> BackendError:
        """A one-line error for anything the client or httpx raised."""
        import httpx
        from ollama import ResponseError

        if isinstance(exc, ResponseError):
            text = str(exc.error)
            if exc.status_code == 404 or ("not found" in text and "model" in text):
                return BackendError(
                    f"ollama: model {self.model} is not pulled; run `ollama pull {self.model}`"
                )
            return BackendError(f"ollama: {text[:200]} (HTTP {exc.status_code})")
        if isinstance(exc, ConnectionError | httpx.ConnectError | httpx.ConnectTimeout):
            return ConnectionFailed(
                f"ollama: no server at {self.url}; start it with `ollama serve` "
                "(or set [llm] url)"
            )
        if isinstance(exc, httpx.TimeoutException):
            return BackendError(
                f"ollama: no answer from {self.url} within {self.settings.timeout:g}s "
                "(raise [llm] timeout)"
            )
        if isinstance(exc, httpx.HTTPError):
            return ConnectionFailed(f"ollama: connection to {self.url} failed ({exc!r:.120})")
        return BackendError(f"ollama: unexpected reply from {self.url} ({exc!r:.120})")

    def _stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        schema: dict[str, Any] | None,
    ) -> Iterator[str]:
        """Stream /api/chat; the schema goes in `format` (constrained decoding)."""
        import httpx
        from ollama import ResponseError

        options: dict[str, Any] = {
            "temperature": temperature,
            "repeat_penalty": self.settings.repeat_penalty,
            "num_predict": max_tokens,
            "num_ctx": self.settings.context_window,
        }
        if self.settings.seed:
            options["seed"] = self.settings.seed
        try:
            parts = self.client().chat(
                model=self.model, messages=messages, stream=True, format=schema, options=options
            )
            for part in parts:
                text = part.message.content
                if text:
                    yield text
        except (ResponseError, ConnectionError, httpx.HTTPError, ValueError) as exc:
            raise self._translate(exc) from None

    def pulled_models(self) -> list[str]:
        """The models the server has pulled."""
        import httpx
        from ollama import ResponseError

        try:
            listed = self.client().list()
        except (ResponseError, ConnectionError, httpx.HTTPError, ValueError) as exc:
            raise self._translate(exc) from None
        return [m.model for m in listed.models if m.model]

    def probe(self, timeout: float) -> str:
        """Whether the server answers."""
        return f"ollama {'up' if http_up(self.url + '/api/tags', timeout) else 'down'}"

    def check(self) -> str:
        """The server answers and the model is pulled."""
        names = self.pulled_models()
        if _full_name(self.model) not in {_full_name(n) for n in names}:
            raise BackendError(
                f"ollama: model {self.model} is not pulled; run `ollama pull {self.model}`"
            )
        return f"{self.name} at {self.url} ({len(names)} models pulled)"
