import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import S3rver from 's3rver'
import { datasetColumns } from '../../src/domain/exports.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { download, getManifest, postExport, readRows, waitForJob } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * Export files in S3-compatible storage (EXPORT_S3_*; docs/exports.md "Where the files live"),
 * against a real S3 server (s3rver) started by the test on 127.0.0.1, never a mock of the client:
 * files uploaded, downloaded through the API whole and by range, removed with their job.
 */

const QUIET = { info: () => {}, warn: () => {}, error: () => {} }
const dataset = generateDataset({ seed: 3, start: '2026-01-20', days: 20 })

for (const dialect of DIALECTS) {
  describe(`exports in S3-compatible storage (${dialect})`, () => {
    let api: PartnerApi
    let server: S3rver
    const dir = mkdtempSync(join(tmpdir(), 'pa-s3rver-'))
    before(async () => {
      server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: 'pa-exports', configs: [] }] })
      const { port } = await server.run()
      api = await openPartnerApi(dialect, {
        brandIds: [1, 2],
        seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
        env: {
          EXPORT_S3_URL: 's3://pa-exports/tenant-a/exports',
          EXPORT_S3_ENDPOINT: `http://127.0.0.1:${port}`,
          EXPORT_S3_ACCESS_KEY_ID: 'S3RVER',
          EXPORT_S3_SECRET_ACCESS_KEY: 'S3RVER',
        },
        exports: { pollMs: 50, leaseMs: 3000 },
      })
      api.app.services.exports.worker.start(QUIET)
    })
    after(async () => {
      await api.close()
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('uploads the files, serves them whole and by range, and removes them with the job', async () => {
      const created = await postExport(api.app, api.auth, { dataset: 'daily', since: '2026-01-20', until: '2026-02-08' })
      const job = await waitForJob(api.app, api.auth, created.body.id)
      assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
      const manifest = await getManifest(api.app, api.auth, job.id)
      assert.deepEqual(manifest.files.map((file) => file.name), ['daily-2026-01.parquet', 'daily-2026-02.parquet'])
      const types = Object.fromEntries(datasetColumns('daily').map((column) => [column.name, column.type]))
      let rows = 0
      for (const file of manifest.files) {
        const whole = await download(api.app, api.auth, file.url)
        assert.equal(whole.status, 200)
        assert.equal(createHash('sha256').update(whole.bytes).digest('hex'), file.sha256)
        rows += (await readRows(whole.bytes, 'parquet', 'zstd', types)).length
        const tail = await download(api.app, api.auth, file.url, { range: 'bytes=-100' })
        assert.equal(tail.status, 206)
        assert.deepEqual(tail.bytes, whole.bytes.subarray(whole.bytes.length - 100))
      }
      assert.equal(rows, job.progress.rows_written)
      const files = api.app.services.exports.files
      await files.read(`${job.id}/daily-2026-01.parquet`)

      const removed = await api.app.inject({ method: 'DELETE', url: `/exports/${job.id}`, headers: api.auth })
      assert.equal(removed.statusCode, 204)
      await assert.rejects(files.read(`${job.id}/daily-2026-01.parquet`))
    })
  })
}
