"""A language model scripted in process: injected into a workspace (`Workspace(settings, llm=...)`,
`nonseq.open_workspace(path, llm=...)`) where a stage test needs a model's answers but not its HTTP path.

It keeps the backends' contract (nonseq.llm.LLM): `complete` streams its reply to on_token, and
`complete_json` validates against the schema with the backends' own parser, raising BackendError
after `json_retries + 1` unusable replies, as ChatBackend does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from nonseq.errors import BackendError
from nonseq.llm.base import Messages, TokenCallback, to_dicts
from nonseq.llm.jsonout import JSONOutputError, parse_json

#: answer(messages) -> the reply text of one call.
Answer = Callable[[list[dict[str, str]]], str]


class ScriptedModel:
    """Answers from `replies` in turn (the last one repeats), or from `answer(messages)`; counts its calls."""

    def __init__(self, replies: Sequence[str] = ("",), answer: Answer | None = None, *,
                 name: str = "scripted", json_retries: int = 0) -> None:
        self.replies = list(replies) or [""]
        self.answer = answer
        self.name = name
        self.json_retries = json_retries
        self.calls = 0

    def _reply(self, messages: Messages) -> str:
        """The next reply."""
        as_dicts = to_dicts(messages)
        reply = self.answer(as_dicts) if self.answer is not None else \
            self.replies[min(self.calls, len(self.replies) - 1)]
        self.calls += 1
        return reply

    def complete(self, messages: Messages, *, max_tokens: int | None = None, temperature: float | None = None,
                 on_token: TokenCallback | None = None) -> str:
        """The scripted reply, streamed in one piece."""
        reply = self._reply(messages)
        if on_token is not None and reply:
            on_token(reply)
        return reply

    def complete_json(self, messages: Messages, schema: dict[str, Any], *,
                      max_tokens: int | None = None) -> dict[str, Any]:
        """The scripted reply parsed and validated; BackendError after the retries."""
        problem = ""
        for _ in range(self.json_retries + 1):
            try:
                return parse_json(self._reply(messages), schema)
            except JSONOutputError as exc:
                problem = str(exc)
        raise BackendError(f"{self.name}: no valid JSON after {self.json_retries + 1} attempts ({problem})")

    def count_tokens(self, text: str) -> int:
        """Words, as an estimate."""
        return len(text.split())

    def check(self) -> str:
        """Always ready."""
        return f"{self.name}: scripted"

    def probe(self, timeout: float) -> str:
        """Always up."""
        return f"{self.name}: up"


def source_of(messages: list[dict[str, str]]) -> str:
    """The planned source sentence of the writer's last message (what follows the instruction)."""
    import re

    last = str(messages[-1].get("content", "")) if messages else ""
    return re.split(r"\n\n|: ", last, maxsplit=1)[-1].strip()


def restating(**kw: Any) -> ScriptedModel:
    """A model that restates each planned source sentence as it is (a faithful writer)."""
    return ScriptedModel(answer=source_of, **kw)
