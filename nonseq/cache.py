"""Loaded models, shared by every workspace of a process: loading is slow, and a model is read-only."""

from __future__ import annotations

import contextlib
import ssl
import threading
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")


class ModelCache:
    """Models by (kind, settings) key; a workspace uses the process-wide one unless given its own."""

    def __init__(self) -> None:
        self._models: dict[tuple[str, str], Any] = {}
        self._loading: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()

    def get(self, kind: str, key: str, load: Callable[[], T]) -> T:
        """The model loaded for this key, loading it on first use (a failed load is not kept).

        Only loads of the same key wait for each other: a load may itself need another model
        (an embedder whose server loads a model to answer), even from another thread.
        """
        name = (kind, key)
        with self._lock:
            if name in self._models:
                found: T = self._models[name]
                return found
            loading = self._loading.setdefault(name, threading.Lock())
        with loading:
            with self._lock:
                if name in self._models:
                    done: T = self._models[name]
                    return done
            model = load()
            with self._lock:
                self._models[name] = model
            return model

    def close(self, kind: str | None = None) -> None:
        """Drop the models of a kind (all when None), closing those that can be closed."""
        with self._lock:
            names = [k for k in self._models if kind is None or k[0] == kind]
            models = [self._models.pop(name) for name in names]
        for model in models:
            if hasattr(model, "close"):
                with contextlib.suppress(Exception):
                    model.close()

    def __len__(self) -> int:
        return len(self._models)


#: The process-wide cache (tests that need a fresh load pass their own ModelCache).
SHARED = ModelCache()


@cache
def tls_context() -> ssl.SSLContext:
    """The client TLS context on certifi's CA bundle, made once per process (each load reads the bundle: tens
    of ms). What httpx makes for a client that does not read the environment (`trust_env=False`)."""
    import certifi

    return ssl.create_default_context(cafile=certifi.where())
