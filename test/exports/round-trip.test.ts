import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { datasetColumns, EXPORT_FORMATS } from '../../src/domain/exports.js'
import { generateDataset, insertDatasetAndReadModel } from '../helpers/analytics-fixtures.js'
import { download, exportDir, getManifest, postExport, readRows, storeDailyRows, waitForJob, type PlainRow } from '../helpers/exports.js'
import { openPartnerApi, type PartnerApi } from '../helpers/partner-api.js'
import { DIALECTS } from '../helpers/stores.js'

/**
 * Every dataset × format round-trips exactly (docs/exports.md): the rows read back from the files
 * by a reader independent of the writer equal the store's rows, NULL stays NULL, revenue is exact,
 * and summed per brand they equal GET /analytics/'s agg numbers for the same scope. Brand 4 is not
 * granted and never appears.
 */

const QUIET = { info: () => {}, warn: () => {}, error: () => {} }
const SINCE = '2026-01-01'
const UNTIL = '2026-03-10'
const dataset = generateDataset({ seed: 29, start: '2025-12-20', days: 100 })

const DAILY_TYPES = Object.fromEntries(datasetColumns('daily').map((column) => [column.name, column.type]))

for (const dialect of DIALECTS) {
  describe(`export round trip (${dialect})`, () => {
    let api: PartnerApi
    before(async () => {
      api = await openPartnerApi(dialect, {
        brandIds: [1, 2],
        seed: async (test) => { await insertDatasetAndReadModel(test.store, dataset) },
        env: { EXPORT_DIR: exportDir() },
        exports: { pollMs: 50, leaseMs: 3000 },
      })
      api.app.services.exports.worker.start(QUIET)
    })
    after(async () => { await api.close() })

    for (const format of EXPORT_FORMATS) {
      it(`daily as ${format}: the files hold exactly the store's rows, and their sums are /analytics/'s`, async () => {
        const created = await postExport(api.app, api.auth, { dataset: 'daily', format, since: SINCE, until: UNTIL })
        assert.equal(created.status, 202, JSON.stringify(created.body))
        assert.equal(created.headers.location, `/exports/${created.body.id}`)
        assert.equal(created.body.status, 'queued')
        const job = await waitForJob(api.app, api.auth, created.body.id)
        assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
        const manifest = await getManifest(api.app, api.auth, job.id)
        assert.deepEqual(manifest.files.map((file) => file.name), ['2026-01', '2026-02', '2026-03'].map((month) => `daily-${month}.${format === 'parquet' ? 'parquet' : `${format}.gz`}`))
        const read: PlainRow[] = []
        for (const file of manifest.files) {
          const got = await download(api.app, api.auth, file.url)
          assert.equal(got.status, 200)
          assert.equal(got.headers.etag, `"${file.sha256}"`)
          assert.equal(got.bytes.length, file.bytes)
          const rows = await readRows(got.bytes, format, job.compression, DAILY_TYPES)
          assert.equal(rows.length, file.rows)
          read.push(...rows)
        }
        const expected = await storeDailyRows(api.test.store, { brandIds: [1, 2], since: SINCE, until: UNTIL })
        assert.ok(expected.length > 300)
        assert.deepEqual(read, expected)
        assert.equal(job.progress.rows_written, expected.length)
        assert.ok(read.some((row) => row.revenue === null) && read.some((row) => row.views === null), 'NULLs are kept')
        assert.ok(!read.some((row) => row.brand_id === 4))

        // Summed per brand: /analytics/'s agg numbers for the same scope.
        const agg = await api.analytics<{ data: Array<Record<string, number | null>> }>({ type: 'agg', brand_id: '1,2', since: SINCE, until: UNTIL })
        assert.equal(agg.status, 200)
        for (const entry of agg.body.data) {
          const rows = read.filter((row) => row.brand_id === entry.brand_id)
          const sum = (metric: string): number => rows.reduce((total, row) => total + Number(row[metric] ?? 0), 0)
          assert.equal(sum('views'), entry.views)
          assert.equal(sum('interactions'), entry.interactions)
          assert.equal(sum('posts_count'), entry.posts_count)
          const revenueMicros = rows.reduce((total, row) => total + Math.round(Number(row.revenue ?? 0) * 1e6), 0)
          const reported = rows.some((row) => row.revenue !== null)
          assert.equal(reported ? Math.floor(revenueMicros / 10_000 + 0.5) / 100 : null, entry.revenue)
        }
      })
    }

    it('accounts and posts: every granted account, never another brand\'s', async () => {
      const created = await postExport(api.app, api.auth, { dataset: 'accounts', format: 'ndjson', compression: 'none' })
      assert.equal(created.status, 202)
      const job = await waitForJob(api.app, api.auth, created.body.id)
      assert.equal(job.status, 'succeeded', JSON.stringify(job.error))
      const manifest = await getManifest(api.app, api.auth, job.id)
      assert.deepEqual(manifest.files.map((file) => file.name), ['accounts.ndjson'])
      const rows = await readRows((await download(api.app, api.auth, manifest.files[0]?.url ?? '')).bytes, 'ndjson', 'none', {})
      const expected = dataset.accounts.filter((account) => account.brand_id !== 4)
        .sort((a, b) => a.brand_id - b.brand_id || a.platform.localeCompare(b.platform) || a.account_id - b.account_id)
      assert.deepEqual(rows.map((row) => [row.brand_id, row.platform, row.account_id]), expected.map((account) => [account.brand_id, account.platform, account.account_id]))
      const coverage = await api.test.store.db.selectFrom('account_coverage').selectAll().where('platform', '=', 'fb').where('account_id', '=', 100).executeTakeFirstOrThrow()
      const fb100 = rows.find((row) => row.platform === 'fb' && row.account_id === 100)
      assert.equal(fb100?.first_date, String(coverage.first_date))
      assert.equal(fb100?.last_date, String(coverage.last_date))
      assert.equal(fb100?.brand_name, 'Acme')

      const posts = await postExport(api.app, api.auth, { dataset: 'posts', format: 'csv' })
      const postsJob = await waitForJob(api.app, api.auth, posts.body.id)
      assert.equal(postsJob.status, 'succeeded', JSON.stringify(postsJob.error))
      assert.deepEqual(postsJob.files, [])
      const count = await sql<{ n: number }>`select count(*) as n from posts`.execute(api.test.store.db)
      assert.equal(Number(count.rows[0]?.n), 0)
    })
  })
}
