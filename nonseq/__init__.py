"""NonSequitur: turn a queue of topics into researched, grounded articles.

The Python API (see docs/python-api.md) is imported on first use, so `import nonseq` stays light:

    import nonseq

    with nonseq.open_workspace("my-articles") as ws:
        print([t.title for t in ws.topics()])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from nonseq.api import ArticleText, KnowledgeHit, ReadOnlyError, WorkspaceAPI, open_workspace
    from nonseq.errors import NonseqError
    from nonseq.models import Topic

#: Public name -> the module that defines it (imported when the name is first used).
_LAZY = {
    "open_workspace": "nonseq.api",
    "WorkspaceAPI": "nonseq.api",
    "ArticleText": "nonseq.api",
    "KnowledgeHit": "nonseq.api",
    "ReadOnlyError": "nonseq.api",
    "NonseqError": "nonseq.errors",
    "Topic": "nonseq.models",
}

__all__ = ["ArticleText", "KnowledgeHit", "NonseqError", "ReadOnlyError", "Topic", "WorkspaceAPI",
           "__version__", "open_workspace"]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'nonseq' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (for completion)."""
    return sorted(__all__)
