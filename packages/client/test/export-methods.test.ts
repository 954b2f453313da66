import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync, existsSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { DIALECTS } from '../../../test/helpers/stores.js'
import { downloadExport, downloadExportFile, ExportFileMismatchError, ExportWaitTimeoutError, NotFoundError, PartnerAnalyticsClient, ValidationError, type ExportJob } from '../src/index.js'
import { startServer, type RunningServer } from './server.js'

/**
 * The client's export methods against a running service (both stores): create, list (paged),
 * read, cancel, wait (bounded, with progress), the manifest, downloads verified by SHA-256 and
 * resumed from an interrupted `.part` file, and the change feed from the manifest's cursor.
 */

const QUIET = { info: () => {}, warn: () => {}, error: () => {} }

for (const dialect of DIALECTS) {
  describe(`client export methods (${dialect})`, () => {
    let server: RunningServer
    let client: PartnerAnalyticsClient
    let dir: string
    const exportDir = mkdtempSync(join(tmpdir(), 'pa-client-exports-'))

    before(async () => {
      server = await startServer(dialect, { EXPORT_DIR: exportDir }, { exports: { pollMs: 50, leaseMs: 3000 } })
      client = new PartnerAnalyticsClient({ baseUrl: server.baseUrl, clientKey: server.partner.clientKey, secretKey: server.partner.secretKey })
      dir = mkdtempSync(join(tmpdir(), 'pa-client-download-'))
    })
    after(async () => {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
      rmSync(exportDir, { recursive: true, force: true })
    })

    it('creates, lists page by page, cancels a queued job, and bounds the wait', async () => {
      // The worker is not started: the jobs stay queued.
      const created: ExportJob[] = []
      for (const format of ['csv', 'ndjson', 'parquet'] as const) created.push(await client.createExport({ dataset: 'daily', format, brand_id: [1] }))
      assert.deepEqual(created.map((job) => [job.status, job.format, job.brand_ids]), [['queued', 'csv', [1]], ['queued', 'ndjson', [1]], ['queued', 'parquet', [1]]])
      assert.equal(created[0]?.compression, 'gzip')
      const first = await client.exports({ limit: 2 })
      assert.deepEqual([first.data.length, first.next_cursor !== null], [2, true])
      // Newest first (jobs created in the same millisecond may come in either order): every job once.
      const all: string[] = []
      for await (const job of client.allExports({ pageSize: 2 })) all.push(job.id)
      assert.deepEqual([...all].sort(), created.map((job) => job.id).sort())
      assert.deepEqual(all.slice(0, 2), first.data.map((job) => job.id))
      assert.equal((await client.getExport(created[0]?.id ?? '')).status, 'queued')

      const seen: string[] = []
      await assert.rejects(client.waitExport(created[0]?.id ?? '', { pollIntervalMs: 20, timeoutMs: 100, onProgress: (job) => seen.push(job.status) }),
        (error: unknown) => error instanceof ExportWaitTimeoutError && error.job.status === 'queued')
      assert.ok(seen.length >= 1 && seen.every((status) => status === 'queued'))

      for (const job of created) assert.equal((await client.cancelExport(job.id))?.status, 'cancelled')
      assert.equal((await client.waitExport(created[0]?.id ?? '')).status, 'cancelled')
      for (const job of created) assert.equal(await client.cancelExport(job.id), undefined)
      await assert.rejects(client.getExport(created[0]?.id ?? ''), NotFoundError)
      await assert.rejects(client.createExport({ dataset: 'weekly' as 'daily' }), ValidationError)
    })

    it('waits for a job, downloads its files verified, resumes an interrupted download, and follows the changes from its cursor', async () => {
      server.app.services.exports.worker.start(QUIET)
      try {
        const created = await client.createExport({ dataset: 'daily', format: 'csv', since: '2026-01-01', until: '2026-02-09' })
        const progress: ExportJob[] = []
        const job = await client.waitExport(created.id, { pollIntervalMs: 50, timeoutMs: 30_000, onProgress: (seen) => progress.push(seen) })
        assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
        assert.equal(progress.at(-1)?.status, 'succeeded')

        const { manifest, files } = await downloadExport(client, job.id, dir)
        // 40 days from January 1st: one file per month.
        assert.equal(manifest.files.length, 2)
        assert.deepEqual(files.map((file) => file.name), manifest.files.map((file) => file.name))
        let rows = 0
        for (const file of manifest.files) {
          const bytes = readFileSync(join(dir, file.name))
          assert.equal(createHash('sha256').update(bytes).digest('hex'), file.sha256)
          assert.equal(bytes.length, file.bytes)
          rows += gunzipSync(bytes).toString('utf8').trimEnd().split('\n').length - 1
        }
        assert.equal(rows, manifest.rows)
        assert.ok(rows > 0)
        assert.deepEqual(files.map((file) => file.resumedFrom), files.map(() => 0))

        // An interrupted download: the first half is on disk as .part; only the rest is asked.
        const target = manifest.files[0]
        assert.ok(target !== undefined)
        const path = join(dir, target.name)
        renameSync(path, `${path}.part`)
        const half = Math.floor(target.bytes / 2)
        truncateSync(`${path}.part`, half)
        const resumed = await downloadExportFile(client, job.id, target.name, dir)
        assert.deepEqual([resumed.resumedFrom, resumed.bytes], [half, target.bytes])
        assert.equal(createHash('sha256').update(readFileSync(path)).digest('hex'), target.sha256)
        assert.equal(existsSync(`${path}.part`), false)

        // A complete file already there is kept; a .part holding other bytes is refused and removed.
        assert.equal((await downloadExportFile(client, job.id, target.name, dir)).resumedFrom, target.bytes)
        rmSync(path)
        writeFileSync(`${path}.part`, Buffer.alloc(target.bytes, 1))
        await assert.rejects(downloadExportFile(client, job.id, target.name, dir), (error: unknown) => error instanceof ExportFileMismatchError && error.expectedSha256 === target.sha256)
        assert.equal(existsSync(`${path}.part`), false)
        assert.equal((await downloadExportFile(client, job.id, target.name, dir)).resumedFrom, 0)

        // Ranges are the service's: a partial response of the file's bytes.
        const response = await client.exportFileResponse(job.id, target.name, { range: 'bytes=0-9' })
        assert.deepEqual([response.status, response.headers.get('etag'), response.headers.get('content-range')], [206, `"${target.sha256}"`, `bytes 0-9/${target.bytes}`])
        assert.deepEqual(Buffer.from(await response.arrayBuffer()), readFileSync(path).subarray(0, 10))
        await assert.rejects(client.exportFileResponse(job.id, 'nope.csv.gz', {}), NotFoundError)

        // Nothing imported since the snapshot: the feed from its cursor is caught up and empty.
        const pages = []
        for await (const page of client.changesSince(manifest)) pages.push(page)
        assert.deepEqual(pages.map((page) => [page.data.length, page.has_more]), [[0, false]])
      } finally {
        await server.app.services.exports.worker.stop(1000)
      }
    })
  })
}
