"""Language-model backends behind one small interface, chosen by [llm] backend.

Every backend module is light: llama_cpp, ollama's client and mlx load on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from nonseq.errors import BackendError
from nonseq.llm.base import LLM, Message, Messages, TokenCallback
from nonseq.llm.llamacpp import LlamaCppLLM
from nonseq.llm.mlx_backend import MLXLLM
from nonseq.llm.ollama_backend import OllamaLLM
from nonseq.llm.openai_compat import OpenAICompatLLM

if TYPE_CHECKING:
    from nonseq.config import LLMSettings

__all__ = ["BACKENDS", "LLM", "BackendError", "Message", "Messages", "TokenCallback", "build_llm"]

#: [llm] backend -> the class that runs it (the same registry shape as embedders and rerankers).
BACKENDS: dict[str, Callable[[LLMSettings], LLM]] = {
    "llamacpp": LlamaCppLLM,
    "ollama": OllamaLLM,
    "openai": OpenAICompatLLM,
    "mlx": MLXLLM,
}


def build_llm(settings: LLMSettings) -> LLM:
    """The backend named in settings (nothing is loaded or contacted until first use)."""
    try:
        backend = BACKENDS[settings.backend]
    except KeyError:
        raise BackendError(
            f"unknown [llm] backend {settings.backend!r} (one of {', '.join(BACKENDS)})"
        ) from None
    return backend(settings)
