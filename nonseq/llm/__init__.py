"""Language-model backends behind one small interface, chosen by [llm] backend.

Nothing heavy (llama_cpp, ollama, mlx) is imported here: backends load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from nonseq.errors import BackendError
from nonseq.llm.base import LLM, Message, Messages, TokenCallback

if TYPE_CHECKING:
    from nonseq.config import LLMSettings

__all__ = ["BACKENDS", "LLM", "BackendError", "Message", "Messages", "TokenCallback", "build_llm"]

#: backend name -> (module, class)
BACKENDS: dict[str, tuple[str, str]] = {
    "llamacpp": ("nonseq.llm.llamacpp", "LlamaCppLLM"),
    "ollama": ("nonseq.llm.ollama_backend", "OllamaLLM"),
    "openai": ("nonseq.llm.openai_compat", "OpenAICompatLLM"),
    "mlx": ("nonseq.llm.mlx_backend", "MLXLLM"),
}


def build_llm(settings: LLMSettings) -> LLM:
    """The backend named in settings (nothing is loaded or contacted until first use)."""
    try:
        module_name, class_name = BACKENDS[settings.backend]
    except KeyError:
        raise BackendError(
            f"unknown [llm] backend {settings.backend!r} (one of {', '.join(BACKENDS)})"
        ) from None
    module = importlib.import_module(module_name)
    llm: LLM = getattr(module, class_name)(settings)
    return llm
