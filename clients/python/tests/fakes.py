"""Stand-ins for what is not the service: a gateway's error page, a captive portal, a server that
never answers or answers a byte at a time, a closed port, and answers the real service gives only
under load (503 SERVICE_UNAVAILABLE) or after months (410 CURSOR_EXPIRED). Each listens on
127.0.0.1 and is closed by its `with` block."""

from __future__ import annotations

import contextlib
import http.server
import json
import socket
import threading
import time
from typing import Callable, Dict, Iterator, List, Optional, Tuple

Reply = Tuple[int, Dict[str, str], bytes]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    reply: Callable[["_Handler"], Reply]
    seen: List[str]

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.body = self.rfile.read(length) if length else b""
        self.seen.append(f"{self.command} {self.path}")
        status, headers, body = self.reply(self)
        self.send_response(status)
        for name, value in {"content-length": str(len(body)), **headers}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, format: str, *args: object) -> None:
        return


@contextlib.contextmanager
def http_server(reply: Callable[[_Handler], Reply]) -> Iterator[Tuple[str, List[str]]]:
    """A server answering every request with reply(handler); yields its base URL and the requests seen."""
    seen: List[str] = []
    handler = type("Handler", (_Handler,), {"reply": staticmethod(reply), "seen": seen})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def answering(status: int, body: bytes, headers: Optional[Dict[str, str]] = None) -> "contextlib._GeneratorContextManager[Tuple[str, List[str]]]":
    return http_server(lambda _: (status, {"content-type": "application/json", **(headers or {})}, body))


def api_error(status: int, code: str, detail: str, request_id: str = "req-fake", **extra: object) -> bytes:
    """The service's error body."""
    return json.dumps({"detail": detail, "error_code": code, "status_code": status, "status": "error",
                       "timestamp": "2026-11-22T12:00:00Z", "request_id": request_id, **extra}).encode()


@contextlib.contextmanager
def raw_server(serve: Callable[[socket.socket], None]) -> Iterator[str]:
    """A TCP server handing each connection to serve(connection) in a thread of its own."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()
    connections: List[socket.socket] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            connections.append(connection)
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=10)
        for connection in connections:
            connection.close()
        listener.close()


def silent(connection: socket.socket) -> None:
    """Accepts and never answers (the connection is closed when the server stops)."""


def dribbling(connection: socket.socket) -> None:
    """Answers 200 with a body that never ends: one byte every 100 ms, for at most 30 s."""
    try:
        connection.recv(65536)
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000000\r\n\r\n")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            connection.sendall(b" ")
            time.sleep(0.1)
    except OSError:
        return


def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port: int = probe.getsockname()[1]
    probe.close()
    return port
