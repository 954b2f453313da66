"""Fixtures: real servers (the demo on SQLite, and PostgreSQL with a schema of its own), clients of them,
and a recording transport. The package is imported from this checkout (tests/test_install.py installs it)."""

from __future__ import annotations

import sys
import threading
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from partner_analytics import Client, HttpRequest, HttpResponse, UrllibTransport  # noqa: E402
from examples import new_venv, pip, source_copy  # noqa: E402
from servers import Keys, Server, banner_keys, create_schema, create_user, drop_schema, run_cli, serve  # noqa: E402


@dataclass
class Api:
    """A running server, a partner's key pair on it, and how to reach its store with the CLI."""

    name: str
    server: Server
    keys: Keys
    cwd: Path
    env: Dict[str, str]
    banner: bool
    siblings: List[Server] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def database_url(self) -> str:
        """The store's DATABASE_URL, absolute (the embedded database of `cwd` when none is set)."""
        return self.env.get("DATABASE_URL") or f"sqlite:{self.cwd / 'data' / 'partner-analytics.sqlite'}"

    def client(self, base_url: Optional[str] = None, keys: Optional[Keys] = None, **options: Any) -> Client:
        chosen = keys or self.keys
        return Client(base_url or self.base_url, chosen.client_key, chosen.secret_key, **options)

    def sibling(self, env: Dict[str, str]) -> Server:
        """Another server on the same store, JWT secret and data folder, with other settings."""
        server = serve(self.cwd, {**self.env, **env}, banner=self.banner)
        self.siblings.append(server)
        return server

    def cli(self, *args: str) -> str:
        return run_cli(list(args), self.cwd, self.env)

    def user(self, brands: str) -> Keys:
        return create_user(self.cwd, self.env, brands)

    def stop(self) -> None:
        for server in self.siblings:
            server.stop()
        self.server.stop()


# The webhook tests' receivers listen on 127.0.0.1 over http://, which a production service refuses.
RECEIVERS_ON_LOOPBACK = {"WEBHOOK_ALLOW_PRIVATE": "1"}


@pytest.fixture(scope="session")
def sqlite_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """`serve` on the embedded database of an empty folder: the first-start demo (8 brands, 400
    days ending today, a partner with brands 1 to 7), its key pair read from the banner."""
    cwd = tmp_path_factory.mktemp("demo")
    server = serve(cwd, RECEIVERS_ON_LOOPBACK, banner=True)
    api = Api("sqlite", server, banner_keys(server), cwd, dict(RECEIVERS_ON_LOOPBACK), banner=True)
    try:
        yield api
    finally:
        api.stop()


@pytest.fixture(scope="session")
def postgres_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """The same demo data (`demo`, defaults) in a PostgreSQL schema of its own, a partner with
    brands 1 to 7 (`users create`), and `serve` on it."""
    created = create_schema()
    cwd = tmp_path_factory.mktemp("postgres")
    env = {"DATABASE_URL": created["databaseUrl"], "JWT_SECRET": "python-client-tests-jwt-secret-0123456789abcdef", **RECEIVERS_ON_LOOPBACK}
    api: Optional[Api] = None
    try:
        run_cli(["demo", "--json"], cwd, env, timeout=300)
        keys = create_user(cwd, env, "1,2,3,4,5,6,7")
        api = Api("postgres", serve(cwd, env, banner=False), keys, cwd, env, banner=False)
        yield api
    finally:
        if api is not None:
            api.stop()
        drop_schema(created["schema"])


@pytest.fixture(scope="session", params=["sqlite", "postgres"])
def api(request: pytest.FixtureRequest) -> Api:
    """Each store in turn."""
    found: Api = request.getfixturevalue(f"{request.param}_api")
    return found


class Recorder:
    """A transport that records each request as "METHOD /path" and passes it on to urllib."""

    def __init__(self, before: Optional[Callable[[HttpRequest], None]] = None) -> None:
        self.calls: List[str] = []
        self._lock = threading.Lock()
        self._inner = UrllibTransport()
        self._before = before

    def __call__(self, request: HttpRequest, timeout: Optional[float]) -> HttpResponse:
        with self._lock:
            self.calls.append(f"{request.method} {urllib.parse.urlsplit(request.url).path}")
        if self._before is not None:
            self._before(request)
        return self._inner(request, timeout)

    def count(self, call: str) -> int:
        with self._lock:
            return self.calls.count(call)


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture(scope="session")
def installed_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a new virtual environment where `pip install ./clients/python` installed
    the package with no package index (Debian's setuptools and wheel wheels only)."""
    root = tmp_path_factory.mktemp("installed")
    python = new_venv(root / "venv")
    pip(python, "install", str(source_copy(root)), cwd=root)
    return python


def partner_env(api: Api) -> Dict[str, str]:
    """The three variables the walkthrough asks for."""
    return {"PA_BASE_URL": api.base_url, "PA_API_CLIENT_KEY": api.keys.client_key, "PA_API_SECRET_KEY": api.keys.secret_key}
