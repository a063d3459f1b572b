"""The LLM interface every step uses, and the shared logic of the backends.

Messages are `Message(role, content)` dataclasses; plain `{"role": ..., "content": ...}` dicts are
accepted everywhere too. Roles are "system", "user" and "assistant".
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from nonseq.errors import BackendError
from nonseq.llm.jsonout import JSONOutputError, parse_json, schema_instruction
from nonseq.llm.thinking import ThinkFilter
from nonseq.text.words import estimate_tokens

if TYPE_CHECKING:
    from nonseq.config import LLMSettings

TokenCallback = Callable[[str], None]


@dataclass(frozen=True)
class Message:
    """One chat message."""

    role: str
    content: str


MessageLike = Message | Mapping[str, str]
Messages = Sequence[MessageLike]


@runtime_checkable
class LLM(Protocol):
    """What every step needs from a language model."""

    name: str

    def complete(
        self,
        messages: Messages,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        on_token: TokenCallback | None = None,
    ) -> str:
        """The reply text (think blocks stripped); on_token sees the same text as it streams."""
        ...

    def complete_json(
        self, messages: Messages, schema: dict[str, Any], *, max_tokens: int | None = None
    ) -> dict[str, Any]:
        """A JSON object that validates against schema, or BackendError after the retries."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens in text: the model's tokenizer where available, else an estimate."""
        ...

    def check(self) -> str:
        """A one-line OK description for `nonseq doctor`; BackendError saying how to fix it."""
        ...

    def probe(self, timeout: float) -> str:
        """A quick look for a status line, loading nothing: e.g. "ollama up" or "llamacpp: x.gguf missing"."""
        ...


class ConnectionFailed(BackendError):
    """The server could not be reached; worth retrying (message already says how to fix it)."""


def to_dicts(messages: Messages) -> list[dict[str, str]]:
    """Messages as plain {"role", "content"} dicts, checked."""
    out: list[dict[str, str]] = []
    for msg in messages:
        role, content = (
            (msg.role, msg.content) if isinstance(msg, Message) else (msg["role"], msg["content"])
        )
        if role not in ("system", "user", "assistant"):
            raise ValueError(f"unknown message role {role!r}")
        out.append({"role": role, "content": str(content)})
    if not out:
        raise ValueError("at least one message is needed")
    return out


def http_up(url: str, timeout: float) -> bool:
    """True when something answers HTTP at url within the timeout."""
    import httpx

    try:
        httpx.get(url, timeout=timeout, follow_redirects=False)
    except httpx.HTTPError:
        return False
    return True


def with_schema(messages: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    """The messages with the JSON instruction added to the system message."""
    line = schema_instruction(schema)
    if messages[0]["role"] == "system":
        first = {"role": "system", "content": f"{messages[0]['content']}\n\n{line}"}
        return [first, *messages[1:]]
    return [{"role": "system", "content": line}, *messages]


class ChatBackend(ABC):
    """Shared behaviour: retries, the deadline, think stripping, streaming and the JSON loop.

    A backend implements `_stream` (raw text pieces, think tags included), raising
    `ConnectionFailed` when the server cannot be reached and `BackendError` for anything else.
    """

    name: str = "llm"

    def __init__(self, settings: LLMSettings) -> None:
        """Keep the settings; nothing is loaded or contacted yet."""
        self.settings = settings

    @abstractmethod
    def _stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        schema: dict[str, Any] | None,
    ) -> Iterator[str]:
        """Raw reply pieces as the model produces them."""

    @abstractmethod
    def check(self) -> str:
        """A one-line OK description, or BackendError."""

    @abstractmethod
    def probe(self, timeout: float) -> str:
        """A quick look for a status line, loading nothing."""

    def count_tokens(self, text: str) -> int:
        """An estimate; backends with a tokenizer override this."""
        return estimate_tokens(text)

    def complete(
        self,
        messages: Messages,
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        on_token: TokenCallback | None = None,
    ) -> str:
        """The reply text; on_token gets each visible piece, and the pieces join to the result."""
        temp = self.settings.temperature if temperature is None else temperature
        return self._generate(to_dicts(messages), max_tokens, temp, None, on_token)

    def complete_json(
        self, messages: Messages, schema: dict[str, Any], *, max_tokens: int | None = None
    ) -> dict[str, Any]:
        """Ask for JSON in the backend's constrained mode, then validate, repair or retry."""
        msgs = with_schema(to_dicts(messages), schema)
        attempts = self.settings.json_retries + 1
        problem = ""
        for attempt in range(attempts):
            temp = 0.0 if attempt == 0 else max(self.settings.temperature, 0.3)
            text = self._generate(msgs, max_tokens, temp, schema, None)
            try:
                return parse_json(text, schema)
            except JSONOutputError as exc:
                problem = str(exc)
            msgs = [*msgs, {"role": "assistant", "content": text[:2000]},
                    {"role": "user", "content": f"That reply was not usable ({problem}). "
                     "Answer again with only the JSON object, matching the schema."}]
        raise BackendError(f"{self.name}: no valid JSON after {attempts} attempts ({problem})")

    def _generate(
        self,
        messages: list[dict[str, str]],
        max_tokens: int | None,
        temperature: float,
        schema: dict[str, Any] | None,
        on_token: TokenCallback | None,
    ) -> str:
        """Run one call with retries on connection errors (only while nothing was shown)."""
        from tenacity import (
            Retrying,
            retry_if_exception_type,
            stop_after_attempt,
            wait_exponential,
        )

        limit = max_tokens or self.settings.max_tokens
        retrying = Retrying(
            stop=stop_after_attempt(self.settings.retries + 1),
            wait=wait_exponential(multiplier=0.25, max=4),
            retry=retry_if_exception_type(ConnectionFailed),
            reraise=True,
        )
        for attempt in retrying:
            with attempt:
                return self._attempt(messages, limit, temperature, schema, on_token)
        raise BackendError(f"{self.name}: no answer")  # pragma: no cover - tenacity reraises

    def _attempt(
        self,
        messages: list[dict[str, str]],
        max_tokens: int,
        temperature: float,
        schema: dict[str, Any] | None,
        on_token: TokenCallback | None,
    ) -> str:
        """One streamed call: filter think text, enforce the deadline, collect the pieces."""
        deadline = time.monotonic() + self.settings.timeout
        flt = ThinkFilter()
        shown: list[str] = []

        def emit(text: str) -> None:
            """Keep a streamed piece and pass it on to the caller's callback."""
            if text:
                shown.append(text)
                if on_token is not None:
                    on_token(text)

        stream = self._stream(messages, max_tokens=max_tokens, temperature=temperature, schema=schema)
        try:
            with contextlib.closing(stream):  # type: ignore[type-var]
                for piece in stream:
                    emit(flt.feed(piece))
                    if time.monotonic() > deadline:
                        raise BackendError(
                            f"{self.name}: no complete answer within {self.settings.timeout:g}s "
                            "(raise [llm] timeout or lower max_tokens)"
                        )
        except ConnectionFailed as exc:
            if shown:
                raise BackendError(f"{exc} (the connection dropped mid-answer)") from None
            raise
        emit(flt.finish())
        return "".join(shown)
