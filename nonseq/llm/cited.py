"""Cited sentences by construction: every sentence ends with a marker naming a listed source.

The in-process llama.cpp model decodes under a small logits state machine (nonseq.llm.citedecode);
Ollama and OpenAI-compatible servers answer a JSON schema whose `source` is an enum of the listed
numbers (their structured output), rendered back to prose.
Backends with neither (MLX) write freely; the grounding check then works as for any reply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from nonseq.llm.base import LLM, Messages, TokenCallback

_JSON_SENTENCE = re.compile(r"\s*\[\d+\]\s*")


def cite_schema(numbers: Sequence[int], min_sentences: int = 2, max_sentences: int = 4) -> dict:
    """A JSON schema: {"sentences": [{"text", "source"}]} with source among numbers."""
    nums = sorted({int(n) for n in numbers})
    return {
        "type": "object",
        "properties": {"sentences": {
            "type": "array", "minItems": max(1, min_sentences), "maxItems": max_sentences,
            "items": {"type": "object",
                      "properties": {"text": {"type": "string"},
                                     "source": {"type": "integer", "enum": nums}},
                      "required": ["text", "source"]}}},
        "required": ["sentences"],
    }


def render_sentences(items: Sequence[dict[str, Any]], numbers: Sequence[int]) -> str:
    """Structured sentences as prose: `Text [n].` each (markers the model wrote are dropped)."""
    valid = set(numbers)
    out = []
    for item in items:
        text = " ".join(_JSON_SENTENCE.sub(" ", str(item.get("text", ""))).split())
        text = text.rstrip(" .!?")
        source = item.get("source")
        if len(text.split()) < 3:
            continue
        mark = f" [{source}]" if isinstance(source, int) and source in valid else ""
        out.append(f"{text}{mark}.")
    return " ".join(out)


def complete_sentences(text: str) -> str:
    """Drop a last sentence cut off before its marker (generation ran out of tokens)."""
    ends = list(re.finditer(r"\[\d+\]\.", text))
    return text[:ends[-1].end()].strip() if ends else ""


def cite_mode(llm: LLM) -> str:
    """How this backend can constrain citations: "decoder", "json" or "" (it cannot)."""
    if callable(getattr(llm, "complete_cited", None)):
        return "decoder"
    name = getattr(llm, "name", "")
    return "json" if name.startswith(("ollama:", "openai:")) else ""


def complete_cited(llm: LLM, messages: Messages, numbers: Sequence[int], *, min_sentences: int,
                   max_sentences: int, max_tokens: int, temperature: float | None = None,
                   on_token: TokenCallback | None = None, source_text: str = "",
                   bias: float = 0.0) -> tuple[str, str]:
    """(reply, mode): sentences constrained to end with a listed marker where the backend can."""
    mode = cite_mode(llm) if numbers else ""
    if mode == "decoder":
        from nonseq.llm.citedecode import CiteSpec

        spec = CiteSpec(sorted(set(numbers)), min_sentences, max_sentences, source_text, bias)
        text = llm.complete_cited(messages, spec,  # type: ignore[attr-defined]
                                  max_tokens=max_tokens, temperature=temperature,
                                  on_token=on_token)
        return complete_sentences(text), mode
    if mode == "json":
        data = llm.complete_json(messages, cite_schema(numbers, min_sentences, max_sentences),
                                 max_tokens=max_tokens)
        text = render_sentences(data.get("sentences") or [], numbers)
        if on_token is not None and text:
            on_token(text)
        return text, mode
    return llm.complete(messages, max_tokens=max_tokens, temperature=temperature,
                        on_token=on_token), mode
