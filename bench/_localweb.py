"""The bench's local web: each real page served on its own loopback address (127.0.0.N), one port."""

from __future__ import annotations

import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: nonseq, devkit, bench
from devkit.data import DATA as SHARED  # noqa: E402 - after the path setup

DATA = SHARED / "web" / "scrapinghub-aeb"
FIRST_HOST = 10  # 127.0.0.10 onwards (devkit/web.py uses .2-.7)


class _Handler(BaseHTTPRequestHandler):
    """Serves one page per address at its original path; robots.txt is 404."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Stay quiet."""

    def do_GET(self) -> None:  # noqa: N802
        """One page, or 404."""
        site: LocalPages = self.server.site  # type: ignore[attr-defined]
        page = site.by_address.get((self.server.server_address[0], urlsplit(self.path).path))
        body, headers = b"<html><title>404</title></html>", {}
        status = 404
        if page is not None:
            status, raw = 200, (DATA / "html" / f"{page}.html.gz").read_bytes()
            gz = "gzip" in self.headers.get("Accept-Encoding", "")
            body = raw if gz else gzip.decompress(raw)
            headers = {"Content-Encoding": "gzip"} if gz else {}
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _QuietServer(ThreadingHTTPServer):
    """A server that does not print a traceback when a client hangs up early."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Ignore dropped connections (the fetcher closes them when it has what it needs)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LocalPages:
    """Serve the given page ids on 127.0.0.N:port (N from FIRST_HOST), each at its original path."""

    def __init__(self, page_ids: list[str], port: int = 0) -> None:
        truth = json.loads((DATA / "ground-truth.json").read_text(encoding="utf-8"))
        self.urls: dict[str, str] = {}
        self.by_address: dict[tuple[str, str], str] = {}
        self.servers: list[_QuietServer] = []
        self.port = port
        self._pages = [(pid, urlsplit(truth[pid]["url"]).path or "/") for pid in page_ids]

    def start(self) -> LocalPages:
        """Start one server per page address."""
        for i, (pid, path) in enumerate(self._pages):
            ip = f"127.0.0.{FIRST_HOST + i}"
            server = _QuietServer((ip, self.port), _Handler)
            server.site = self  # type: ignore[attr-defined]
            self.port = server.server_address[1]
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                             daemon=True).start()
            self.servers.append(server)
            self.by_address[(ip, path)] = pid
            self.urls[pid] = f"http://{ip}:{self.port}{path}"
        return self

    def stop(self) -> None:
        """Stop every server."""
        for server in self.servers:
            server.shutdown()
            server.server_close()

    def __enter__(self) -> LocalPages:
        """Start serving."""
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        """Stop serving."""
        self.stop()
