"""A Qdrant server on 127.0.0.1 for tests: Qdrant's REST wire format, answered by qdrant-client's local engine.

No Qdrant server can be installed here, so the server path is tested against this: an HTTP server
that takes the requests qdrant-client sends (the JSON bodies of Qdrant's OpenAPI: CreateCollection,
PointInsertOperations, ScrollRequest, QueryRequest, ...), parses them with the same pydantic
models, runs them on an in-memory local-mode engine (Qdrant's own reference semantics for
filters, RRF and IDF) and answers as a server does: `{"result": ..., "status": "ok", "time": ...}`,
or an HTTP error with `{"status": {"error": ...}}`. It also keeps what a local engine does not:
the payload indexes created (reported in `payload_schema`), and every request seen.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import threading
import time
import warnings
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel

VERSION = "1.16.0"
#: A real Qdrant server (on loopback, one the tests may fill and empty) to run the server tests against.
REAL_URL = os.environ.get("NONSEQ_TEST_QDRANT_URL", "")


class NotFound(Exception):
    """A collection the request names does not exist (HTTP 404)."""


class FakeQdrant(ThreadingHTTPServer):
    """The server: `url` to give qdrant-client, `requests` seen, `stop()` when done."""

    daemon_threads = True

    def __init__(self, port: int = 0) -> None:
        from qdrant_client import QdrantClient

        self.engine = QdrantClient(location=":memory:")
        self.lock = threading.Lock()
        self.indexes: dict[str, dict[str, Any]] = {}
        self.requests: list[tuple[str, str]] = []
        super().__init__(("127.0.0.1", port), _Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        self.thread = threading.Thread(target=self.serve_forever, name="fake-qdrant", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Stop serving."""
        self.shutdown()
        self.server_close()
        self.engine.close()

    # -- routing -----------------------------------------------------------------------------
    def answer(self, method: str, path: str, body: Any) -> Any:
        """The result of one request (raises NotFound, ValueError for a bad request)."""
        self.requests.append((method, path))
        for pattern, verb, handler in ROUTES:
            found = re.fullmatch(pattern, path)
            if found and verb == method:
                with self.lock, warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return handler(self, body, *found.groups())
        raise NotFound(f"no route {method} {path}")

    def _known(self, name: str) -> str:
        """The name, if that collection (or alias) exists."""
        if not self.engine.collection_exists(name):
            raise NotFound(f"Not found: Collection `{name}` doesn't exist!")
        return name


def _models() -> Any:
    """qdrant-client's REST models."""
    from qdrant_client.http import models

    return models


def _root(server: FakeQdrant, body: Any) -> Any:
    return {"title": "qdrant - vector search engine", "version": VERSION, "commit": None}


def _collections(server: FakeQdrant, body: Any) -> Any:
    return server.engine.get_collections()


def _exists(server: FakeQdrant, body: Any, name: str) -> Any:
    return {"exists": server.engine.collection_exists(name)}


def _info(server: FakeQdrant, body: Any, name: str) -> Any:
    info = server.engine.get_collection(server._known(name)).model_dump(mode="json", exclude_none=True)
    info["payload_schema"] = server.indexes.get(name, {})
    return info


def _create(server: FakeQdrant, body: Any, name: str) -> Any:
    spec = _models().CreateCollection.model_validate(body)
    if server.engine.collection_exists(name):
        raise ValueError(f"Wrong input: Collection `{name}` already exists!")
    return server.engine.create_collection(name, vectors_config=spec.vectors, sparse_vectors_config=spec.sparse_vectors,
                                           metadata=spec.metadata)


def _update(server: FakeQdrant, body: Any, name: str) -> Any:
    spec = _models().UpdateCollection.model_validate(body)
    return server.engine.update_collection(server._known(name), metadata=spec.metadata)


def _delete_collection(server: FakeQdrant, body: Any, name: str) -> Any:
    server.indexes.pop(name, None)
    return server.engine.delete_collection(name)


def _index(server: FakeQdrant, body: Any, name: str) -> Any:
    spec = _models().CreateFieldIndex.model_validate(body)
    schema = spec.field_schema.value if hasattr(spec.field_schema, "value") else str(spec.field_schema)
    server.indexes.setdefault(server._known(name), {})[spec.field_name] = {"data_type": schema, "points": 0}
    return {"operation_id": 0, "status": "completed"}


def _upsert(server: FakeQdrant, body: Any, name: str) -> Any:
    models = _models()
    points = models.PointsList.model_validate(body).points
    return server.engine.upsert(server._known(name), points=points, wait=True)


