"""Every example of docs/client-python.md and of the READMEs, run as written with the installed
package against the demo server (the sync recipe, which needs events, by test_changes_live.py)."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import Api, partner_env
from examples import PACKAGE, examples, run_example
from servers import NODE, REPO, base_env
from test_cross_client import export

GUIDE = examples(REPO / "docs" / "client-python.md")
README = examples(REPO / "README.md")
PACKAGE_README = (PACKAGE / "README.md").read_text(encoding="utf-8")


def yesterday() -> dt.date:
    return dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1)


def test_every_example_is_named_and_run() -> None:
    assert sorted(GUIDE) == ["agg", "catalog", "daily", "data-status", "errors", "export-year", "login", "posts", "sync", "webhook"]
    assert sorted(README) == ["readme"]


def test_login(sqlite_api: Api, installed_python: Path, tmp_path: Path) -> None:
    out = run_example(installed_python, GUIDE["login"], tmp_path, partner_env(sqlite_api)).splitlines()
    assert re.fullmatch(r"logged in as usr_\w+; the token is valid 3600 s", out[0])
    assert out[1] == "Demo Partner reads:"
    assert [int(line.split()[0]) for line in out[2:]] == [1, 2, 3, 4, 5, 6, 7]
    assert out[2].endswith("(4 accounts)") and out[3].endswith("(3 accounts)")


def test_daily(sqlite_api: Api, installed_python: Path, tmp_path: Path) -> None:
    out = run_example(installed_python, GUIDE["daily"], tmp_path, partner_env(sqlite_api)).splitlines()
    pages = [line for line in out if line.startswith("a page of")]
    assert pages[-1].endswith("another follows: False") and all(line == "a page of 20 entries; another follows: True" for line in pages[:-1])
    entries = [line.split() for line in out if not line.startswith("a page of")]
    assert [(fields[0], fields[1]) for fields in entries] == [(str(yesterday() - dt.timedelta(days=n)), "1") for n in range(3)]


def test_agg(sqlite_api: Api, installed_python: Path, tmp_path: Path) -> None:
    out = run_example(installed_python, GUIDE["agg"], tmp_path, partner_env(sqlite_api)).splitlines()
    summary = next(line for line in out if "views in all" in line)
    assert re.fullmatch(r"\d+ entries: \d+ views in all, \d+(\.\d+)? on average", summary)
    months = out[out.index(summary) + 1:]
    assert len(months) == 9 and months[0].split()[:2] == [yesterday().strftime("%Y-%m"), "fb"]


def test_posts(sqlite_api: Api, installed_python: Path, tmp_path: Path) -> None:
    out = run_example(installed_python, GUIDE["posts"], tmp_path, partner_env(sqlite_api)).splitlines()
    assert len(out) == 5
    rates = [float(line.split()[3]) for line in out]
    assert rates == sorted(rates, reverse=True)
    assert all(line.split()[4].startswith("https://") for line in out)


def test_export_a_year_to_csv_writes_the_exports_file(sqlite_api: Api, installed_python: Path, tmp_path: Path) -> None:
    until = yesterday()
    out = run_example(installed_python, GUIDE["export-year"], tmp_path, partner_env(sqlite_api))
    rows = int(re.fullmatch(r"wrote (\d+) entries to daily-year.csv\n", out).group(1))  # type: ignore[union-attr]
    written = (tmp_path / "daily-year.csv").read_bytes()
    assert rows > 360 * 7 and written.count(b"\r\n") == rows + 1
    theirs = tmp_path / "export.csv"
    export(sqlite_api, "analytics", "--type", "daily", "--since", str(until - dt.timedelta(days=364)), "--until", str(until), "--format", "csv",
           "--out", str(theirs))
    assert written == theirs.read_bytes()


def test_data_status(sqlite_api: Api, installed_python: Path, tmp_path: Path) -> None:
    out = run_example(installed_python, GUIDE["data-status"], tmp_path, partner_env(sqlite_api)).splitlines()
    until = yesterday()
    accounts = sqlite_api.client().account_statuses(since=until - dt.timedelta(days=29), until=until).to_list()
    lines = out[:len(accounts)]
    for line, account in zip(lines, accounts):
        gaps = ", ".join(f"{days['since']} to {days['until']}" for days in account["missing"]) or "none"
        assert line == (f"brand {account['brand_id']} {account['platform']} {account['account_id']}: {account['days_reported']} of "
                        f"{account['days_expected']} days, data through {account['last_date']}; missing: {gaps}")
    assert any(not line.endswith("missing: none") for line in lines) and len(accounts) > 20
    entries = sqlite_api.client().daily(since=until - dt.timedelta(days=6), until=until, brand_id=1, include="status").to_list()
    assert out[len(accounts):] == [
        f"{entry['date']}: {entry['views']} views from {entry['accounts_reported']} of {entry['accounts_expected']} accounts"
        + ("" if entry["accounts_reported"] == entry["accounts_expected"] else " (incomplete)") for entry in entries]
    assert len(entries) == 7


def test_catalog(sqlite_api: Api, installed_python: Path, tmp_path: Path) -> None:
    out = run_example(installed_python, GUIDE["catalog"], tmp_path, partner_env(sqlite_api)).splitlines()
    names = [metric["name"] for metric in sqlite_api.client().metric_catalog().data]
    assert [line.split()[0] for line in out] == names
    assert re.fullmatch(r"revenue +Revenue +currency +sum over days", out[0])
    assert re.fullmatch(r"engagement_rate +Engagement rate +ratio +interactions / reach_or_views", out[names.index("engagement_rate")])


def test_errors(sqlite_api: Api, installed_python: Path, tmp_path: Path) -> None:
    out = run_example(installed_python, GUIDE["errors"], tmp_path, partner_env(sqlite_api)).splitlines()
    assert re.fullmatch(r"FORBIDDEN \(403\): You do not have access to brand_id 8; request id [0-9a-f-]{36}", out[0])
    assert out[1] == "[(['query', 'limit'], 'less_than_equal')]"
    assert out[2] == "POST http://127.0.0.1:9/auth/login failed: connection refused (ECONNREFUSED 127.0.0.1:9)"


SIGN = r"""
const crypto = require('node:crypto')
const [secret, id, timestamp, body] = JSON.parse(process.argv[1])
process.stdout.write(crypto.createHmac('sha256', Buffer.from(secret.slice(6), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64'))
"""

HARNESS = r"""
import io, json, runpy, sys
receiver = runpy.run_path("receiver.py", run_name="receiver")  # defines app, does not serve
for delivery in json.load(sys.stdin):
    body = delivery["body"].encode()
    environ = {"wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body)), "REQUEST_METHOD": "POST",
               **{"HTTP_" + name.upper().replace("-", "_"): value for name, value in delivery["headers"].items()}}
    statuses = []
    answer = b"".join(receiver["app"](environ, lambda status, headers: statuses.append(status)))
    print(statuses[0], answer.decode())
"""


def test_webhook_receiver(installed_python: Path, tmp_path: Path) -> None:
    secret = "whsec_" + "c2VjcmV0IGtleSBvZiB0aGUgZG9jcyBleGFtcGxl"
    body = json.dumps({"id": "evt_1", "type": "access.granted", "created_at": "2026-11-25T10:00:00Z", "sync_id": None, "data": {"brand_id": 3}})
    now = int(dt.datetime.now(dt.timezone.utc).timestamp())
    signature = subprocess.run([NODE, "-e", SIGN, json.dumps([secret, "evt_1", str(now), body])], capture_output=True, text=True, timeout=60,
                               env=base_env(), check=True).stdout
    genuine = {"body": body, "headers": {"webhook-id": "evt_1", "webhook-timestamp": str(now), "webhook-signature": f"v1,{signature}"}}
    forged = {"body": body.replace('"brand_id": 3', '"brand_id": 4'), "headers": genuine["headers"]}
    (tmp_path / "receiver.py").write_text(GUIDE["webhook"], encoding="utf-8")
    (tmp_path / "harness.py").write_text(HARNESS, encoding="utf-8")
    done = subprocess.run([str(installed_python), "harness.py"], cwd=tmp_path, input=json.dumps([genuine, genuine, forged]),
                          env=base_env({"PA_WEBHOOK_SECRET": secret}), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    # Received once (the second delivery is a duplicate), the forged one refused.
    assert done.stdout.splitlines() == ["received evt_1 access.granted", "204 No Content ", "204 No Content ",
                                        "400 Bad Request no webhook-signature matches"]


@pytest.mark.parametrize("where", ["README.md", "clients/python/README.md"])
def test_readme_examples(sqlite_api: Api, installed_python: Path, tmp_path: Path, where: str) -> None:
    code = README["readme"] if where == "README.md" else re.search(r"```python\n(.*?)```", PACKAGE_README, re.S).group(1)  # type: ignore[union-attr]
    out = run_example(installed_python, code, tmp_path, partner_env(sqlite_api)).splitlines()
    assert [line.split()[0] for line in out[:7]] == ["1", "2", "3", "4", "5", "6", "7"]
    daily = out[7:-1] if where == "README.md" else out[7:]
    assert len(daily) > 20 and {line.split()[1] for line in daily} == {"fb", "ig"}
    assert {line.split()[0] for line in daily} == {str(yesterday() - dt.timedelta(days=n)) for n in range(20)}
    if where == "README.md":
        assert re.fullmatch(r"\d+ views in a year", out[-1])
    else:
        assert (tmp_path / "daily.csv").read_bytes().count(b"\r\n") > 360 * 7
