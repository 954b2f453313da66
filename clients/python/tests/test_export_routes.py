"""The export routes through the client's methods, on both stores (a real `serve`, whose worker runs
the jobs): create, read, list page by page, wait (bounded, with progress), the manifest, the files
saved and verified by SHA-256, an interrupted download resumed, a tampered one refused, cancel and
remove, and the change feed from the manifest's cursor."""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import os
from pathlib import Path
from typing import List

import pytest

from conftest import Api
from partner_analytics import ExportFileMismatch, NotFoundError, ValidationError
from partner_analytics.models import ExportJob


def test_an_export_from_creation_to_verified_resumed_files(api: Api, tmp_path: Path) -> None:
    client = api.client()
    until = dt.date.today() - dt.timedelta(days=1)
    since = until.replace(day=1) - dt.timedelta(days=20)
    created = client.create_export(dataset="daily", format="csv", since=since, until=until, brand_id=[1])
    assert (created.status, created.dataset, created.format, created.compression, created.brand_ids) == ("queued", "daily", "csv", "gzip", [1])
    assert client.export(created.id).id == created.id
    assert created.id in [job.id for job in client.exports(page_size=1)]

    seen: List[ExportJob] = []
    job = client.wait_export(created.id, poll_interval=0.1, timeout=60, on_progress=seen.append)
    assert job.status == "succeeded", job.error
    assert seen[-1].status == "succeeded"

    manifest = client.download_export(job.id, str(tmp_path))
    assert [file["name"] for file in manifest.files] == sorted(os.listdir(tmp_path))
    assert len(manifest.files) == 2  # the period spans two months: one file each
    rows = 0
    for file in manifest.files:
        data = (tmp_path / file["name"]).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (file["bytes"], file["sha256"])
        rows += len(gzip.decompress(data).decode().splitlines()) - 1
    assert rows == manifest.rows > 0

    # Interrupted: half the first file is on disk as .part; only the rest is asked for.
    first = manifest.files[0]
    path = tmp_path / first["name"]
    part = Path(str(path) + ".part")
    path.rename(part)
    with open(part, "r+b") as handle:
        handle.truncate(first["bytes"] // 2)
    assert client.download_export_file(job.id, first["name"], str(path)) == first["bytes"] // 2
    assert hashlib.sha256(path.read_bytes()).hexdigest() == first["sha256"]
    assert not part.exists()
    # Complete already: kept. Other bytes in the .part: refused and removed; resume=False starts over.
    assert client.download_export_file(job.id, first["name"], str(path)) == first["bytes"]
    path.unlink()
    part.write_bytes(b"\x01" * first["bytes"])
    with pytest.raises(ExportFileMismatch):
        client.download_export_file(job.id, first["name"], str(path))
    assert not part.exists()
    part.write_bytes(b"\x01" * 10)
    assert client.download_export_file(job.id, first["name"], str(path), resume=False) == 0
    assert hashlib.sha256(path.read_bytes()).hexdigest() == first["sha256"]

    # Nothing imported since the snapshot: the feed from its cursor is caught up.
    page = client.changes_page(cursor=manifest.changes_cursor)
    assert (page.data, page.has_more) == ([], False)

    assert client.cancel_export(job.id) is None  # finished: removed with its files
    with pytest.raises(NotFoundError):
        client.export(job.id)


def test_cancel(api: Api) -> None:
    client = api.client()
    with pytest.raises(ValidationError):
        client.create_export(dataset="daily", format="parquet", compression="gzip")
    created = client.create_export(dataset="posts", format="ndjson", brand_id=[1])
    cancelled = client.cancel_export(created.id)
    if cancelled is None:
        # The worker had already finished it: DELETE removed it with its files.
        with pytest.raises(NotFoundError):
            client.export(created.id)
    else:
        assert cancelled.status == "cancelled"
        assert client.wait_export(created.id, poll_interval=0.1, timeout=60).status == "cancelled"
