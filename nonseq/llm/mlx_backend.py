"""mlx-lm on Apple silicon (imported only there); JSON by prompt, validation and retries."""

from __future__ import annotations

import platform
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from nonseq.cache import SHARED
from nonseq.errors import BackendError
from nonseq.llm.base import ChatBackend

if TYPE_CHECKING:
    from nonseq.config import LLMSettings

EXAMPLE_MODEL = "mlx-community/Qwen3-4B-4bit"


def is_apple_silicon() -> bool:
    """Whether this is macOS on an arm64 (M-series) chip."""
    return sys.platform == "darwin" and platform.machine() == "arm64"


def load_mlx(model: str) -> tuple[Any, Any]:
    """(model, tokenizer) from mlx-lm, loaded once per model name or folder."""
    def load_model() -> tuple[Any, Any]:
        """Import mlx-lm and load the model and its tokenizer, with clear errors."""
        try:
            from mlx_lm import load
        except ImportError:
            raise BackendError("mlx: mlx-lm is not installed; run `pip install mlx-lm`") from None
        try:
            loaded = load(model)
        except Exception as exc:  # mlx-lm raises many kinds while fetching or loading
            raise BackendError(f"mlx: cannot load {model}: {str(exc)[:160]}") from None
        return loaded[0], loaded[1]

    return SHARED.get("mlx", model, load_model)


class MLXLLM(ChatBackend):
    """A model run in this process by mlx-lm (Metal)."""

    def __init__(self, settings: LLMSettings) -> None:
        """Refuse anything but Apple silicon; the model loads on first use."""
        super().__init__(settings)
        if not is_apple_silicon():
            raise BackendError(
                f"mlx: needs Apple silicon (macOS on arm64), this machine is "
                f"{sys.platform}/{platform.machine()}; use [llm] backend llamacpp, ollama or openai"
            )
        if not settings.model:
            raise BackendError(
                f"mlx: set [llm] model to an MLX model (e.g. {EXAMPLE_MODEL} or a local folder)"
            )
        self.model = settings.model
        self.name = f"mlx:{self.model}"

    def _stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        schema: dict[str, Any] | None,
    ) -> Iterator[str]:
        """Stream tokens from mlx-lm (no constrained decoding: the schema is in the prompt)."""
        from mlx_lm.generate import stream_generate
        from mlx_lm.sample_utils import make_sampler

        model, tokenizer = load_mlx(self.model)
        prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                               tokenize=False)
        sampler = make_sampler(temp=temperature)
        with SHARED.get("mlx-lock", self.model, threading.Lock):
            for response in stream_generate(model, tokenizer, prompt, max_tokens=max_tokens,
                                             sampler=sampler):
                if response.text:
                    yield response.text

    def count_tokens(self, text: str) -> int:
        """Tokens by the model's tokenizer."""
        return len(load_mlx(self.model)[1].encode(text)) if text else 0

    def probe(self, timeout: float) -> str:
        """The model it would load (nothing is loaded)."""
        return f"mlx: {self.model or 'default model'}"

    def check(self) -> str:
        """Load the model and describe it."""
        load_mlx(self.model)
        return f"{self.name} (Apple silicon, {platform.mac_ver()[0] or 'macOS'})"
