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


def damaged_database(what: str, detail: str) -> StoreError:
    """The one-line error for an SQLite file that fails to read or its integrity check."""
    return StoreError(f"{what} is damaged ({detail}); restore it from a backup, or recover what is readable "
                      "with `sqlite3 nonseq.db .recover`")


def machine_fault(exc: BaseException, data_dir: object = "") -> NonseqError | None:
    """The one-line error for a fault of the machine (damaged database, full disk, read-only file), else None."""
    import errno
    import sqlite3

    where = f" in {data_dir}" if data_dir else ""
    if isinstance(exc, sqlite3.DatabaseError):
        text = str(exc)
        if "full" in text or "disk I/O error" in text:
            return NonseqError(f"the workspace database{where} could not be written ({text}: a full disk, a "
                               "file-size limit or a failing device); free some space and run the command again "
                               "(what was saved is kept)")
        if "malformed" in text or "not a database" in text or "corrupt" in text:
            return damaged_database(f"the workspace database{where}", f"{text}; `nonseq doctor` checks it")
        return None
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        name = f": {exc.filename}" if exc.filename else ""
        return NonseqError(f"no space left on the device{name}; free some space and run the command again")
    if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        name = f" {exc.filename}" if exc.filename else ""
        return NonseqError(f"cannot write{name}: {exc.strerror}; check the folder's permissions")
    return None


class DatabaseDownError(NonseqError):
    """The database server cannot be reached (PostgreSQL down, network gone): nothing is marked failed."""

    exit_code = 69  # EX_UNAVAILABLE


class ConflictError(NonseqError):
    """Someone else changed the record since it was shown (an editor's edit is refused)."""
