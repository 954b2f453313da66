"""Real Partner Analytics servers for the tests: the repository's CLI (`node bin/partner-analytics.js`)
started in a temporary folder, listening on a free port of 127.0.0.1, its logs kept for inspection.

Every wait here is bounded; every process started is stopped (SIGTERM, then SIGKILL) by its owner.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

REPO = Path(__file__).resolve().parents[3]
CLI = REPO / "bin" / "partner-analytics.js"
EXPORT = REPO / "packages" / "client" / "bin" / "partner-analytics-export.js"
NODE = os.environ.get("PA_TEST_NODE") or shutil.which("node") or "node"
POSTGRES_URL = os.environ.get("TEST_DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/test"
START_TIMEOUT = 120.0


def base_env(extra: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """A clean environment for a child: PATH and HOME only, so nothing of ours leaks into it."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp"), "NODE_ENV": "development"}
    env.update(extra or {})
    return env


def run_cli(args: List[str], cwd: Path, env: Mapping[str, str], timeout: float = 120.0) -> str:
    """Runs one CLI command; its standard output, or an AssertionError with both streams."""
    done = subprocess.run([NODE, str(CLI), *args], cwd=cwd, env=base_env(env), capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"partner-analytics {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done.stdout


@dataclass
class Keys:
    client_key: str
    secret_key: str
    user_id: Optional[str] = None


@dataclass
class Server:
    """One `serve` process."""

    process: subprocess.Popen[str]
    base_url: str = ""
    stdout: List[str] = field(default_factory=list)
    stderr: List[str] = field(default_factory=list)

    def log_lines(self) -> List[Dict[str, object]]:
        """The JSON log lines written so far."""
        lines = []
        for line in list(self.stdout):
            try:
                lines.append(json.loads(line))
            except ValueError:
                continue
        return lines

    def requests(self, method: str, path: str) -> int:
        """How many requests of this method and path the server logged as arriving."""
        count = 0
        for line in self.log_lines():
            request = line.get("req")
            if line.get("msg") == "incoming request" and isinstance(request, dict):
                if request.get("method") == method and str(request.get("url", "")).split("?")[0] == path:
                    count += 1
        return count

    def requests_reaching(self, method: str, path: str, expected: int, timeout: float = 15.0) -> int:
        """requests(method, path) once it reaches `expected` or `timeout` passes: the server's log
        lines arrive through a pipe and a reader thread, some time after the answers."""
        deadline = time.monotonic() + timeout
        while True:
            count = self.requests(method, path)
            if count >= expected or time.monotonic() > deadline:
                return count
            time.sleep(0.05)

    def settled_requests(self, method: str, path: str, quiet: float = 0.3) -> int:
        """requests(method, path) once no new one has been logged for `quiet` seconds (a count to
        compare with later: earlier requests' log lines may still be on their way)."""
        count = self.requests(method, path)
        deadline = time.monotonic() + 15.0
        while time.monotonic() < deadline:
            time.sleep(quiet)
            again = self.requests(method, path)
            if again == count:
                break
            count = again
        return count

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)