def _count(server: FakeQdrant, body: Any, name: str) -> Any:
    spec = _models().CountRequest.model_validate(body or {})
    return server.engine.count(server._known(name), count_filter=spec.filter, exact=bool(spec.exact))


def _scroll(server: FakeQdrant, body: Any, name: str) -> Any:
    spec = _models().ScrollRequest.model_validate(body or {})
    points, offset = server.engine.scroll(server._known(name), scroll_filter=spec.filter, limit=spec.limit or 10,
                                          offset=spec.offset, with_payload=spec.with_payload,
                                          with_vectors=spec.with_vector if spec.with_vector is not None else False)
    return {"points": points, "next_page_offset": offset}


def _delete_points(server: FakeQdrant, body: Any, name: str) -> Any:
    models = _models()
    selector = models.FilterSelector.model_validate(body) if "filter" in body else \
        models.PointIdsList.model_validate(body)
    return server.engine.delete(server._known(name), points_selector=selector, wait=True)


def _query(server: FakeQdrant, body: Any, name: str) -> Any:
    spec = _models().QueryRequest.model_validate(body)
    result = server.engine.query_points(
        server._known(name), query=spec.query, using=spec.using, prefetch=spec.prefetch, query_filter=spec.filter,
        limit=spec.limit or 10, with_payload=spec.with_payload if spec.with_payload is not None else False,
        with_vectors=spec.with_vector if spec.with_vector is not None else False)
    return {"points": result.points}


def _aliases(server: FakeQdrant, body: Any) -> Any:
    return server.engine.get_aliases()


def _change_aliases(server: FakeQdrant, body: Any) -> Any:
    spec = _models().ChangeAliasesOperation.model_validate(body)
    return server.engine.update_collection_aliases(change_aliases_operations=spec.actions)


_NAME = r"([^/]+)"
ROUTES: list[tuple[str, str, Callable[..., Any]]] = [
    (r"/", "GET", _root),
    (r"/collections", "GET", _collections),
    (r"/aliases", "GET", _aliases),
    (r"/collections/aliases", "POST", _change_aliases),
    (rf"/collections/{_NAME}/exists", "GET", _exists),
    (rf"/collections/{_NAME}", "GET", _info),
    (rf"/collections/{_NAME}", "PUT", _create),
    (rf"/collections/{_NAME}", "PATCH", _update),
    (rf"/collections/{_NAME}", "DELETE", _delete_collection),
    (rf"/collections/{_NAME}/index", "PUT", _index),
    (rf"/collections/{_NAME}/points", "PUT", _upsert),
    (rf"/collections/{_NAME}/points/count", "POST", _count),
    (rf"/collections/{_NAME}/points/scroll", "POST", _scroll),
    (rf"/collections/{_NAME}/points/delete", "POST", _delete_points),
    (rf"/collections/{_NAME}/points/query", "POST", _query),
]


def _json(value: Any) -> Any:
    """A result as JSON data (pydantic models dumped the way a server omits nulls)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


class _Handler(BaseHTTPRequestHandler):
    """One HTTP request: JSON in, Qdrant's envelope out."""

    server: FakeQdrant
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet."""

    def _handle(self) -> None:
        started = time.perf_counter()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = urlsplit(self.path).path.rstrip("/") or "/"
        try:
            result = self.server.answer(self.command, path, json.loads(raw) if raw else None)
            status, body = 200, {"result": _json(result), "status": "ok"}
            if path == "/":  # the version answer is not wrapped in an envelope
                status, body = 200, _json(result)
        except NotFound as exc:
            status, body = 404, {"status": {"error": str(exc)}}
        except Exception as exc:  # noqa: BLE001 - a bad request, as a server reports it
            status, body = 400, {"status": {"error": f"Bad request: {exc}"}}
        if path != "/":
            body["time"] = time.perf_counter() - started
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_PUT = do_POST = do_PATCH = do_DELETE = _handle  # noqa: N815


def main(argv: list[str] | None = None) -> int:
    """Serve the fake on 127.0.0.1 until interrupted: `python -m tests.qdrant_fake --port P`."""
    p = argparse.ArgumentParser(description="A Qdrant REST server on 127.0.0.1 (qdrant-client's local engine).")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 = any free one)")
    args = p.parse_args(argv)
    server = FakeQdrant(args.port)
    print(server.url, flush=True)
    try:
        server.thread.join()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
