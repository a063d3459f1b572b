"""The error family: each carries a one-line human message the CLI prints."""


class NonseqError(Exception):
    """Base class: a problem the user can act on, printed as one line."""

    exit_code = 1


class ConfigError(NonseqError):
    """A setting is missing, malformed or out of range."""

    exit_code = 2


class UsageError(NonseqError):
    """The command's input is wrong (bad id, empty title, unknown category...)."""

    exit_code = 2


class NotFoundError(NonseqError):
    """A topic, article, persona or schema does not exist."""


class StageError(NonseqError):
    """A topic cannot make the requested stage move."""


class WorkspaceBusyError(NonseqError):
    """Another nonseq process holds the workspace (EX_TEMPFAIL: try again later)."""

    exit_code = 75


class BackendError(NonseqError):
    """An adapter (search, fetch, store, embedder, reranker, LLM) failed."""


class ModelMismatchError(NonseqError):
    """A collection was built with another embedding model or dimension."""


def is_transient(exc: BaseException) -> bool:
    """True for failures worth retrying later (a backend down, a network error, a time limit)."""
    if isinstance(exc, NonseqError):
        return isinstance(exc, (BackendError, WorkspaceBusyError))
    name = type(exc).__name__
    return isinstance(exc, (OSError, TimeoutError)) or "Timeout" in name or "Connect" in name


class StoreError(NonseqError):
    """The vector store is damaged, or it and the database are not the same workspace's."""