def _pump(stream: object, into: List[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.append(line.rstrip("\n"))


def serve(cwd: Path, env: Mapping[str, str], *, banner: bool) -> Server:
    """Starts `serve` in `cwd` on a free port; returns once it listens (and printed the demo banner, when expected)."""
    process = subprocess.Popen([NODE, str(CLI), "serve"], cwd=cwd, env=base_env({"PORT": "0", "LOG_LEVEL": "info", **env}),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    server = Server(process)
    for stream, into in ((process.stdout, server.stdout), (process.stderr, server.stderr)):
        threading.Thread(target=_pump, args=(stream, into), daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        listening = next((match.group(1) for line in list(server.stdout) for match in [re.search(r"Server listening at (http://127\.0\.0\.1:\d+)", line)] if match), None)
        banner_done = not banner or any("export PA_API_SECRET_KEY=" in line for line in list(server.stderr))
        if listening and banner_done:
            server.base_url = listening
            return server
        if process.poll() is not None:
            raise AssertionError(f"serve exited early ({process.returncode}):\n" + "\n".join(server.stderr))
        if time.monotonic() > deadline:
            server.stop()
            raise AssertionError(f"serve did not start within {START_TIMEOUT:g} s:\n" + "\n".join(server.stderr))
        time.sleep(0.05)


def banner_keys(server: Server) -> Keys:
    """The demo partner's key pair, as the first-start banner prints it."""
    text = "\n".join(server.stderr)
    client = re.search(r"export PA_API_CLIENT_KEY=(pak_\w{24})", text)
    secret = re.search(r"export PA_API_SECRET_KEY=(pas_\w{43})", text)
    assert client and secret, text
    return Keys(client.group(1), secret.group(1))


def create_user(cwd: Path, env: Mapping[str, str], brands: str, name: Optional[str] = None) -> Keys:
    grants = ["--brands", brands] if brands else []
    created = json.loads(run_cli(["users", "create", "--name", name or f"py-{uuid.uuid4().hex[:8]}", *grants, "--json"], cwd, env))
    return Keys(created["api_client_key"], created["api_secret_key"], created["user_id"])


def _node_helper(script: str) -> str:
    """Runs TypeScript through tsx from the repository (the test helpers' own schema code)."""
    done = subprocess.run([NODE, "--import", "tsx", "--input-type=module", "-e", script], cwd=REPO, env=base_env(
        {"TEST_DATABASE_URL": POSTGRES_URL}), capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise AssertionError(f"node helper failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


def create_schema() -> Dict[str, str]:
    """A new PostgreSQL schema of its own: {schema, databaseUrl}, with the test helpers' createSchema."""
    out = _node_helper("const m = await import('./test/helpers/stores.ts'); "
                       "process.stdout.write(JSON.stringify(await m.createSchema(m.TEST_POSTGRES_URL, 'py')))")
    created: Dict[str, str] = json.loads(out)
    return created


def drop_schema(schema: str) -> None:
    """Drops it under the migration lock, as the test helpers do."""
    assert re.fullmatch(r"py_[0-9a-f]+", schema), schema
    _node_helper(f"const m = await import('./test/helpers/stores.ts'); await m.dropSchema(m.TEST_POSTGRES_URL, '{schema}')")


def write_events(database_url: str, events: Sequence[Mapping[str, Any]], created_at: str, *, sync: bool) -> List[str]:
    """Writes change events into a store through the change log's own storage API
    (src/storage/changes/change-log.repository.ts), numbered as its writers number them: a new
    sync id for them all when `sync` (as an import does), none otherwise (as `users grant` does).
    Each event is {type, data[, userId]}; returns their ids."""
    script = ("const { parseDatabaseUrl } = await import('./src/config/load.ts')\n"
              "const { createStore } = await import('./src/storage/db.ts')\n"
              "const log = await import('./src/storage/changes/change-log.repository.ts')\n"
              f"const [url, events, createdAt, sync] = {json.dumps([database_url, events, created_at, sync])}\n"
              "const store = createStore(parseDatabaseUrl(url))\n"
              "try {\n"
              "  const first = await store.db.transaction().execute(async (trx) => {\n"
              "    const numbers = await log.takeChangeNumbers(trx, { sync, eventCount: events.length })\n"
              "    await log.insertEvents(trx, { ...numbers, createdAt }, events)\n"
              "    return numbers.firstEventId\n"
              "  })\n"
              "  process.stdout.write(JSON.stringify(events.map((_, index) => `evt_${first + index}`)))\n"
              "} finally { await store.destroy() }\n")
    ids: List[str] = json.loads(_node_helper(script))
    return ids


def python_for_children() -> str:
    return sys.executable
