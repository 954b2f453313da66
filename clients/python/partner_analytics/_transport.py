"""One HTTP exchange over urllib, bounded in time, with every failure to get an answer named.

The default transport of the client. A transport is any callable taking an ``HttpRequest`` and
a timeout in seconds (None for none) and returning an ``HttpResponse`` for every answer, whatever
its status, or raising ``NetworkError`` when no answer came. Tests wrap it to watch or slow down
requests; a caller may supply one to use another HTTP stack.
"""

from __future__ import annotations

import errno
import gzip
import http.client
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional

from .errors import NetworkError

__all__ = ["HttpRequest", "HttpResponse", "Transport", "UrllibTransport", "describe_network_failure"]

_CHUNK = 64 * 1024


@dataclass(frozen=True)
class HttpRequest:
    method: str
    url: str
    headers: Mapping[str, str]
    body: Optional[bytes] = None


@dataclass(frozen=True)
class HttpResponse:
    status: int
    #: Header names in lower case.
    headers: Mapping[str, str]
    body: bytes


Transport = Callable[[HttpRequest, Optional[float]], HttpResponse]


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The API never redirects; following one would send the bearer token to wherever it points."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> None:
        return None


def _seconds(timeout: float) -> str:
    return f"{timeout:g} s"


def _endpoint(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname or ""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def describe_network_failure(error: BaseException, url: str, timeout: Optional[float]) -> str:
    """One readable clause for what urllib raised when no answer came, e.g.
    ``connection refused (ECONNREFUSED 127.0.0.1:8000)`` or ``no answer within 5 s (timeout)``."""
    cause: BaseException = error
    while isinstance(cause, urllib.error.URLError) and isinstance(cause.reason, BaseException):
        cause = cause.reason
    if isinstance(cause, (socket.timeout, TimeoutError)):
        return f"no answer within {_seconds(timeout)} (timeout)" if timeout else "timed out"
    if isinstance(cause, socket.gaierror):
        host = urllib.parse.urlsplit(url).hostname or ""
        if cause.errno in (socket.EAI_AGAIN,):
            return f"DNS lookup failed (EAI_AGAIN {host})"
        return f"host not found ({host}: {cause.strerror})"
    if isinstance(cause, ssl.SSLCertVerificationError):
        return f"TLS certificate rejected: {cause.verify_message} ({cause.reason})"
    if isinstance(cause, ssl.SSLError):
        return f"TLS handshake failed ({cause.reason or cause}): the server may not speak HTTPS on this port"
    if isinstance(cause, ConnectionRefusedError):
        return f"connection refused (ECONNREFUSED {_endpoint(url)})"
    if isinstance(cause, (ConnectionResetError, BrokenPipeError, http.client.RemoteDisconnected)):
        return "connection closed by the other side (ECONNRESET)"
    if isinstance(cause, http.client.IncompleteRead):
        return "connection closed by the other side before the whole answer arrived"
    if isinstance(cause, OSError) and cause.errno in (errno.EHOSTUNREACH, errno.ENETUNREACH):
        return f"host unreachable ({errno.errorcode[cause.errno]} {_endpoint(url)})"
    if isinstance(cause, OSError) and cause.errno is not None and cause.errno in errno.errorcode:
        return f"{cause.strerror} ({errno.errorcode[cause.errno]} {_endpoint(url)})"
    return str(cause) or type(cause).__name__


def _socket_of(stream: Any) -> Optional[socket.socket]:
    """The socket under an answer (HTTPResponse → BufferedReader → SocketIO → socket), if reachable."""
    for _ in range(5):
        if isinstance(stream, socket.socket):
            return stream
        stream = getattr(stream, "fp", None) or getattr(stream, "raw", None) or getattr(stream, "_sock", None)
        if stream is None:
            return None
    return None


def _read_body(answer: Any, deadline: Optional[float]) -> bytes:
    """The whole body, giving up at the deadline even if the server keeps sending a byte at a time."""
    sock = _socket_of(answer)
    # read1: what one receive brings, where read(n) would wait for all n bytes.
    read = getattr(answer, "read1", answer.read)
    chunks: List[bytes] = []
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout("deadline")
            if sock is not None:
                try:
                    sock.settimeout(left)
                except OSError:
                    # http.client closed it on reading the last byte: the next read returns b"".
                    sock = None
        chunk = read(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


class UrllibTransport:
    """HTTP(S) over urllib: proxies from the environment (HTTPS_PROXY…), the system's certificates,
    gzip answers, no redirects. ``timeout`` bounds the whole exchange, answer body included."""

    def __init__(self, ssl_context: Optional[ssl.SSLContext] = None) -> None:
        handlers: List[urllib.request.BaseHandler] = [_NoRedirects()]
        if ssl_context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=ssl_context))
        self._opener = urllib.request.build_opener(*handlers)

    def __call__(self, request: HttpRequest, timeout: Optional[float]) -> HttpResponse:
        deadline = None if not timeout else time.monotonic() + timeout
        prepared = urllib.request.Request(request.url, data=request.body, headers=dict(request.headers), method=request.method)
        try:
            try:
                answer: Any = self._opener.open(prepared, timeout=timeout or None)
            except urllib.error.HTTPError as refusal:
                # A status outside 2xx is still an answer: its body says why.
                answer = refusal
            with answer:
                body = _read_body(answer, deadline)
                headers: Dict[str, str] = {name.lower(): value for name, value in answer.headers.items()}
                status = int(getattr(answer, "status", None) or answer.code)
        except (OSError, http.client.HTTPException) as failure:
            raise NetworkError(request.method, request.url, describe_network_failure(failure, request.url, timeout)) from failure
        if headers.get("content-encoding", "").lower() == "gzip":
            try:
                body = gzip.decompress(body)
            except (OSError, EOFError) as failure:
                raise NetworkError(request.method, request.url, f"the gzip answer is corrupt ({failure})") from failure
        return HttpResponse(status=status, headers=headers, body=body)
