"""The LLM wire-format servers for tests live in devkit/llm_servers.py (shared with bench/); this re-exports them."""

from devkit.llm_servers import (  # noqa: F401 - re-exported
    BRIEF,
    DEFAULT_MODELS,
    PROMPT,
    SCHEMA,
    THINK_TEXT,
    Answer,
    FakeOllama,
    ScriptedChat,
    free_port,
    llama_cpp_server,
)
